package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/qtype"
)

// TestResultsAreEncodingJSONs checks the hand-written heads of a result
// (status, cost, times) against encoding/json, byte for byte.
func TestResultsAreEncodingJSONs(t *testing.T) {
	created := time.Date(2026, 11, 29, 9, 0, 0, 987654321, time.FixedZone("west", -7*3600))
	ended := created.Add(time.Hour)
	counts := map[string]int{"00": 3, "11": 5}
	ts := qtype.TimeStamps{CreatedAt: created, EndedAt: &ended, ExecutionDuration: 3_600_000}
	tests := []struct {
		name string
		res  *quantum.JobResult
		ok   bool // encoding/json writes it
	}{
		{"completed", &quantum.JobResult{Status: quantum.StatusCompleted, Cost: 0.3, TimeStamps: ts, ResultData: quantum.ResultData{MeasurementCounts: counts}}, true},
		{"zero times, negative zero", &quantum.JobResult{Status: "", Cost: math.Copysign(0, -1), ResultData: quantum.ResultData{MeasurementCounts: counts}}, true},
		{"a status to escape", &quantum.JobResult{Status: "odd<&>\"\\\u2028ü\xff", Cost: 1e-7, TimeStamps: ts, ResultData: quantum.ResultData{Data: map[string]any{"a": 1}}}, true},
		{"costs in the exponent form", &quantum.JobResult{Status: quantum.StatusCompleted, Cost: 1e21, TimeStamps: ts, ResultData: quantum.ResultData{MeasurementCounts: map[string]int{}}}, true},
		{"a batch", &quantum.JobResult{Status: quantum.StatusCompleted, Cost: 12345.678, TimeStamps: ts, Results: []quantum.CircuitResult{
			{Status: quantum.StatusCompleted, Cost: 9.99e-7, TimeStamps: ts, ResultData: quantum.ResultData{MeasurementCounts: counts}},
			{Status: "<x>", Cost: 123456789012345678901234.0, ResultData: quantum.ResultData{MeasurementCounts: map[string]int{"1": 1}}},
		}}, true},
		{"a NaN cost", &quantum.JobResult{Status: quantum.StatusCompleted, Cost: math.NaN(), ResultData: quantum.ResultData{MeasurementCounts: counts}}, false},
		{"an infinite cost", &quantum.JobResult{Status: quantum.StatusCompleted, Cost: math.Inf(1), ResultData: quantum.ResultData{MeasurementCounts: counts}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want bytes.Buffer
			err := json.NewEncoder(&want).Encode(struct {
				Success bool               `json:"success"`
				Data    *quantum.JobResult `json:"data"`
			}{true, tt.res})
			if (err == nil) != tt.ok {
				t.Fatalf("encoding/json: %v", err)
			}
			rec := httptest.NewRecorder()
			got := httpadapter.WriteResult(rec, tt.res)
			if (got == nil) != tt.ok {
				t.Fatalf("writeResult: %v, encoding/json: %v", got, err)
			}
			if !bytes.Equal(rec.Body.Bytes(), want.Bytes()) {
				t.Fatalf("body\n got %q\nwant %q", rec.Body.Bytes(), want.Bytes())
			}
		})
	}
}
