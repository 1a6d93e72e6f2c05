package storetest

import (
	"maps"
	"testing"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// testBatchJob stores a batch as the Service does: its programs as one
// Program of BatchFormat, its result one outcome per circuit. Both come
// back as they went in, and the job keeps its NumCircuits.
func testBatchJob(t *testing.T, s storage.Store) {
	j := newJob("alice", deviceA, 0)
	j.NumCircuits = 3
	batch := qtype.Program{Format: qtype.BatchFormat, Data: `[{"format":"qasm2","data":"a"},{"format":"qasm3","data":"b"},{"format":"qir.ll","data":"c"}]`}
	if err := s.CreateJob(ctx, j, batch); err != nil {
		t.Fatal(err)
	}
	if p, err := s.GetProgram(ctx, j.JobQRN); err != nil || *p != batch {
		t.Fatalf("GetProgram = %+v, %v", p, err)
	}
	queue(t, s, j, epoch)
	if _, err := s.ClaimJob(ctx, claimOf(deviceA, "alice")); err != nil {
		t.Fatal(err)
	}
	ended := epoch.Add(1500 * time.Millisecond)
	want := &qtype.Result{Circuits: []qtype.CircuitOutcome{
		{Counts: map[string]int{"0": 10}, Cost: 0.125, EndedAt: ended, ExecutionMs: 3},
		{Counts: map[string]int{}, Cost: 0, EndedAt: ended, ExecutionMs: 0},
		{Counts: map[string]int{"101": 4, "000": 6}, Cost: 2.000001, EndedAt: ended.Add(time.Millisecond), ExecutionMs: 1200},
	}}
	if _, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(r *storage.JobRecord) { r.Status = qtype.StatusCompleted }, want.Clone()); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, j.JobQRN); got.NumCircuits != 3 {
		t.Fatalf("NumCircuits = %d, want 3", got.NumCircuits)
	}
	got, err := s.GetResult(ctx, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	if got.Counts != nil || len(got.Circuits) != len(want.Circuits) {
		t.Fatalf("GetResult = %+v, want %d circuits", got, len(want.Circuits))
	}
	for i, w := range want.Circuits {
		g := got.Circuits[i]
		if !maps.Equal(g.Counts, w.Counts) || g.Counts == nil || g.Cost != w.Cost || !g.EndedAt.Equal(w.EndedAt) || g.ExecutionMs != w.ExecutionMs {
			t.Errorf("circuit %d = %+v, want %+v", i, g, w)
		}
	}
}
