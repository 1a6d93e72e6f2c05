// Package storetest is the conformance suite for storage.Store: every Store
// implementation runs it, unchanged, in its own tests.
//
//	func TestMemory(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storage.Store { return store.NewMemory() })
//	}
package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// Run runs every conformance test against stores made by newStore, one
// fresh store per test. newStore should register any cleanup with t. The
// stores must be storage.CreditLedgers too, as every Store of this module
// is.
func Run(t *testing.T, newStore func(t *testing.T) storage.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, storage.Store)
	}{
		{"CreateAndGet", testCreateAndGet},
		{"CopiesAreIsolated", testCopiesAreIsolated},
		{"UpdateIsCompareAndSet", testUpdateIsCompareAndSet},
		{"TerminalNeverChanges", testTerminalNeverChanges},
		{"ResultWithCompletion", testResultWithCompletion},
		{"BatchJob", testBatchJob},
		{"Delete", testDelete},
		{"ListOrderAndPaging", testListOrderAndPaging},
		{"ListFilters", testListFilters},
		{"Queue", testQueue},
		{"ConcurrentClaims", testConcurrentClaims},
		{"RacingUpdates", testRacingUpdates},
		{"Unfinished", testUnfinished},
		{"QueuesPerOwner", testQueuesPerOwner},
		{"ClaimWithinMemory", testClaimWithinMemory},
		{"ClaimsNeverGoBack", testClaimsNeverGoBack},
		{"BatchClaims", testBatchClaims},
		{"BatchClaimsFollowThePlan", testBatchClaimsFollowThePlan},
		{"BatchClaimsWithinMemory", testBatchClaimsWithinMemory},
		{"ConcurrentBatchClaims", testConcurrentBatchClaims},
		{"UpdateKeepsQueuePlace", testUpdateKeepsQueuePlace},
		{"CountJobs", testCountJobs},
		{"PagingExtremes", testPagingExtremes},
		{"PanicInChange", testPanicInChange},
		{"QueuedUpdatesKeepPlace", testQueuedUpdatesKeepPlace},
		{"CancelRacesClaim", testCancelRacesClaim},
		{"DeleteRacesClaim", testDeleteRacesClaim},
		{"Attempts", testAttempts},
		{"IdentityIsFixed", testIdentityIsFixed},
		{"DeepCopies", testDeepCopies},
		{"ResultTooLarge", testResultTooLarge},
		{"ListFilterPages", testListFilterPages},
		{"Exclusive", testExclusive},
		{"IdempotencyKeys", testIdempotencyKeys},
		{"ConcurrentKeyedCreates", testConcurrentKeyedCreates},
		{"IdempotencyWindowEdge", testIdempotencyWindowEdge},
		{"CreditGrants", testCreditGrants},
		{"CreditReservations", testCreditReservations},
		{"CreditSettlements", testCreditSettlements},
		{"CreditSettledOnce", testCreditSettledOnce},
		{"CreditConcurrentReservations", testCreditConcurrentReservations},
		{"Controls", testControls},
		{"BoundedCreates", testBoundedCreates},
		{"BatchCreates", testBatchCreates},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

var (
	ctx   = context.Background()
	epoch = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	seq   atomic.Int64
)

const deviceA, deviceB = "qbraid:qbraid:sim:qir-sv", "aws:aws:sim:sv1"

// newJob returns an INITIALIZING job of owner on device, created at
// epoch + minute minutes, with a fresh QRN.
func newJob(owner, device string, minute int) *storage.JobRecord {
	n := seq.Add(1)
	created := epoch.Add(time.Duration(minute) * time.Minute)
	vendor := "qbraid"
	if device == deviceB {
		vendor = "aws"
	}
	return &storage.JobRecord{Job: qtype.Job{
		Name:           fmt.Sprintf("job %d", n),
		Shots:          100,
		DeviceQRN:      device,
		Tags:           map[string]any{},
		RuntimeOptions: map[string]any{},
		JobQRN:         fmt.Sprintf("%s-abcd-qjob-%024x", device, n),
		Vendor:         vendor,
		Provider:       vendor,
		Status:         qtype.StatusInitializing,
		ExperimentType: "gate_model",
		TimeStamps:     qtype.TimeStamps{CreatedAt: created},
		Metadata:       map[string]any{},
	}, Owner: owner, UpdatedAt: created}
}

var program = qtype.Program{Format: "qasm3", Data: "OPENQASM 3; qubit q; h q;"}

// claimOf is a claim of owner's oldest job on device, with memory to
// spare, at epoch, leased for an hour, by node claimNode.
func claimOf(device, owner string) storage.Claim {
	return storage.Claim{Queue: storage.Queue{Device: device, Owner: owner}, MaxMemory: math.MaxInt64, Now: epoch, LeaseUntil: epoch.Add(time.Hour), Node: claimNode}
}

const claimNode = "node-1"

func create(t *testing.T, s storage.Store, j *storage.JobRecord) *storage.JobRecord {
	t.Helper()
	if err := s.CreateJob(ctx, j, program); err != nil {
		t.Fatalf("CreateJob(%s): %v", j.JobQRN, err)
	}
	return j
}

// move changes a job's status with a compare-and-set that must succeed.
func move(t *testing.T, s storage.Store, qrn string, from, to qtype.JobStatus, at time.Time) *storage.JobRecord {
	t.Helper()
	j, err := s.UpdateJob(ctx, qrn, from, func(j *storage.JobRecord) {
		j.Status, j.UpdatedAt = to, at
		if to == qtype.StatusQueued {
			j.QueuedAt = at
		}
	}, nil)
	if err != nil {
		t.Fatalf("UpdateJob(%s, %s → %s): %v", qrn, from, to, err)
	}
	return j
}

func queue(t *testing.T, s storage.Store, j *storage.JobRecord, at time.Time) {
	t.Helper()
	move(t, s, j.JobQRN, qtype.StatusInitializing, qtype.StatusValidating, at)
	move(t, s, j.JobQRN, qtype.StatusValidating, qtype.StatusQueued, at)
}

func testCreateAndGet(t *testing.T, s storage.Store) {
	j := newJob("alice", deviceA, 0)
	j.Tags = map[string]any{"team": "a", "n": int64(3), "ok": true}
	j.RuntimeOptions = map[string]any{"seed": int64(7)}
	create(t, s, j)
	got, err := s.GetJob(ctx, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(j) {
		t.Fatalf("GetJob = %+v\nwant     %+v", got, j)
	}
	if !got.TimeStamps.CreatedAt.Equal(j.TimeStamps.CreatedAt) || got.Owner != "alice" {
		t.Fatalf("times or owner lost: %+v", got)
	}
	p, err := s.GetProgram(ctx, j.JobQRN)
	if err != nil || *p != program {
		t.Fatalf("GetProgram = %v, %v", p, err)
	}
	if err := s.CreateJob(ctx, j, program); !errors.Is(err, storage.ErrJobExists) {
		t.Fatalf("second CreateJob: %v, want ErrJobExists", err)
	}
	unknown := "qbraid:qbraid:sim:qir-sv-abcd-qjob-ffffffffffffffffffffffff"
	if _, err := s.GetJob(ctx, unknown); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("GetJob(unknown): %v", err)
	}
	if _, err := s.GetProgram(ctx, unknown); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("GetProgram(unknown): %v", err)
	}
	if _, err := s.GetResult(ctx, j.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("GetResult before any result: %v", err)
	}
}

