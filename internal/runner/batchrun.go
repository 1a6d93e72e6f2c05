package runner

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/sim"
)

// maxBatchResultBytes bounds the outcome keys of all a batch's circuits
// together, as one job's are bounded (sim.DefaultMaxResultBytes): a batch
// is one result to store and to answer. A variable for tests only.
var maxBatchResultBytes int64 = sim.DefaultMaxResultBytes

// SetMaxBatchResultBytes sets the bound on a batch's outcome keys, for
// tests, and returns the function that restores it.
func SetMaxBatchResultBytes(n int64) (restore func()) {
	old := maxBatchResultBytes
	maxBatchResultBytes = n
	return func() { maxBatchResultBytes = old }
}

// runBatch runs a batch's circuits under the job's one context (a cancel
// or the job's timeout stops whichever circuits are running), its one
// work bound and its one result size bound. Circuits run one after
// another, or several at once when CPUs and memory allow: the job holds
// what its largest circuit needs, and a circuit more runs alongside for
// each such share of the budget that is free when the batch starts (taken
// without waiting, given back at its end). Circuit i runs with the batch's
// seed + i, so that equal circuits give independent samples and the batch
// repeats with its seed. The first circuit that fails fails the batch,
// naming its index.
func (r *Runner) runBatch(ctx context.Context, b qtype.Backend, t qtype.Task, progs []qtype.Program, need int64) (*ran, error) {
	seed := *qtype.SeedOrFresh(t.Seed) // as a single job's
	lanes := min(runtime.GOMAXPROCS(0), len(progs))
	if lanes > 1 && need > 0 {
		extra := r.holdUpTo(t.JobQRN, int64(lanes-1)*need)
		defer r.unholdSome(t.JobQRN, extra)
		lanes = 1 + int(extra/need)
	}
	br := &batchRun{r: r, b: b, t: t, progs: progs, seed: seed, lanes: lanes, stops: map[int]context.CancelFunc{},
		workLeft: r.s.maxWork, outcomes: make([]qtype.CircuitOutcome, len(progs)), metas: make([]map[string]any, len(progs)), failed: -1}
	var wg sync.WaitGroup
	for range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			br.lane(ctx)
		}()
	}
	wg.Wait()
	if br.err != nil {
		return nil, br.err
	}
	md := sharedMetadata(br.metas)
	md["seed"] = seed
	return &ran{result: &qtype.Result{Circuits: br.outcomes}, metadata: md}, nil
}

// batchRun is a batch in progress: what its lanes share.
type batchRun struct {
	r     *Runner
	b     qtype.Backend
	t     qtype.Task
	progs []qtype.Program
	seed  uint64
	lanes int

	mu       sync.Mutex
	stops    map[int]context.CancelFunc // of the circuits running, by index
	next     int                        // the next circuit to start
	running  int                        // circuits running now
	workLeft int64                      // of the job's bound
	keyBytes int64                      // outcome keys of the circuits done
	outcomes []qtype.CircuitOutcome
	metas    []map[string]any
	failed   int // the lowest circuit that failed, or -1
	err      error
}

// lane runs circuits until none is left or the batch has failed.
func (br *batchRun) lane(ctx context.Context) {
	for {
		i, maxWork, cctx, ok := br.take(ctx)
		if !ok {
			return
		}
		ct := br.t
		s := br.seed + uint64(i)
		ct.Program, ct.Circuit, ct.MaxWork, ct.Seed = br.progs[i], i, maxWork, &s
		start := time.Now()
		res, err := br.r.runCircuit(cctx, br.b, ct)
		elapsed := time.Since(start)
		if err == nil {
			err = checkCounts(res, br.t.Shots)
		}
		br.done(ctx, cctx, i, res, elapsed, err)
	}
}

// take hands out the next circuit, the context it runs under, and its
// share of the work left: split between the circuits that may run at
// once, so that together they never pass the job's bound.
func (br *batchRun) take(ctx context.Context) (int, int64, context.Context, bool) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.err != nil || br.next == len(br.progs) {
		return 0, 0, nil, false
	}
	i := br.next
	if br.workLeft <= 0 {
		br.fail(i, fmt.Errorf("work limit exceeded: the circuits before it used the job's bound of %d units (WithMaxWork, the server's -max-work)", br.r.s.maxWork))
		return 0, 0, nil, false
	}
	br.next++
	br.running++
	cctx, stop := context.WithCancel(ctx)
	br.stops[i] = stop
	share := br.workLeft / int64(min(br.lanes, len(br.progs)-i))
	return i, max(share, 1), cctx, true
}

// done records how circuit i ended: ctx is the job's, cctx the
// circuit's own.
func (br *batchRun) done(ctx, cctx context.Context, i int, res *qtype.RunResult, elapsed time.Duration, err error) {
	br.mu.Lock()
	defer br.mu.Unlock()
	br.running--
	stopped := cctx.Err() != nil
	br.stops[i]()
	delete(br.stops, i)
	switch {
	case err != nil && ctx.Err() != nil:
		if br.err == nil {
			br.err = err // a cancel, a shutdown or the timeout: the caller tells them apart
		}
		return
	case err != nil && stopped:
		return // stopped because a circuit before it failed
	case err != nil:
		br.fail(i, err)
		return
	}
	br.workLeft -= max(res.Work, 0)
	for k := range res.Counts {
		br.keyBytes += int64(len(k))
	}
	if br.keyBytes > maxBatchResultBytes {
		br.fail(i, fmt.Errorf("result too large: the distinct outcomes of the circuits run so far pass %d bytes, the bound of one job's result", maxBatchResultBytes))
		return
	}
	d := br.t.Device
	br.outcomes[i] = qtype.CircuitOutcome{Counts: res.Counts, Cost: d.CircuitCost(br.t.Shots, elapsed), EndedAt: br.r.s.now().UTC(), ExecutionMs: elapsed.Milliseconds()}
	br.metas[i] = res.Metadata
}

// fail ends the batch for circuit i's err, unless a circuit before it
// failed too, and stops the circuits after it. The circuits before it
// run on: one of them may fail as well, and the lowest index that fails
// is named, as it would be were they run one after another.
func (br *batchRun) fail(i int, err error) {
	if br.failed >= 0 && br.failed < i {
		return
	}
	if br.err != nil && br.failed < 0 {
		return // already stopping for the job's own context
	}
	br.failed, br.err = i, circuitFailed(i, len(br.progs), err)
	for j, stop := range br.stops {
		if j > i {
			stop()
		}
	}
}

// circuitFailed is the failure of a batch whose circuit i failed with err:
// the batch's statusMsg names the circuit, and its failure keeps err's
// reason for the metrics.
func circuitFailed(i, n int, err error) error {
	return failed(failReason(err), fmt.Errorf("circuit %d of %d (program[%d]) failed: %s", i, n, i, failMessage(err)))
}

// sharedMetadata is a batch's metadata: what every circuit's run reported
// alike (the precision, the execution path when they all took it), so
// that nothing shown for the batch is true of one circuit only.
func sharedMetadata(each []map[string]any) map[string]any {
	if len(each) == 0 {
		return map[string]any{}
	}
	out := qtype.CloneMap(each[0])
	for _, m := range each[1:] {
		for k, v := range out {
			if w, ok := m[k]; !ok || !reflect.DeepEqual(v, w) {
				delete(out, k)
			}
		}
	}
	return out
}
