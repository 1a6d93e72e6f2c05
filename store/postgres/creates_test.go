package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// TestCreatesOfEverySize: creates made at once, small ones batched and a
// large one beside them, all store their jobs and programs whole.
func TestCreatesOfEverySize(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, pgtest.DSN(t))
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	programs := map[string]string{}
	var wg sync.WaitGroup
	for i := range 24 {
		qrn := fmt.Sprintf("dev-abcd-qjob-%d", i)
		data := fmt.Sprintf("OPENQASM 2.0; // %d", i)
		if i%8 == 3 {
			data += strings.Repeat("x", 300<<10) // past what a batch takes
		}
		programs[qrn] = data
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := &storage.JobRecord{Job: quantum.Job{JobQRN: qrn, DeviceQRN: "dev", Status: quantum.StatusInitializing,
				TimeStamps: qtype.TimeStamps{CreatedAt: at}}, Owner: "alice", UpdatedAt: at}
			if err := s.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: data}); err != nil {
				t.Errorf("create %s: %v", qrn, err)
			}
		}()
	}
	wg.Wait()
	for qrn, data := range programs {
		p, err := s.GetProgram(ctx, qrn)
		if err != nil {
			t.Errorf("%s's program: %v", qrn, err)
		} else if p.Data != data {
			t.Errorf("%s's program: %d bytes, want %d", qrn, len(p.Data), len(data))
		}
	}
}