// The caller's record is its own after a create, and a record a store
// returned is a snapshot: the job's later changes do not show in it.
func testCopiesAreIsolated(t *testing.T, s storage.Store) {
	j := create(t, s, newJob("alice", deviceA, 0))
	j.Tags["added"] = "later" // the caller's copy, after create
	got, _ := s.GetJob(ctx, j.JobQRN)
	if len(got.Tags) != 0 || got.Status != qtype.StatusInitializing {
		t.Fatalf("the store shares the created record with its caller: %+v", got)
	}
	queue(t, s, got, epoch)
	if got.Status != qtype.StatusInitializing || !got.QueuedAt.IsZero() {
		t.Fatalf("a record GetJob returned changed with the job: %+v", got)
	}
}

func testUpdateIsCompareAndSet(t *testing.T, s storage.Store) {
	j := create(t, s, newJob("alice", deviceA, 0))
	_, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusQueued, func(j *storage.JobRecord) { j.Status = qtype.StatusRunning }, nil)
	if !errors.Is(err, storage.ErrStatusChanged) {
		t.Fatalf("update from the wrong status: %v, want ErrStatusChanged", err)
	}
	if got, _ := s.GetJob(ctx, j.JobQRN); got.Status != qtype.StatusInitializing {
		t.Fatalf("a refused update changed the job: %s", got.Status)
	}
	msg := "note"
	got, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusInitializing, func(j *storage.JobRecord) {
		j.Status, j.StatusMsg = qtype.StatusValidating, &msg
		j.JobQRN, j.Owner = "something else", "mallory" // identity is not the change's to make
	}, nil)
	if err != nil || got.Status != qtype.StatusValidating || *got.StatusMsg != "note" {
		t.Fatalf("update: %+v, %v", got, err)
	}
	stored, _ := s.GetJob(ctx, j.JobQRN)
	if stored.Status != qtype.StatusValidating || stored.Owner != "alice" || stored.JobQRN != j.JobQRN {
		t.Fatalf("stored after update: %+v", stored)
	}
	if _, err := s.UpdateJob(ctx, "qbraid:qbraid:sim:qir-sv-abcd-qjob-ffffffffffffffffffffffff", qtype.StatusQueued, func(*storage.JobRecord) {}, nil); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("update of an unknown job: %v", err)
	}
}

