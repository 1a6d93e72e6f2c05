package quantum_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store"
)

// BenchmarkNoisyGHZ is the cost of noise on an emulated QPU: a 16-qubit
// GHZ state (h, then a chain of 15 cx), 1,000 shots, on Aria-1 (every
// pair coupled) through the in-process API, with the device's own model
// (its default: a channel after each of the 16 gates, a readout error on
// each of the 16 bits, as quantum trajectories) and with "ideal".
func BenchmarkNoisyGHZ(b *testing.B) {
	var src strings.Builder
	src.WriteString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[16];\ncreg c[16];\nh q[0];\n")
	for i := range 15 {
		fmt.Fprintf(&src, "cx q[%d],q[%d];\n", i, i+1)
	}
	src.WriteString("measure q -> c;\n")
	for _, model := range []string{"ideal", "Aria-1"} {
		b.Run(model, func(b *testing.B) {
			ctx := context.Background()
			svc, err := quantum.New(store.NewMemory())
			if err != nil {
				b.Fatal(err)
			}
			defer svc.Close(ctx)
			u, _ := svc.AddAPIKey("bench", "bench")
			req := quantum.JobRequest{DeviceQRN: "aws:ionq:qpu:aria-1", Shots: 1000,
				Program:        &quantum.Program{Format: "qasm2", Data: src.String()},
				RuntimeOptions: map[string]any{"noiseModel": model, "seed": 1}}
			b.ResetTimer()
			for range b.N {
				job, err := svc.CreateJob(ctx, u, req)
				if err != nil {
					b.Fatal(err)
				}
				wctx, cancel := context.WithTimeout(ctx, time.Minute)
				job, err = svc.Wait(wctx, u, job.JobQRN)
				cancel()
				if err != nil || job.Status != quantum.StatusCompleted {
					b.Fatalf("%v %v", err, job.Status)
				}
			}
		})
	}
}
