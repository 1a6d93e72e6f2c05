// Package storebench holds the benchmarks that the memory and badger
// stores both run, so that their figures compare, and the jobs they fill
// a store with.
package storebench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

var ctx = context.Background()

// Bell is the program of the jobs: a Bell pair in OpenQASM 2.
const Bell = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"

// Job is job i of owner on device, in status, created (and, if QUEUED,
// queued) i milliseconds after the epoch.
func Job(owner, device, vendor string, status qtype.JobStatus, i int, tags map[string]any) *storage.JobRecord {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)
	j := &storage.JobRecord{Job: qtype.Job{JobQRN: fmt.Sprintf("%s-abcd-qjob-%024x", device, i), DeviceQRN: device, Name: fmt.Sprintf("job %d", i),
		Status: status, Vendor: vendor, Provider: vendor, Shots: 100, TimeStamps: qtype.TimeStamps{CreatedAt: at},
		Tags: tags, RuntimeOptions: map[string]any{}, Metadata: map[string]any{}}, Owner: owner, UpdatedAt: at}
	if status == qtype.StatusQueued {
		j.QueuedAt = at
	}
	return j
}

// Fill creates jobs 0..n-1 made by mk, from several goroutines.
func Fill(b *testing.B, st storage.Store, n int, mk func(i int) *storage.JobRecord) {
	b.Helper()
	workers := runtime.GOMAXPROCS(0) * 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := st.CreateJob(ctx, mk(i), qtype.Program{Format: "qasm2", Data: Bell}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
