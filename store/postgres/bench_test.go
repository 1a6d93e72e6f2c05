package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store/postgres"
)

// BenchmarkNodes measures jobs created and run to COMPLETED per second
// with one, two and three nodes (Services, each with its own pool) on one
// database: small real simulations on the built-in device, submitted
// across the nodes by 16 clients.
func BenchmarkNodes(b *testing.B) {
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			dsn := pgtest.DSN(b)
			var nodes []*quantum.Service
			var user quantum.User
			for i := range n {
				st, err := postgres.Open(context.Background(), dsn)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(st.Close)
				svc, u := quantumtest.NewServiceOn(b, st, quantum.WithNode(fmt.Sprintf("node-%d", i+1)),
					quantum.WithWorkers(2), quantum.WithMaxActiveJobsPerUser(1_000_000))
				nodes, user = append(nodes, svc), u
			}
			req := quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 100,
				Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0; include \"qelib1.inc\"; qreg q[2]; creg c[2]; h q[0]; cx q[0],q[1]; measure q -> c;"}}
			ctx := context.Background()
			b.ResetTimer()
			start := time.Now()
			qrns := make(chan string, b.N)
			var wg sync.WaitGroup
			var next sync.Mutex
			left := b.N
			for c := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						next.Lock()
						if left == 0 {
							next.Unlock()
							return
						}
						left--
						next.Unlock()
						svc := nodes[(c+i)%len(nodes)]
						j, err := svc.CreateJob(ctx, user, req)
						if err != nil {
							b.Error(err)
							return
						}
						qrns <- j.JobQRN
					}
				}()
			}
			wg.Wait()
			close(qrns)
			for qrn := range qrns {
				for {
					j, err := nodes[0].GetJob(ctx, user, qrn)
					if err != nil {
						b.Fatal(err)
					}
					if j.Status.IsTerminal() {
						if j.Status != quantum.StatusCompleted {
							b.Fatalf("job ended %s", j.Status)
						}
						break
					}
					time.Sleep(2 * time.Millisecond)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
		})
	}
}
