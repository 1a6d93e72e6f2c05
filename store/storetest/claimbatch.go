package storetest

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/testenv"
)

// The tests of quantum.BatchClaimer, for the stores that are one.

func batchClaimer(t *testing.T, s quantum.Store) quantum.BatchClaimer {
	t.Helper()
	bc, ok := s.(quantum.BatchClaimer)
	if !ok {
		testenv.Optional(t, "not a quantum.BatchClaimer")
	}
	return bc
}

func batchOf(turns ...quantum.Queue) quantum.BatchClaim {
	return quantum.BatchClaim{Turns: turns, MaxMemory: math.MaxInt64, Now: epoch.Add(time.Minute),
		LeaseUntil: epoch.Add(time.Hour), Node: claimNode}
}

// claimedQRNs names the jobs taken and the entries that took them.
func claimedQRNs(c *quantum.ClaimedJobs) []string {
	var out []string
	for _, j := range c.Jobs {
		out = append(out, fmt.Sprintf("%d:%s", j.Turn, j.Job.JobQRN))
	}
	return out
}

// Each entry takes its queue's next job, as successive ClaimJob calls
// would; an entry of an empty queue takes nothing; the jobs come back
// RUNNING, leased, with their programs, as GetJob then shows them; and
// the ones left wait in order.
func testBatchClaims(t *testing.T, s quantum.Store) {
	bc := batchClaimer(t, s)
	var alice []*quantum.JobRecord
	for i := range 3 {
		j := create(t, s, newJob("alice", deviceA, i))
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Second))
		alice = append(alice, j)
	}
	bob := create(t, s, newJob("bob", deviceA, 0))
	queue(t, s, bob, epoch)
	aliceB := create(t, s, newJob("alice", deviceB, 0))
	queue(t, s, aliceB, epoch)
	notQueued := create(t, s, newJob("carol", deviceA, 0))

	qa, qb, qab, qc := quantum.Queue{Device: deviceA, Owner: "alice"}, quantum.Queue{Device: deviceA, Owner: "bob"},
		quantum.Queue{Device: deviceB, Owner: "alice"}, quantum.Queue{Device: deviceA, Owner: "carol"}
	c := batchOf(qa, qb, qc, qa, qb, qab)
	got, err := bc.ClaimJobs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0:" + alice[0].JobQRN, "1:" + bob.JobQRN, "3:" + alice[1].JobQRN, "5:" + aliceB.JobQRN}
	if !slices.Equal(claimedQRNs(got), want) || got.Short != nil {
		t.Fatalf("ClaimJobs took %v (short %v), want %v", claimedQRNs(got), got.Short, want)
	}
	for _, cj := range got.Jobs {
		j := cj.Job
		if j.Status != quantum.StatusRunning || !j.UpdatedAt.Equal(c.Now) || !j.LeaseUntil.Equal(c.LeaseUntil) ||
			j.Node != claimNode || j.Attempts != 1 {
			t.Errorf("claimed job %+v: want RUNNING, updated at the claim, leased, node %s, one attempt", j, claimNode)
		}
		if cj.Program == nil || *cj.Program != program {
			t.Errorf("claimed job %s came with program %+v, want %+v", j.JobQRN, cj.Program, program)
		}
		stored := mustGet(t, s, j.JobQRN)
		if stored.Status != quantum.StatusRunning || !stored.UpdatedAt.Equal(c.Now) || !stored.LeaseUntil.Equal(c.LeaseUntil) ||
			stored.Node != claimNode || stored.Attempts != 1 || stored.Name != j.Name || stored.Shots != j.Shots {
			t.Errorf("claimed job as stored: %+v", stored)
		}
	}
	if st := mustGet(t, s, notQueued.JobQRN).Status; st != quantum.StatusInitializing {
		t.Errorf("a job not queued was claimed: %s", st)
	}
	if pos, _ := s.QueuePosition(ctx, alice[2].JobQRN); pos != 1 {
		t.Errorf("alice's third job is at %d, want 1", pos)
	}
	// The claimed jobs go on as any claimed job: a claim again counts an
	// attempt, and the end is a compare-and-set on RUNNING.
	first := got.Jobs[0].Job.JobQRN
	if _, err := s.UpdateJob(ctx, first, quantum.StatusRunning, func(j *quantum.JobRecord) {
		j.Status, j.UpdatedAt, j.QueuedAt = quantum.StatusQueued, epoch.Add(2*time.Minute), epoch.Add(2*time.Minute)
	}, nil); err != nil {
		t.Fatal(err)
	}
	again, err := bc.ClaimJobs(ctx, batchOf(qa, qa, qa))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:" + alice[2].JobQRN, "1:" + first}; !slices.Equal(claimedQRNs(again), want) {
		t.Fatalf("second ClaimJobs took %v, want %v", claimedQRNs(again), want)
	}
	if a := again.Jobs[1].Job.Attempts; a != 2 {
		t.Errorf("a job claimed twice has %d attempts, want 2", a)
	}
	res := &quantum.Result{Counts: map[string]int{"0": 100}}
	if _, err := s.UpdateJob(ctx, first, quantum.StatusRunning, func(j *quantum.JobRecord) { j.Status = quantum.StatusCompleted }, res); err != nil {
		t.Fatal(err)
	}
	if r, err := s.GetResult(ctx, first); err != nil || r.Counts["0"] != 100 {
		t.Fatalf("result after a batch claim: %+v, %v", r, err)
	}
	if got, err := bc.ClaimJobs(ctx, batchOf(qa, qc)); err != nil || len(got.Jobs) != 0 || got.Short != nil {
		t.Fatalf("ClaimJobs of empty queues = %+v, %v", got, err)
	}
}