func testTerminalNeverChanges(t *testing.T, s storage.Store) {
	for _, end := range []qtype.JobStatus{qtype.StatusCompleted, qtype.StatusFailed, qtype.StatusCancelled} {
		j := create(t, s, newJob("alice", deviceA, 0))
		move(t, s, j.JobQRN, qtype.StatusInitializing, end, epoch)
		_, err := s.UpdateJob(ctx, j.JobQRN, end, func(j *storage.JobRecord) { j.Status = qtype.StatusQueued }, nil)
		if !errors.Is(err, storage.ErrStatusChanged) {
			t.Fatalf("%s job changed: %v", end, err)
		}
		if got, _ := s.GetJob(ctx, j.JobQRN); got.Status != end {
			t.Fatalf("%s job is now %s", end, got.Status)
		}
	}
}

func testResultWithCompletion(t *testing.T, s storage.Store) {
	j := create(t, s, newJob("alice", deviceA, 0))
	queue(t, s, j, epoch)
	if _, err := s.ClaimJob(ctx, claimOf(deviceA, "alice")); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{"00": 40, "11": 60}
	_, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(j *storage.JobRecord) { j.Status = qtype.StatusCompleted }, qtype.CountsResult(counts))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetResult(ctx, j.JobQRN)
	if err != nil || got.Circuits != nil || !maps.Equal(got.Counts, map[string]int{"00": 40, "11": 60}) {
		t.Fatalf("GetResult = %v, %v", got, err)
	}
	// A refused update stores no result.
	k := create(t, s, newJob("alice", deviceA, 1))
	if _, err := s.UpdateJob(ctx, k.JobQRN, qtype.StatusRunning, func(j *storage.JobRecord) { j.Status = qtype.StatusCompleted }, qtype.CountsResult(counts)); !errors.Is(err, storage.ErrStatusChanged) {
		t.Fatalf("update from the wrong status: %v", err)
	}
	if _, err := s.GetResult(ctx, k.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("a refused update stored a result: %v", err)
	}
}

func testDelete(t *testing.T, s storage.Store) {
	j := create(t, s, newJob("alice", deviceA, 0))
	if err := s.DeleteJob(ctx, j.JobQRN, qtype.StatusCompleted); !errors.Is(err, storage.ErrStatusChanged) {
		t.Fatalf("delete from the wrong status: %v", err)
	}
	move(t, s, j.JobQRN, qtype.StatusInitializing, qtype.StatusRunning, epoch)
	if _, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(j *storage.JobRecord) { j.Status = qtype.StatusCompleted }, qtype.CountsResult(map[string]int{"0": 100})); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteJob(ctx, j.JobQRN, qtype.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetJob(ctx, j.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("job after delete: %v", err)
	}
	if _, err := s.GetProgram(ctx, j.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("program after delete: %v", err)
	}
	if _, err := s.GetResult(ctx, j.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("result after delete: %v", err)
	}
	if err := s.DeleteJob(ctx, j.JobQRN, qtype.StatusCompleted); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if jobs, total, _ := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Limit: 10}); total != 0 || len(jobs) != 0 {
		t.Fatalf("deleted job still listed: %d", total)
	}
}

// locked runs fn holding mu: the concurrent tests' tallies.
func locked(mu *sync.Mutex, fn func()) {
	mu.Lock()
	defer mu.Unlock()
	fn()
}

func qrns(jobs []*storage.JobRecord) []string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.JobQRN
	}
	return out
}

func testListOrderAndPaging(t *testing.T, s storage.Store) {
	var want []string // newest first
	for i := range 7 {
		j := create(t, s, newJob("alice", deviceA, i/2)) // pairs share a creation time
		want = append(want, j.JobQRN)
	}
	create(t, s, newJob("bob", deviceA, 9))
	// Newest first; equal times by QRN descending.
	slices.SortFunc(want, func(a, b string) int {
		ia, ib := slices.Index(want, a), slices.Index(want, b)
		if ia/2 != ib/2 {
			return ib/2 - ia/2
		}
		if a > b {
			return -1
		}
		return 1
	})
	var got []string
	for off := 0; off < 9; off += 3 {
		page, total, err := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Offset: off, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if total != 7 {
			t.Fatalf("total %d, want 7", total)
		}
		got = append(got, qrns(page)...)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pages give\n%v\nwant\n%v", got, want)
	}
	page, total, _ := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Offset: 50, Limit: 3})
	if len(page) != 0 || total != 7 {
		t.Fatalf("page past the end: %d jobs, total %d", len(page), total)
	}
}

