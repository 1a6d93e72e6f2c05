package analog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/analog"
	"github.com/qjobs/quantum/quantumtest"
)

// lattice16 is 16 atoms 6.7 µm apart under a 4 µs sweep: the full space
// of 65,536 configurations, seconds of work.
func lattice16(t *testing.T) string {
	var sites [][2]string
	var filling []int
	for i := range 16 {
		sites = append(sites, [2]string{dec(float64(i%4) * 6.7e-6), dec(float64(i/4) * 6.7e-6)})
		filling = append(filling, 1)
	}
	times := func() []string { return []string{"0", "2.5E-7", "3.75E-6", "4E-6"} }
	return text(t, ahsProgram(sites, filling, series(times(), "0", "1.5E7", "1.5E7", "0"),
		series(times(), "0", "0", "0", "0"), series(times(), "-8E7", "-8E7", "7E7", "7E7")))
}

// A running analog job stops when cancelled, between the simulator's
// passes.
func TestCancelAnalogJob(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	job, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{Program: &quantum.Program{Format: "analog", Data: lattice16(t)},
		Shots: 10, DeviceQRN: analog.AquilaQRN})
	if err != nil {
		t.Fatal(err)
	}
	quantumtest.WaitForStatus(t, svc, u, job.JobQRN, quantumtest.DefaultWait, quantum.StatusRunning)
	if _, err := svc.CancelJob(context.Background(), u, job.JobQRN); err != nil {
		t.Fatal(err)
	}
	if end := quantumtest.WaitForJob(t, svc, u, job.JobQRN); end.Status != quantum.StatusCancelled || end.Cost != 0 {
		t.Errorf("%s, cost %v; want CANCELLED, 0", end.Status, end.Cost)
	}
}

// The service's work bound holds for analog jobs: past it the job fails
// naming the bound.
func TestAnalogWorkBound(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMaxWork(50_000_000))
	job := run(t, svc, u, quantum.JobRequest{Program: &quantum.Program{Format: "analog", Data: lattice16(t)},
		Shots: 10, DeviceQRN: analog.AquilaQRN})
	if job.Status != quantum.StatusFailed || !strings.Contains(quantumtest.StatusMsg(job), "work limit exceeded") {
		t.Errorf("%s: %q, want FAILED past the work bound", job.Status, quantumtest.StatusMsg(job))
	}
}