// The jobs are taken while their memory fits together; the first that
// does not stops the walk, stays QUEUED at the head of its queue and
// comes back as Short; nothing after it is taken.
func testBatchClaimsWithinMemory(t *testing.T, s quantum.Store) {
	bc := batchClaimer(t, s)
	needs := []int64{100, 1000, 10}
	var a []*quantum.JobRecord
	for i, need := range needs {
		j := newJob("alice", deviceA, i)
		j.MemoryNeed = need
		create(t, s, j)
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Second))
		a = append(a, j)
	}
	b := newJob("bob", deviceA, 0)
	b.MemoryNeed = 10
	create(t, s, b)
	queue(t, s, b, epoch)
	qa, qb := quantum.Queue{Device: deviceA, Owner: "alice"}, quantum.Queue{Device: deviceA, Owner: "bob"}
	c := batchOf(qa, qb, qa, qa)
	c.MaxMemory = 500
	got, err := bc.ClaimJobs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:" + a[0].JobQRN, "1:" + b.JobQRN}; !slices.Equal(claimedQRNs(got), want) {
		t.Fatalf("ClaimJobs took %v, want %v", claimedQRNs(got), want)
	}
	if got.Short == nil || got.Short.JobQRN != a[1].JobQRN || got.Short.MemoryNeed != 1000 || got.Short.Status != quantum.StatusQueued {
		t.Fatalf("Short = %+v, want the job of 1000 bytes, QUEUED", got.Short)
	}
	for _, j := range a[1:] {
		if st := mustGet(t, s, j.JobQRN).Status; st != quantum.StatusQueued {
			t.Errorf("job %s is %s, want QUEUED", j.JobQRN, st)
		}
	}
	if pos, _ := s.QueuePosition(ctx, a[1].JobQRN); pos != 1 {
		t.Errorf("the job that did not fit is at %d, want 1", pos)
	}
	c = batchOf(qa, qa)
	c.MaxMemory = 1010
	got, err = bc.ClaimJobs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:" + a[1].JobQRN, "1:" + a[2].JobQRN}; !slices.Equal(claimedQRNs(got), want) || got.Short != nil {
		t.Fatalf("ClaimJobs with room for both took %v (short %v), want %v", claimedQRNs(got), got.Short, want)
	}
}

// Batch claims and single claims racing never hand out one job twice,
// and leave none behind.
func testConcurrentBatchClaims(t *testing.T, s quantum.Store) {
	bc := batchClaimer(t, s)
	const jobs = 60
	owners := []string{"alice", "bob", "carol"}
	for i := range jobs {
		j := create(t, s, newJob(owners[i%3], deviceA, i))
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Second))
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				var taken []*quantum.JobRecord
				if w%3 == 0 {
					j, err := s.ClaimJob(ctx, claimOf(deviceA, owners[w%3]))
					if err == nil {
						taken = append(taken, j)
					}
				} else {
					var turns []quantum.Queue
					for _, o := range owners {
						turns = append(turns, quantum.Queue{Device: deviceA, Owner: o}, quantum.Queue{Device: deviceA, Owner: o})
					}
					got, err := bc.ClaimJobs(ctx, batchOf(turns...))
					if err != nil {
						t.Error(err)
						return
					}
					for _, cj := range got.Jobs {
						taken = append(taken, cj.Job)
					}
				}
				mu.Lock()
				for _, j := range taken {
					seen[j.JobQRN]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != jobs {
		t.Errorf("%d jobs claimed, want %d", len(seen), jobs)
	}
	for qrn, n := range seen {
		if n != 1 {
			t.Errorf("job %s claimed %d times", qrn, n)
		}
	}
}
