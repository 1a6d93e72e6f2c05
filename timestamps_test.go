package quantum_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/qjobs/quantum/qtype"
)

// A job's times are written in the wire form (UTC, milliseconds, endedAt
// null until the end) as encoding/json writes the same fields, and read
// back to the same instants.
func TestTimeStampsJSON(t *testing.T) {
	ended := time.Date(2026, 11, 27, 4, 5, 6, 789_999_999, time.FixedZone("X", 3600))
	for _, ts := range []qtype.TimeStamps{
		{CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)},
		{CreatedAt: time.Date(1999, 12, 31, 23, 59, 59, 999_999_999, time.Local), EndedAt: &ended, ExecutionDuration: 1234567},
		{CreatedAt: time.Time{}, ExecutionDuration: -1},
	} {
		var endedAt *string
		if ts.EndedAt != nil {
			s := ts.EndedAt.UTC().Format(qtype.TimestampLayout)
			endedAt = &s
		}
		want, err := json.Marshal(struct {
			CreatedAt         string  `json:"createdAt"`
			EndedAt           *string `json:"endedAt"`
			ExecutionDuration int64   `json:"executionDuration"`
		}{ts.CreatedAt.UTC().Format(qtype.TimestampLayout), endedAt, ts.ExecutionDuration})
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(ts)
		if err != nil || string(got) != string(want) {
			t.Fatalf("MarshalJSON = %s, %v; want %s", got, err, want)
		}
		var back qtype.TimeStamps
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if !back.CreatedAt.Equal(ts.CreatedAt.Truncate(time.Millisecond)) || back.ExecutionDuration != ts.ExecutionDuration ||
			(back.EndedAt == nil) != (ts.EndedAt == nil) || back.EndedAt != nil && !back.EndedAt.Equal(ts.EndedAt.Truncate(time.Millisecond)) {
			t.Fatalf("read back %+v from %s, want %+v", back, got, ts)
		}
	}
}