func testListFilters(t *testing.T, s storage.Store) {
	a := newJob("alice", deviceA, 0)
	a.Name, a.Tags = "Bell pair", map[string]any{"team": "red", "n": int64(1)}
	b := newJob("alice", deviceB, 1)
	b.Name, b.Tags = "ghz", map[string]any{"team": "blue", "n": int64(2), "ok": true}
	c := newJob("alice", deviceA, 2)
	c.Name = "other"
	for _, j := range []*storage.JobRecord{a, b, c} {
		create(t, s, j)
	}
	move(t, s, b.JobQRN, qtype.StatusInitializing, qtype.StatusFailed, epoch)
	tests := []struct {
		name string
		f    storage.JobFilter
		want []*storage.JobRecord
	}{
		{"all", storage.JobFilter{}, []*storage.JobRecord{c, b, a}},
		{"status", storage.JobFilter{Statuses: []qtype.JobStatus{qtype.StatusFailed}}, []*storage.JobRecord{b}},
		{"statuses", storage.JobFilter{Statuses: []qtype.JobStatus{qtype.StatusInitializing, qtype.StatusQueued}}, []*storage.JobRecord{c, a}},
		{"vendor", storage.JobFilter{Vendor: "aws"}, []*storage.JobRecord{b}},
		{"provider", storage.JobFilter{Provider: "qbraid"}, []*storage.JobRecord{c, a}},
		{"search name", storage.JobFilter{Search: "BELL"}, []*storage.JobRecord{a}},
		{"search device", storage.JobFilter{Search: "sim:sv1"}, []*storage.JobRecord{b}},
		{"search qrn", storage.JobFilter{Search: c.JobQRN[len(c.JobQRN)-10:]}, []*storage.JobRecord{c}},
		{"tag", storage.JobFilter{Tags: map[string]any{"team": "blue"}}, []*storage.JobRecord{b}},
		{"tags all must match", storage.JobFilter{Tags: map[string]any{"team": "blue", "n": int64(1)}}, nil},
		{"tag integer", storage.JobFilter{Tags: map[string]any{"n": int64(1)}}, []*storage.JobRecord{a}},
		{"tag bool", storage.JobFilter{Tags: map[string]any{"ok": true}}, []*storage.JobRecord{b}},
		{"tag missing", storage.JobFilter{Tags: map[string]any{"nope": "x"}}, nil},
		{"combined", storage.JobFilter{Vendor: "qbraid", Search: "other"}, []*storage.JobRecord{c}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			f.Owner, f.Limit = "alice", 10
			got, total, err := s.ListJobs(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(qrns(got)) != fmt.Sprint(qrns(tc.want)) || total != len(tc.want) {
				t.Fatalf("got %v (total %d), want %v", qrns(got), total, qrns(tc.want))
			}
		})
	}
	if got, total, _ := s.ListJobs(ctx, storage.JobFilter{Owner: "bob", Limit: 10}); total != 0 || len(got) != 0 {
		t.Fatal("bob sees alice's jobs")
	}
}

