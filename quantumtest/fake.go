package quantumtest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// FakeBackend is a test double for quantum.Backend: it runs nothing, and
// does what it is configured to do. The zero value completes every job at
// once with all shots on "0".
//
// Register it with a device of your own:
//
//	fake := &quantumtest.FakeBackend{Delay: time.Second}
//	svc.RegisterDevice(quantumtest.Device("qbraid:qbraid:sim:slow"), fake)
type FakeBackend struct {
	// Counts are the measurement counts of every job (every circuit of a
	// batch), scaled to its shots
	// by giving the remainder to the first key in sorted order. Nil means
	// every shot on "0".
	Counts map[string]int
	// Data, when not nil, is reported beside the counts (RunResult.Data):
	// keys of the result's resultData. With NoCounts the run reports no
	// counts at all, as an annealer does.
	Data     map[string]any
	NoCounts bool
	// Fail, when not empty, fails every job with this message.
	Fail string
	// CheckError, when not nil, refuses every job at create.
	CheckError error
	// Delay makes every job take this long (cancellation ends it early).
	Delay time.Duration
	// Block makes every job run until it is cancelled.
	Block bool
	// NotCancellable makes cancel answer CANCEL_NOT_SUPPORTED.
	NotCancellable bool
	// Memory is what Check reports that every job needs, in bytes: the
	// Service reserves it from its memory budget while the job runs.
	Memory int64

	mu      sync.Mutex
	started chan string
	runs    int
}

// Started returns a channel that receives the QRN of every job the backend
// starts (a batch's once per circuit), so a test can wait for a job to be
// running without polling. Call it before the jobs are created.
func (f *FakeBackend) Started() <-chan string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.started == nil {
		f.started = make(chan string, 1024)
	}
	return f.started
}

// Runs reports how many runs the backend has started: one per job, and
// one per circuit of a batch.
func (f *FakeBackend) Runs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs
}

func (f *FakeBackend) Check(ctx context.Context, t quantum.Task) (quantum.Resources, error) {
	return quantum.Resources{Memory: f.Memory}, f.CheckError
}

func (f *FakeBackend) Cancellable() bool { return !f.NotCancellable }

func (f *FakeBackend) Run(ctx context.Context, t quantum.Task) (*quantum.RunResult, error) {
	if started := f.countRun(); started != nil {
		select {
		case started <- t.JobQRN:
		default:
		}
	}
	if f.Block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.Delay > 0 {
		timer := time.NewTimer(f.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.Fail != "" {
		return nil, errors.New(f.Fail)
	}
	res := &quantum.RunResult{Counts: scale(f.Counts, t.Shots), Data: qtype.CloneMap(f.Data), Metadata: map[string]any{"backend": "quantumtest.FakeBackend"}}
	if f.Data == nil {
		res.Data = nil
	}
	if f.NoCounts {
		res.Counts = nil
	}
	return res, nil
}

// scale spreads shots over counts' keys in proportion to their counts.
func scale(counts map[string]int, shots int) map[string]int {
	if len(counts) == 0 {
		return map[string]int{"0": shots}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	out := map[string]int{}
	given := 0
	keys := sortedKeys(counts)
	for _, k := range keys {
		n := 0
		if total > 0 {
			n = counts[k] * shots / total
		}
		out[k] = n
		given += n
	}
	out[keys[0]] += shots - given
	return out
}

func sortedKeys(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }

// Device returns an ONLINE simulator device with the given QRN
// (vendor:provider:sim:name), free, accepting qasm2 and qasm3, for
// registering a FakeBackend.
func Device(qrn string) quantum.Device {
	vendor, provider := "qbraid", "qbraid"
	if parts := splitQRN(qrn); len(parts) == 4 {
		vendor, provider = parts[0], parts[1]
	}
	return quantum.Device{
		Name:          "Fake " + qrn,
		QRN:           qrn,
		Vendor:        vendor,
		Provider:      provider,
		DeviceType:    quantum.DeviceSimulator,
		RunInputTypes: []string{"qasm2", "qasm3"},
		Status:        quantum.DeviceOnline,
		NumberQubits:  32,
		DirectAccess:  true,
		// The Service runs a batch circuit by circuit, so every backend
		// takes batches; a test of a device without them sets it false.
		BatchJobSupport: true,
		Description:     "a quantumtest.FakeBackend device",
	}
}

func splitQRN(qrn string) []string { return strings.Split(qrn, ":") }

// countRun counts a run, and returns the channel Started made, if any.
func (f *FakeBackend) countRun() chan string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs++
	return f.started
}
