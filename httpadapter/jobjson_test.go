package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/qtype"
)

// TestJobAnswersAreEncodingJSONs checks the hand-written encoder of a job
// against encoding/json, byte for byte, on values a job seldom holds.
func TestJobAnswersAreEncodingJSONs(t *testing.T) {
	created := time.Date(2026, 11, 29, 9, 0, 0, 123456789, time.FixedZone("east", 5*3600))
	ended := created.Add(1500 * time.Millisecond)
	msg := "failed: <script>&\"quoted\"\\ \u2028 \xff"
	batch := "qbraid:qbraid:sim:qir-sv-abcd-qjob-000000000000000000000001"
	zero, five := 0, 5
	many := map[string]any{}
	for i := range 40 {
		many[fmt.Sprintf("k%02d", 39-i)] = i
	}
	tests := []struct {
		name string
		job  *quantum.Job
	}{
		{"nil job", nil},
		{"zero job", &quantum.Job{}},
		{"a job as polled", &quantum.Job{
			Name: "bell", Shots: 1000, DeviceQRN: "qbraid:qbraid:sim:qir-sv", Tags: map[string]any{}, RuntimeOptions: map[string]any{},
			JobQRN: batch, Vendor: "qbraid", Provider: "qbraid", Status: quantum.StatusCompleted, ExperimentType: "gate_model",
			NumCircuits: 1, TimeStamps: qtype.TimeStamps{CreatedAt: created, EndedAt: &ended, ExecutionDuration: 1500},
			Metadata: map[string]any{"executionPath": "sampled", "method": "stabilizer", "numQubits": 2, "seed": uint64(1) << 63,
				"simulationMs": int64(0), "precision": "double"},
		}},
		{"strings that need escaping", &quantum.Job{
			Name: "tab\tnewline\n\x00\x1f<b>&amp;\u2029 é 🙂 \xfe\xff", DeviceQRN: `"\`, JobQRN: "\u007f", Vendor: "ünï", Provider: "\r",
			Status: "odd\"status", StatusMsg: &msg, BatchJobQRN: &batch, ExperimentType: "\u2028",
		}},
		{"unusual map values", &quantum.Job{
			Tags: map[string]any{"": "", "ключ": "значение", "\xff": "x", "a<b": "c&d", "nested": map[string]any{"z": []any{1, "2", nil, true, 2.5}, "a": nil},
				"list": []string{"x", "<y>"}, "num": json.Number("12.50"), "raw": json.RawMessage(`{ "spaced" : [1, 2] }`), "f32": float32(0.1),
				"int8": int8(-3), "uint": uint(7), "bool": false, "time": created, "int64": int64(math.MinInt64), "float": 1e-7, "big": 1e21,
				"neg": math.Copysign(0, -1), "tiny": 5e-324, "max": math.MaxFloat64, "sum": 0.1 + 0.2, "emptyMap": map[string]any{}, "nilMap": map[string]any(nil)},
			RuntimeOptions: map[string]any{"seed": int64(7), "precision": "single", "noiseModel": map[string]any{"depolarizing": 0.01}},
			Metadata:       many,
		}},
		{"numbers at the edges", &quantum.Job{Shots: math.MinInt64 + 1, NumCircuits: -1, QueuePosition: &zero, Cost: math.Copysign(0, -1), EstimatedCost: 1e-6}},
		{"exponent forms", &quantum.Job{QueuePosition: &five, Cost: 1e21, EstimatedCost: 9.99e-7}},
		{"more exponent forms", &quantum.Job{Cost: -1e-9, EstimatedCost: 123456789012345678901234.0}},
		{"a NaN cost", &quantum.Job{Name: "x", Cost: math.NaN()}},
		{"an infinite estimate", &quantum.Job{EstimatedCost: math.Inf(-1)}},
		{"a NaN in the metadata", &quantum.Job{Metadata: map[string]any{"a": 1, "b": math.NaN()}}},
		{"a value encoding/json refuses in the tags", &quantum.Job{Tags: map[string]any{"ch": make(chan int)}}},
		{"a NaN deep in the tags", &quantum.Job{Tags: map[string]any{"a": map[string]any{"b": math.Inf(1)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, status := range []int{http.StatusOK, http.StatusCreated} {
				rec := httptest.NewRecorder()
				httpadapter.WriteJob(rec, status, tt.job)
				want := encodingJSON(t, tt.job)
				if got := rec.Body.Bytes(); !bytes.Equal(got, want) {
					t.Fatalf("body\n got %q\nwant %q", got, want)
				}
				if rec.Code != status {
					t.Errorf("status %d, want %d", rec.Code, status)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
					t.Errorf("Content-Type %q", ct)
				}
			}
		})
	}
}

// encodingJSON is what encoding/json writes for job in the success
// envelope: nothing at all when it refuses a value.
func encodingJSON(t *testing.T, job *quantum.Job) []byte {
	t.Helper()
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(struct {
		Success bool `json:"success"`
		Data    any  `json:"data"`
	}{true, job})
	return buf.Bytes()
}

// TestJobAnswersCoverEveryField fills every field of a job with a value
// that is not its zero, by reflection, so that a field added to
// quantum.Job and not to the hand-written encoder fails here.
func TestJobAnswersCoverEveryField(t *testing.T) {
	var job quantum.Job
	fill(t, reflect.ValueOf(&job).Elem(), 1)
	rec := httptest.NewRecorder()
	httpadapter.WriteJob(rec, http.StatusOK, &job)
	if got, want := rec.Body.Bytes(), encodingJSON(t, &job); !bytes.Equal(got, want) {
		t.Fatalf("body\n got %s\nwant %s", got, want)
	}
}

// fill sets v, and every field within it, to a value other than its zero.
func fill(t *testing.T, v reflect.Value, n int) {
	t.Helper()
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Date(2026, 11, 29, 10, 0, n, 0, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(n))
	case reflect.Float64:
		v.SetFloat(float64(n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), n)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(reflect.ValueOf(fmt.Sprintf("k%d", n)), reflect.ValueOf(n))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), n*10+i)
			}
		}
	default:
		t.Fatalf("a field of kind %s: teach fill (and the encoder) about it", v.Kind())
	}
}