func testQueue(t *testing.T, s storage.Store) {
	var jobs []*storage.JobRecord
	for i := range 4 {
		j := create(t, s, newJob("alice", deviceA, i))
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Second))
		jobs = append(jobs, j)
	}
	other := create(t, s, newJob("bob", deviceB, 0))
	queue(t, s, other, epoch)
	notQueued := create(t, s, newJob("bob", deviceB, 1))

	if n, _ := s.CountQueued(ctx, deviceA); n != 4 {
		t.Fatalf("CountQueued(A) = %d, want 4", n)
	}
	if q, _ := s.Queues(ctx); !sameQueues(q, []storage.Queue{{Device: deviceA, Owner: "alice"}, {Device: deviceB, Owner: "bob"}}) {
		t.Fatalf("Queues = %v", q)
	}
	for i, j := range jobs {
		if pos, _ := s.QueuePosition(ctx, j.JobQRN); pos != i+1 {
			t.Fatalf("QueuePosition(job %d) = %d, want %d", i, pos, i+1)
		}
	}
	if pos, _ := s.QueuePosition(ctx, notQueued.JobQRN); pos != 0 {
		t.Fatalf("QueuePosition of an unqueued job = %d", pos)
	}

	lease := epoch.Add(time.Hour)
	got, err := s.ClaimJob(ctx, claimOf(deviceA, "alice"))
	if err != nil || got.JobQRN != jobs[0].JobQRN || got.Status != qtype.StatusRunning || !got.LeaseUntil.Equal(lease) {
		t.Fatalf("ClaimJob = %+v, %v; want the oldest, RUNNING, leased", got, err)
	}
	if stored, _ := s.GetJob(ctx, got.JobQRN); stored.Status != qtype.StatusRunning || !stored.LeaseUntil.Equal(lease) {
		t.Fatalf("claimed job as stored: %+v", stored)
	}
	if pos, _ := s.QueuePosition(ctx, jobs[1].JobQRN); pos != 1 {
		t.Fatalf("after a claim, the next job is at %d", pos)
	}
	// A job cancelled out of the queue leaves it; a requeued one goes last.
	move(t, s, jobs[1].JobQRN, qtype.StatusQueued, qtype.StatusCancelling, epoch)
	move(t, s, jobs[0].JobQRN, qtype.StatusRunning, qtype.StatusQueued, epoch.Add(time.Minute))
	if n, _ := s.CountQueued(ctx, deviceA); n != 3 {
		t.Fatalf("CountQueued after cancel and requeue = %d, want 3", n)
	}
	var order []string
	for {
		j, err := s.ClaimJob(ctx, claimOf(deviceA, "alice"))
		if errors.Is(err, storage.ErrNoJob) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, j.JobQRN)
	}
	if want := []string{jobs[2].JobQRN, jobs[3].JobQRN, jobs[0].JobQRN}; fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("claim order %v, want %v", order, want)
	}
	if n, _ := s.CountQueued(ctx, deviceA); n != 0 {
		t.Fatalf("CountQueued after claiming all = %d", n)
	}
	if q, _ := s.Queues(ctx); !sameQueues(q, []storage.Queue{{Device: deviceB, Owner: "bob"}}) {
		t.Fatalf("Queues = %v, want only bob's on B", q)
	}
	if _, err := s.ClaimJob(ctx, claimOf("ionq:ionq:sim:none", "alice")); !errors.Is(err, storage.ErrNoJob) {
		t.Fatalf("claim on a device without jobs: %v", err)
	}
}

func testConcurrentClaims(t *testing.T, s storage.Store) {
	const n = 300
	for i := range n {
		device := deviceA
		if i%3 == 0 {
			device = deviceB
		}
		j := create(t, s, newJob("alice", device, i))
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Millisecond))
	}
	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				device := deviceA
				if w%2 == 0 {
					device = deviceB
				}
				j, err := s.ClaimJob(ctx, claimOf(device, "alice"))
				if errors.Is(err, storage.ErrNoJob) {
					j, err = s.ClaimJob(ctx, claimOf(deviceA, "alice"))
					if errors.Is(err, storage.ErrNoJob) {
						j, err = s.ClaimJob(ctx, claimOf(deviceB, "alice"))
						if errors.Is(err, storage.ErrNoJob) {
							return
						}
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
				locked(&mu, func() { claimed[j.JobQRN]++ })
			}
		}()
	}
	wg.Wait()
	if len(claimed) != n {
		t.Fatalf("%d jobs claimed, want %d", len(claimed), n)
	}
	for q, c := range claimed {
		if c != 1 {
			t.Fatalf("job %s claimed %d times", q, c)
		}
	}
}

