package devices_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/devices"
	"github.com/qjobs/quantum/quantumtest"
)

// The cache keeps one program per key, shared by every job that asks,
// hands back the one kept first, and stays within its bounds: the least
// recently used go first, large programs are not kept.
func TestCompiledCache(t *testing.T) {
	c := devices.NewCompiledCacheForTest()
	c.Put("bell", 0, 10, 100)
	c.Put("bell", 0, 10, 101) // the same program compiled twice: the first stays
	c.Put("ghz", 0, 10, 200)
	for range 2 {
		if got := c.Get("bell", 0); got != 100 {
			t.Fatalf("Get(bell) = %d, want the first kept, 100", got)
		}
	}
	if got := c.Get("bell", 1); got != -1 {
		t.Fatalf("another text found %d", got)
	}
	if n, ops, _ := c.Size(); n != 2 || ops != 20 {
		t.Fatalf("size %d programs, %d ops; want 2, 20", n, ops)
	}

	c.Put("big", 0, devices.CacheMaxOps+1, 300)
	if got := c.Get("big", 0); got != -1 {
		t.Fatal("a program past CacheMaxOps was kept")
	}

	c.Get("ghz", 0) // used last: bell is now the least recently used
	for i := range devices.CacheEntries - 1 {
		c.Put(fmt.Sprint("p", i), 0, 1, i)
	}
	if n, _, _ := c.Size(); n != devices.CacheEntries {
		t.Fatalf("%d programs kept, want the bound %d", n, devices.CacheEntries)
	}
	if c.Get("bell", 0) != -1 || c.Get("ghz", 0) != 200 {
		t.Fatal("the least recently used program was not the one to go")
	}

	big := devices.NewCompiledCacheForTest()
	per := devices.CacheMaxOps
	for i := range devices.CacheOps/per + 5 {
		big.Put(fmt.Sprint(i), 0, per, i)
	}
	if _, ops, _ := big.Size(); ops > devices.CacheOps {
		t.Fatalf("%d operations kept, past the bound %d", ops, devices.CacheOps)
	}
	long := devices.NewCompiledCacheForTest()
	for i := range devices.CacheText/(200<<10) + 5 {
		long.Put(fmt.Sprint(i), 200<<10, 1, i)
	}
	if _, _, text := long.Size(); text > devices.CacheText {
		t.Fatalf("%d bytes of text kept, past the bound %d", text, devices.CacheText)
	}
}

// Jobs that send the same program share its compiled circuit: many run
// at once (the race detector watches), each with its own options, and
// each gets its own right answer.
func TestSharedCompiledProgram(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	const ghz = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[3];\ncreg c[3];\nh q[0];\ncx q[0],q[1];\ncx q[1],q[2];\nmeasure q -> c;\n"
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := map[string]any{"seed": i}
			if i%2 == 1 {
				opts["precision"] = "single"
			}
			if i%3 == 0 {
				opts["noiseModel"] = "bit_flip"
			}
			j, err := svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 200,
				Program: &quantum.Program{Format: "qasm2", Data: ghz}, RuntimeOptions: opts})
			if err != nil {
				t.Error(err)
				return
			}
			if j, err = svc.Wait(ctx, u, j.JobQRN); err != nil || j.Status != quantum.StatusCompleted {
				t.Errorf("job %d: %v %v", i, j, err)
				return
			}
			res, err := svc.GetJobResult(ctx, u, j.JobQRN)
			if err != nil {
				t.Error(err)
				return
			}
			total := 0
			for k, n := range res.ResultData.MeasurementCounts {
				total += n
				if i%3 != 0 && k != "000" && k != "111" {
					t.Errorf("job %d (ideal) measured %s", i, k)
				}
			}
			if total != 200 {
				t.Errorf("job %d: %d shots counted", i, total)
			}
			if want := map[bool]string{true: "single", false: "double"}[i%2 == 1]; j.Metadata["precision"] != want {
				t.Errorf("job %d ran in %v, want %s", i, j.Metadata["precision"], want)
			}
			if _, noisy := j.Metadata["noiseModel"]; noisy != (i%3 == 0) {
				t.Errorf("job %d: noise model %v", i, j.Metadata["noiseModel"])
			}
		}()
	}
	wg.Wait()
}
