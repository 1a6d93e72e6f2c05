// Package faulttest checks that the stores whose methods hold a lock
// (memory and badger) survive a panic inside any of their critical
// sections: a change function of a caller's that panics, say.
package faulttest

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

var ctx = context.Background()

// Faultable is a store with a hook into its critical sections, set by
// its package's tests.
type Faultable interface {
	storage.Store
	SetFaultHookForTest(func(method string))
}

// every calls each method of the Store once, on a store that holds one
// QUEUED job of alice's.
func every(s storage.Store, qrn string) map[string]func() {
	epoch := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	claim := storage.Claim{Queue: storage.Queue{Device: "qbraid:qbraid:sim:qir-sv", Owner: "alice"}, MaxMemory: 0, Now: epoch, LeaseUntil: epoch}
	other := &storage.JobRecord{Job: qtype.Job{JobQRN: "qbraid:qbraid:sim:qir-sv-abcd-qjob-0000000000000000000000ff", DeviceQRN: "qbraid:qbraid:sim:qir-sv",
		Status: qtype.StatusCompleted, Vendor: "qbraid", Tags: map[string]any{}, RuntimeOptions: map[string]any{}, Metadata: map[string]any{}}, Owner: "alice"}
	return map[string]func(){
		"CreateJob":     func() { _ = s.CreateJob(ctx, other, qtype.Program{Format: "qasm3", Data: "x"}) },
		"GetJob":        func() { _, _ = s.GetJob(ctx, qrn) },
		"GetProgram":    func() { _, _ = s.GetProgram(ctx, qrn) },
		"GetResult":     func() { _, _ = s.GetResult(ctx, qrn) },
		"UpdateJob":     func() { _, _ = s.UpdateJob(ctx, qrn, qtype.StatusQueued, func(*storage.JobRecord) {}, nil) },
		"DeleteJob":     func() { _ = s.DeleteJob(ctx, other.JobQRN, qtype.StatusCompleted) },
		"ListJobs":      func() { _, _, _ = s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Limit: 10}) },
		"CountQueued":   func() { _, _ = s.CountQueued(ctx, claim.Device) },
		"CountJobs":     func() { _, _ = s.CountJobs(ctx, "alice", []qtype.JobStatus{qtype.StatusQueued}) },
		"QueuePosition": func() { _, _ = s.QueuePosition(ctx, qrn) },
		"Queues":        func() { _, _ = s.Queues(ctx) },
		"ClaimJob":      func() { _, _ = s.ClaimJob(ctx, claim) }, // too little memory: the job stays
		"Unfinished":    func() { _, _ = s.Unfinished(ctx, []qtype.JobStatus{qtype.StatusQueued}, time.Time{}, 10) },
	}
}

// PanicInEveryCriticalSection makes each method of a store (a new one
// from open for each method) panic inside its critical section, then
// checks that every method still answers: no lock outlives a panic.
func PanicInEveryCriticalSection(t *testing.T, open func(t *testing.T) Faultable) {
	t.Helper()
	for method := range every(nil, "") {
		t.Run(method, func(t *testing.T) {
			s := open(t)
			qrn := "qbraid:qbraid:sim:qir-sv-abcd-qjob-000000000000000000000001"
			j := &storage.JobRecord{Job: qtype.Job{JobQRN: qrn, DeviceQRN: "qbraid:qbraid:sim:qir-sv", Status: qtype.StatusQueued,
				Vendor: "qbraid", Tags: map[string]any{}, RuntimeOptions: map[string]any{}, Metadata: map[string]any{}}, Owner: "alice", MemoryNeed: 1}
			if err := s.CreateJob(ctx, j, qtype.Program{Format: "qasm3", Data: "x"}); err != nil {
				t.Fatal(err)
			}
			// The hook panics once, at the first critical section of
			// method; clearing it would take the lock under test.
			var armed atomic.Bool
			var hit atomic.Value
			s.SetFaultHookForTest(func(m string) {
				if armed.CompareAndSwap(true, false) {
					hit.Store(m)
					panic("fault injected in " + m)
				}
			})
			done := make(chan struct{})
			go func() {
				defer close(done)
				func() {
					defer func() { _ = recover() }()
					armed.Store(true)
					every(s, qrn)[method]()
				}()
				if hit.Load() == nil {
					t.Errorf("%s never reached the hook", method)
				}
				for _, call := range every(s, qrn) {
					call()
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("after a panic in %s (at %v) the store stopped answering", method, hit)
			}
			got, err := s.GetJob(ctx, qrn)
			if err != nil || got.Status != qtype.StatusQueued {
				t.Fatalf("after a panic in %s: %v, %v; want the job QUEUED", method, got, err)
			}
			if n, _ := s.CountQueued(ctx, j.DeviceQRN); n != 1 {
				t.Fatalf("after a panic in %s: %d queued, want 1", method, n)
			}
			if page, total, _ := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Offset: 0, Limit: math.MaxInt}); total != len(page) || total < 1 {
				t.Fatalf("after a panic in %s: list gives %d of %d", method, len(page), total)
			}
		})
	}
}