func testRacingUpdates(t *testing.T, s storage.Store) {
	for round := range 50 {
		j := create(t, s, newJob("alice", deviceA, round))
		move(t, s, j.JobQRN, qtype.StatusInitializing, qtype.StatusRunning, epoch)
		var wins atomic.Int32
		var winner atomic.Value
		var wg sync.WaitGroup
		for i := range 6 {
			to := []qtype.JobStatus{qtype.StatusCompleted, qtype.StatusCancelling, qtype.StatusFailed}[i%3]
			wg.Add(1)
			go func() {
				defer wg.Done()
				var result *qtype.Result
				if to == qtype.StatusCompleted {
					result = qtype.CountsResult(map[string]int{"1": 100})
				}
				_, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(j *storage.JobRecord) { j.Status = to }, result)
				switch {
				case err == nil:
					wins.Add(1)
					winner.Store(to)
				case !errors.Is(err, storage.ErrStatusChanged):
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("round %d: %d updates from RUNNING won, want exactly 1", round, wins.Load())
		}
		got, _ := s.GetJob(ctx, j.JobQRN)
		if got.Status != winner.Load().(qtype.JobStatus) {
			t.Fatalf("round %d: status %s, winner %s", round, got.Status, winner.Load())
		}
		_, err := s.GetResult(ctx, j.JobQRN)
		if (got.Status == qtype.StatusCompleted) != (err == nil) {
			t.Fatalf("round %d: %s job, result error %v", round, got.Status, err)
		}
	}
}

func testUnfinished(t *testing.T, s storage.Store) {
	old := create(t, s, newJob("alice", deviceA, 0))
	mid := create(t, s, newJob("alice", deviceA, 1))
	running := create(t, s, newJob("bob", deviceB, 2))
	move(t, s, running.JobQRN, qtype.StatusInitializing, qtype.StatusRunning, epoch.Add(5*time.Minute))
	done := create(t, s, newJob("bob", deviceB, 3))
	move(t, s, done.JobQRN, qtype.StatusInitializing, qtype.StatusCompleted, epoch)

	statuses := []qtype.JobStatus{qtype.StatusInitializing, qtype.StatusRunning}
	got, err := s.Unfinished(ctx, statuses, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(qrns(got)) != fmt.Sprint([]string{old.JobQRN, mid.JobQRN, running.JobQRN}) {
		t.Fatalf("Unfinished = %v, want oldest update first", qrns(got))
	}
	got, _ = s.Unfinished(ctx, statuses, epoch.Add(90*time.Second), 10)
	if fmt.Sprint(qrns(got)) != fmt.Sprint([]string{old.JobQRN, mid.JobQRN}) {
		t.Fatalf("Unfinished before 1m30 = %v", qrns(got))
	}
	got, _ = s.Unfinished(ctx, statuses, time.Time{}, 1)
	if len(got) != 1 || got[0].JobQRN != old.JobQRN {
		t.Fatalf("Unfinished limit 1 = %v", qrns(got))
	}
}

func sameQueues(got, want []storage.Queue) bool {
	key := func(q storage.Queue) string { return q.Device + " " + q.Owner }
	g, w := make([]string, len(got)), make([]string, len(want))
	for i, q := range got {
		g[i] = key(q)
	}
	for i, q := range want {
		w[i] = key(q)
	}
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

// Each owner's jobs on a device are a queue of their own for claims; the
// device's queue (positions, depth) holds every owner's, oldest first.
func testQueuesPerOwner(t *testing.T, s storage.Store) {
	a1 := create(t, s, newJob("alice", deviceA, 0))
	b1 := create(t, s, newJob("bob", deviceA, 1))
	a2 := create(t, s, newJob("alice", deviceA, 2))
	for i, j := range []*storage.JobRecord{a1, b1, a2} {
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Second))
	}
	if q, _ := s.Queues(ctx); !sameQueues(q, []storage.Queue{{Device: deviceA, Owner: "alice"}, {Device: deviceA, Owner: "bob"}}) {
		t.Fatalf("Queues = %v", q)
	}
	for i, j := range []*storage.JobRecord{a1, b1, a2} {
		if pos, _ := s.QueuePosition(ctx, j.JobQRN); pos != i+1 {
			t.Fatalf("QueuePosition(%d) = %d, want %d", i, pos, i+1)
		}
	}
	got, err := s.ClaimJob(ctx, claimOf(deviceA, "bob"))
	if err != nil || got.JobQRN != b1.JobQRN {
		t.Fatalf("bob's claim = %v, %v; want bob's job", got, err)
	}
	if _, err := s.ClaimJob(ctx, claimOf(deviceA, "bob")); !errors.Is(err, storage.ErrNoJob) {
		t.Fatalf("bob's second claim: %v, want ErrNoJob", err)
	}
	if pos, _ := s.QueuePosition(ctx, a2.JobQRN); pos != 2 {
		t.Fatalf("alice's second job at %d after bob's claim, want 2", pos)
	}
	if n, _ := s.CountQueued(ctx, deviceA); n != 2 {
		t.Fatalf("CountQueued = %d, want 2", n)
	}
	if q, _ := s.Queues(ctx); !sameQueues(q, []storage.Queue{{Device: deviceA, Owner: "alice"}}) {
		t.Fatalf("Queues after bob's claim = %v", q)
	}
}

// A job that needs more memory than the claim allows stays at the head of
// its queue: ErrMemoryShort, not the job behind it.
func testClaimWithinMemory(t *testing.T, s storage.Store) {
	big := newJob("alice", deviceA, 0)
	big.MemoryNeed = 1000
	small := newJob("alice", deviceA, 1)
	small.MemoryNeed = 10
	for i, j := range []*storage.JobRecord{big, small} {
		create(t, s, j)
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Second))
	}
	if got, _ := s.GetJob(ctx, big.JobQRN); got.MemoryNeed != 1000 {
		t.Fatalf("MemoryNeed stored as %d, want 1000", got.MemoryNeed)
	}
	c := claimOf(deviceA, "alice")
	c.MaxMemory = 999
	if j, err := s.ClaimJob(ctx, c); !errors.Is(err, storage.ErrMemoryShort) || j == nil || j.JobQRN != big.JobQRN || j.MemoryNeed != 1000 || j.Status != qtype.StatusQueued {
		t.Fatalf("claim with too little memory = %+v, %v; want ErrMemoryShort and the job that did not fit, as it is", j, err)
	}
	if got, _ := s.GetJob(ctx, big.JobQRN); got.Status != qtype.StatusQueued {
		t.Fatalf("the job that did not fit is %s", got.Status)
	}
	if pos, _ := s.QueuePosition(ctx, big.JobQRN); pos != 1 {
		t.Fatalf("the job that did not fit is at %d, want 1", pos)
	}
	c.MaxMemory = 1000
	if j, err := s.ClaimJob(ctx, c); err != nil || j.JobQRN != big.JobQRN || j.MemoryNeed != 1000 {
		t.Fatalf("claim with enough memory = %+v, %v", j, err)
	}
	// A run that grew goes back to the queue needing more (the runner's
	// requeue): the next claim weighs the new need.
	if _, err := s.UpdateJob(ctx, big.JobQRN, qtype.StatusRunning, func(j *storage.JobRecord) {
		j.Status, j.QueuedAt, j.MemoryNeed = qtype.StatusQueued, epoch.Add(-time.Second), 5000
	}, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetJob(ctx, big.JobQRN); got.MemoryNeed != 5000 {
		t.Fatalf("MemoryNeed after an update = %d, want 5000", got.MemoryNeed)
	}
	if j, err := s.ClaimJob(ctx, c); !errors.Is(err, storage.ErrMemoryShort) || j == nil || j.JobQRN != big.JobQRN || j.MemoryNeed != 5000 {
		t.Fatalf("claim of a job whose need grew = %+v, %v; want ErrMemoryShort", j, err)
	}
}

