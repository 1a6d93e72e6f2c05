package qtype

import (
	"bytes"
	"encoding/json"
	"maps"
	"time"
)

// Result is what a job's run produced, as a Store keeps it: the counts of
// a job of one program, or one outcome per circuit of a batch.
type Result struct {
	// Counts are the measurement counts of a job of one program.
	Counts map[string]int
	// Circuits are a batch's outcomes, one per circuit in order; nil for a
	// job of one program.
	Circuits []CircuitOutcome
	// Data is what a job of one program reported beside its counts
	// (RunResult.Data): the keys it adds to the result's resultData.
	Data map[string]any
}

// CircuitOutcome is how one circuit of a batch ended.
type CircuitOutcome struct {
	Counts map[string]int `json:"counts"`
	// Cost is the circuit's part of the batch's cost (without perTask).
	Cost    float64   `json:"cost"`
	EndedAt time.Time `json:"endedAt"`
	// ExecutionMs is how long the circuit ran, in milliseconds.
	ExecutionMs int64 `json:"executionMs"`
}

// CountsResult is the Result of a job of one program.
func CountsResult(counts map[string]int) *Result { return &Result{Counts: counts} }

// MarshalJSON writes the counts of a job of one program as a JSON object
// (what stores wrote before batches existed, so results stored then read
// back as they were), a batch's outcomes as an array, and counts with
// Data as {"counts": {…}, "data": {…}} (a counts object's values are
// numbers, so the two never read as each other).
func (r Result) MarshalJSON() ([]byte, error) {
	switch {
	case r.Circuits != nil:
		return json.Marshal(r.Circuits)
	case r.Data != nil:
		return json.Marshal(struct {
			Counts map[string]int `json:"counts"`
			Data   map[string]any `json:"data"`
		}{r.Counts, r.Data})
	}
	return json.Marshal(r.Counts)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Result) UnmarshalJSON(b []byte) error {
	*r = Result{}
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '{' {
		var parts map[string]json.RawMessage
		if err := json.Unmarshal(t, &parts); err != nil {
			return err
		}
		if d := bytes.TrimSpace(parts["data"]); len(d) > 0 && d[0] == '{' {
			if err := json.Unmarshal(parts["counts"], &r.Counts); err != nil {
				return err
			}
			return json.Unmarshal(d, &r.Data)
		}
	}
	if len(t) > 0 && t[0] == '[' {
		var cs []CircuitOutcome
		if err := json.Unmarshal(t, &cs); err != nil {
			return err
		}
		r.Circuits = cs
		if r.Circuits == nil {
			r.Circuits = []CircuitOutcome{}
		}
		return nil
	}
	return json.Unmarshal(b, &r.Counts)
}

// Clone returns a copy that shares no map or slice with r.
func (r *Result) Clone() *Result {
	if r == nil {
		return nil
	}
	c := &Result{Counts: maps.Clone(r.Counts)}
	if r.Data != nil {
		c.Data = CloneMap(r.Data)
	}
	if r.Circuits != nil {
		c.Circuits = make([]CircuitOutcome, len(r.Circuits))
		for i, o := range r.Circuits {
			o.Counts = maps.Clone(o.Counts)
			c.Circuits[i] = o
		}
	}
	return c
}
