package quantum_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/latency"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store"
)

// BenchmarkWaitLatency measures, job after job, the time from the store's
// commit of a job's end to the return of whoever waits for it: Wait, and
// a loop that polls GetJob every millisecond.
func BenchmarkWaitLatency(b *testing.B) {
	for _, tc := range []struct {
		name string
		wait func(svc *quantum.Service, u quantum.User, qrn string) (*quantum.Job, error)
	}{
		{"Wait", func(svc *quantum.Service, u quantum.User, qrn string) (*quantum.Job, error) {
			return svc.Wait(ctx, u, qrn)
		}},
		{"poll-1ms", func(svc *quantum.Service, u quantum.User, qrn string) (*quantum.Job, error) {
			// A random phase: polls in step with the job's fixed run time
			// would all land at the same point of the millisecond.
			time.Sleep(rand.N(time.Millisecond))
			for {
				j, err := svc.GetJob(ctx, u, qrn)
				if err != nil || j.Status.IsTerminal() {
					return j, err
				}
				time.Sleep(time.Millisecond)
			}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			clock := latency.NewCommitClock(store.NewMemory())
			svc, u := quantumtest.NewServiceOn(b, clock)
			device := quantumtest.Device("qbraid:qbraid:sim:fake")
			if err := svc.RegisterDevice(device, &quantumtest.FakeBackend{Delay: 3 * time.Millisecond}); err != nil {
				b.Fatal(err)
			}
			latency.Run(b, clock, func() string {
				j, err := svc.CreateJob(ctx, u, request(device.QRN, "qasm2", bell2, 10))
				if err != nil {
					b.Fatal(err)
				}
				return j.JobQRN
			}, func(qrn string) {
				if j, err := tc.wait(svc, u, qrn); err != nil || !j.Status.IsTerminal() {
					b.Fatalf("wait: %v", err)
				}
			})
		})
	}
}