// A claim's Now is read before the claim finds its job, which may have
// been queued since: a claim takes the later of Now and the job's last
// change, so that a job's changes never go back in time (watchers and
// event streams order them by UpdatedAt). Both claims, where the store
// makes batch claims too.
func testClaimsNeverGoBack(t *testing.T, s storage.Store) {
	queuedAt := epoch.Add(time.Hour)
	one := create(t, s, newJob("alice", deviceA, 0))
	queue(t, s, one, queuedAt)
	c := claimOf(deviceA, "alice") // Now: epoch, an hour before
	j, err := s.ClaimJob(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := s.GetJob(ctx, one.JobQRN)
	if !j.UpdatedAt.Equal(queuedAt) || !stored.UpdatedAt.Equal(queuedAt) {
		t.Fatalf("claimed at %v, stored %v: want the job's last change, %v, not the claim's earlier Now", j.UpdatedAt, stored.UpdatedAt, queuedAt)
	}
	bc, ok := s.(storage.BatchClaimer)
	if !ok {
		return
	}
	two := create(t, s, newJob("bob", deviceA, 1))
	three := create(t, s, newJob("carol", deviceA, 2))
	queue(t, s, two, queuedAt)
	queue(t, s, three, epoch)
	b := batchOf(2, deviceA) // Now: epoch + 1 minute
	got, err := bc.ClaimJobs(ctx, b)
	if err != nil || len(got.Jobs) != 2 {
		t.Fatalf("ClaimJobs = %+v, %v", got, err)
	}
	for _, cj := range got.Jobs {
		want := b.Now
		if cj.Job.JobQRN == two.JobQRN {
			want = queuedAt
		}
		stored, _ := s.GetJob(ctx, cj.Job.JobQRN)
		if !cj.Job.UpdatedAt.Equal(want) || !stored.UpdatedAt.Equal(want) || stored.Status != qtype.StatusRunning {
			t.Errorf("%s: claimed at %v, stored %v (%s); want %v", cj.Job.JobQRN, cj.Job.UpdatedAt, stored.UpdatedAt, stored.Status, want)
		}
	}
}

// An update that leaves a QUEUED job QUEUED keeps its place and count.
func testUpdateKeepsQueuePlace(t *testing.T, s storage.Store) {
	a := create(t, s, newJob("alice", deviceA, 0))
	b := create(t, s, newJob("alice", deviceA, 1))
	queue(t, s, a, epoch)
	queue(t, s, b, epoch.Add(time.Second))
	if _, err := s.UpdateJob(ctx, a.JobQRN, qtype.StatusQueued, func(j *storage.JobRecord) { j.Name = "renamed" }, nil); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountQueued(ctx, deviceA); n != 2 {
		t.Fatalf("CountQueued after a QUEUED → QUEUED update = %d, want 2", n)
	}
	if pos, _ := s.QueuePosition(ctx, a.JobQRN); pos != 1 {
		t.Fatalf("updated job at %d, want 1", pos)
	}
	if j, err := s.ClaimJob(ctx, claimOf(deviceA, "alice")); err != nil || j.JobQRN != a.JobQRN {
		t.Fatalf("claim = %v, %v; want the updated job first", j, err)
	}
}

func testCountJobs(t *testing.T, s storage.Store) {
	a := create(t, s, newJob("alice", deviceA, 0))
	create(t, s, newJob("alice", deviceB, 1))
	create(t, s, newJob("bob", deviceA, 2))
	queue(t, s, a, epoch)
	tests := []struct {
		owner    string
		statuses []qtype.JobStatus
		want     int
	}{
		{"alice", []qtype.JobStatus{qtype.StatusQueued}, 1},
		{"alice", []qtype.JobStatus{qtype.StatusInitializing, qtype.StatusQueued}, 2},
		{"alice", []qtype.JobStatus{qtype.StatusQueued, qtype.StatusQueued}, 1}, // each status once
		{"alice", []qtype.JobStatus{qtype.StatusCompleted}, 0},
		{"bob", []qtype.JobStatus{qtype.StatusInitializing}, 1},
		{"carol", []qtype.JobStatus{qtype.StatusInitializing}, 0},
	}
	for _, tc := range tests {
		if n, err := s.CountJobs(ctx, tc.owner, tc.statuses); err != nil || n != tc.want {
			t.Errorf("CountJobs(%s, %v) = %d, %v; want %d", tc.owner, tc.statuses, n, err, tc.want)
		}
	}
}

// Offsets and limits a client can reach (page × limit near the largest
// int) give an empty page and the true total: no panic, no overflow.
func testPagingExtremes(t *testing.T, s storage.Store) {
	for i := range 3 {
		create(t, s, newJob("alice", deviceA, i))
	}
	for _, f := range []storage.JobFilter{
		{Offset: math.MaxInt, Limit: 100},
		{Offset: math.MaxInt - 50, Limit: 100},
		{Offset: 3, Limit: math.MaxInt},
		{Offset: math.MaxInt, Limit: math.MaxInt, Provider: "qbraid"}, // a filter that scans
	} {
		f.Owner = "alice"
		page, total, err := s.ListJobs(ctx, f)
		if err != nil || len(page) != 0 || total != 3 {
			t.Errorf("ListJobs(offset %d, limit %d) = %d jobs of %d, %v; want none of 3", f.Offset, f.Limit, len(page), total, err)
		}
	}
	page, total, err := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Offset: 1, Limit: math.MaxInt})
	if err != nil || len(page) != 2 || total != 3 {
		t.Errorf("ListJobs(offset 1, limit MaxInt) = %d jobs of %d, %v; want 2 of 3", len(page), total, err)
	}
}

// A change function that panics inside UpdateJob's critical section
// leaves no lock held and the job as it was: the store goes on answering.
func testPanicInChange(t *testing.T, s storage.Store) {
	j := create(t, s, newJob("alice", deviceA, 0))
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the change function's panic did not reach the caller")
			}
		}()
		_, _ = s.UpdateJob(ctx, j.JobQRN, qtype.StatusInitializing, func(j *storage.JobRecord) {
			j.Status = qtype.StatusFailed
			panic("boom")
		}, nil)
	}()
	answers(t, func() {
		got, err := s.GetJob(ctx, j.JobQRN)
		if err != nil || got.Status != qtype.StatusInitializing {
			t.Errorf("after the panic: %v, %v; want the job unchanged", got, err)
		}
		if _, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusInitializing, func(j *storage.JobRecord) { j.Status = qtype.StatusValidating }, nil); err != nil {
			t.Errorf("update after the panic: %v", err)
		}
		if _, total, err := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Limit: 10}); err != nil || total != 1 {
			t.Errorf("list after the panic: %d, %v", total, err)
		}
	})
}

// answers runs fn, failing the test if it does not return within 10
// seconds (a lock left held would make it hang).
func answers(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the store stopped answering: a lock outlived a panic")
	}
}
