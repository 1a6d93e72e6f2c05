package quantumtest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// ErrInjected is the error a FaultyStore returns unless a Fault names
// another.
var ErrInjected = errors.New("quantumtest: injected store fault")

// FaultyStore wraps a Store and makes chosen calls fail or slow down, for
// tests of how code on a Store behaves when the store misbehaves. Add
// faults with Inject; calls that no fault picks pass through unchanged.
// It is safe for concurrent use.
type FaultyStore struct {
	storage.Store

	mu     sync.Mutex
	faults []*Fault
	calls  map[string]int
}

// Fault picks store calls and says what happens to them.
type Fault struct {
	// Method is the Store method the fault applies to ("UpdateJob",
	// "ClaimJob", ...), or "" for every method.
	Method string
	// When, if not nil, narrows the calls further.
	When func(Call) bool
	// First makes only the first First calls picked fail; 0 makes every
	// one fail, and -1 none (for a Delay alone).
	First int
	// Err is what a picked call returns (default ErrInjected).
	Err error
	// Delay is how long a picked call waits before it runs or fails;
	// the call's context ends the wait early, with its error.
	Delay time.Duration

	picked int
}

// Call describes a store call, for Fault.When.
type Call struct {
	Method string
	JobQRN string // "" for calls about no single job
	// For UpdateJob: the status expected, the status the change would
	// set, and whether a result comes with it.
	Expect, To quantum.JobStatus
	Result     bool
}

// NewFaultyStore wraps st.
func NewFaultyStore(st storage.Store) *FaultyStore {
	return &FaultyStore{Store: st, calls: map[string]int{}}
}

// Inject adds a fault.
func (f *FaultyStore) Inject(fault *Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, fault)
}

// Remove takes a fault out: calls pass through again.
func (f *FaultyStore) Remove(fault *Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = slices.DeleteFunc(f.faults, func(x *Fault) bool { return x == fault })
}

// Calls reports how many calls of method were made, failed or not.
func (f *FaultyStore) Calls(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

// Failed reports how many calls a fault has made fail.
func (f *FaultyStore) Failed(fault *Fault) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault.First < 0 {
		return 0
	}
	return fault.picked
}

// enter applies the faults that pick c: it waits their delays and returns
// the error of the first that fails it.
func (f *FaultyStore) enter(ctx context.Context, c Call) error {
	delay, err := f.pick(c)
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}

func (f *FaultyStore) pick(c Call) (time.Duration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[c.Method]++
	var delay time.Duration
	var err error
	for _, ft := range f.faults {
		if ft.Method != "" && ft.Method != c.Method || ft.When != nil && !ft.When(c) {
			continue
		}
		delay += ft.Delay
		if err == nil && ft.First >= 0 && (ft.First == 0 || ft.picked < ft.First) {
			ft.picked++
			err = ft.Err
			if err == nil {
				err = ErrInjected
			}
		}
	}
	return delay, err
}

func (f *FaultyStore) CreateJob(ctx context.Context, job *storage.JobRecord, program quantum.Program) error {
	if err := f.enter(ctx, Call{Method: "CreateJob", JobQRN: job.JobQRN}); err != nil {
		return err
	}
	return f.Store.CreateJob(ctx, job, program)
}

func (f *FaultyStore) GetJob(ctx context.Context, qrn string) (*storage.JobRecord, error) {
	if err := f.enter(ctx, Call{Method: "GetJob", JobQRN: qrn}); err != nil {
		return nil, err
	}
	return f.Store.GetJob(ctx, qrn)
}

func (f *FaultyStore) JobByIdempotencyKey(ctx context.Context, owner, key string, since time.Time) (*storage.JobRecord, error) {
	if err := f.enter(ctx, Call{Method: "JobByIdempotencyKey"}); err != nil {
		return nil, err
	}
	return f.Store.JobByIdempotencyKey(ctx, owner, key, since)
}

func (f *FaultyStore) GetProgram(ctx context.Context, qrn string) (*quantum.Program, error) {
	if err := f.enter(ctx, Call{Method: "GetProgram", JobQRN: qrn}); err != nil {
		return nil, err
	}
	return f.Store.GetProgram(ctx, qrn)
}

func (f *FaultyStore) GetResult(ctx context.Context, qrn string) (*qtype.Result, error) {
	if err := f.enter(ctx, Call{Method: "GetResult", JobQRN: qrn}); err != nil {
		return nil, err
	}
	return f.Store.GetResult(ctx, qrn)
}

// UpdateJob works out the status the change would set on a copy of the
// job, so that a fault can pick, say, only the moves to COMPLETED.
func (f *FaultyStore) UpdateJob(ctx context.Context, qrn string, expect quantum.JobStatus, change func(*storage.JobRecord), result *qtype.Result) (*storage.JobRecord, error) {
	c := Call{Method: "UpdateJob", JobQRN: qrn, Expect: expect, Result: result != nil}
	if j, err := f.Store.GetJob(ctx, qrn); err == nil && j.Status == expect {
		trial := *j // the store's record is read-only; change replaces maps, never writes in them
		change(&trial)
		c.To = trial.Status
	}
	if err := f.enter(ctx, c); err != nil {
		return nil, err
	}
	return f.Store.UpdateJob(ctx, qrn, expect, change, result)
}

func (f *FaultyStore) DeleteJob(ctx context.Context, qrn string, expect quantum.JobStatus) error {
	if err := f.enter(ctx, Call{Method: "DeleteJob", JobQRN: qrn, Expect: expect}); err != nil {
		return err
	}
	return f.Store.DeleteJob(ctx, qrn, expect)
}

func (f *FaultyStore) ListJobs(ctx context.Context, fl storage.JobFilter) ([]*storage.JobRecord, int, error) {
	if err := f.enter(ctx, Call{Method: "ListJobs"}); err != nil {
		return nil, 0, err
	}
	return f.Store.ListJobs(ctx, fl)
}

func (f *FaultyStore) CountQueued(ctx context.Context, device string) (int, error) {
	if err := f.enter(ctx, Call{Method: "CountQueued"}); err != nil {
		return 0, err
	}
	return f.Store.CountQueued(ctx, device)
}

func (f *FaultyStore) CountJobs(ctx context.Context, owner string, statuses []quantum.JobStatus) (int, error) {
	if err := f.enter(ctx, Call{Method: "CountJobs"}); err != nil {
		return 0, err
	}
	return f.Store.CountJobs(ctx, owner, statuses)
}

func (f *FaultyStore) QueuePosition(ctx context.Context, qrn string) (int, error) {
	if err := f.enter(ctx, Call{Method: "QueuePosition", JobQRN: qrn}); err != nil {
		return 0, err
	}
	return f.Store.QueuePosition(ctx, qrn)
}

func (f *FaultyStore) Queues(ctx context.Context) ([]storage.Queue, error) {
	if err := f.enter(ctx, Call{Method: "Queues"}); err != nil {
		return nil, err
	}
	return f.Store.Queues(ctx)
}

func (f *FaultyStore) ClaimJob(ctx context.Context, c storage.Claim) (*storage.JobRecord, error) {
	if err := f.enter(ctx, Call{Method: "ClaimJob"}); err != nil {
		return nil, err
	}
	return f.Store.ClaimJob(ctx, c)
}

func (f *FaultyStore) Unfinished(ctx context.Context, statuses []quantum.JobStatus, before time.Time, limit int) ([]*storage.JobRecord, error) {
	if err := f.enter(ctx, Call{Method: "Unfinished"}); err != nil {
		return nil, err
	}
	return f.Store.Unfinished(ctx, statuses, before, limit)
}
