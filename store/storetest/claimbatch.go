package storetest

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// The tests of storage.BatchClaimer, for the stores that are one.

const deviceC = "ionq:ionq:sim:qpu"

func batchClaimer(t *testing.T, s storage.Store) storage.BatchClaimer {
	t.Helper()
	bc, ok := s.(storage.BatchClaimer)
	if !ok {
		testenv.Optional(t, "not a storage.BatchClaimer")
	}
	return bc
}

func batchOf(max int, devices ...string) storage.BatchClaim {
	return storage.BatchClaim{Max: max, Devices: devices, MaxMemory: math.MaxInt64, Now: epoch.Add(time.Minute),
		LeaseUntil: epoch.Add(time.Hour), Node: claimNode}
}

// claimedQRNs names the jobs taken and the entries that took them.
func claimedQRNs(c *storage.ClaimedJobs) []string {
	var out []string
	for _, j := range c.Jobs {
		out = append(out, fmt.Sprintf("%d:%s", j.Turn, j.Job.JobQRN))
	}
	return out
}

// expected is what a claim of c takes, by its plan, from queues that hold
// the jobs waiting, oldest first, and those left waiting.
func expected(c storage.BatchClaim, waiting map[storage.Queue][]string) (want []string, left map[storage.Queue][]string) {
	left = map[storage.Queue][]string{}
	for q, jobs := range waiting {
		if len(jobs) > 0 {
			left[q] = slices.Clone(jobs)
		}
	}
	for i, q := range c.Plan(slices.Collect(maps.Keys(left))) {
		if len(left[q]) == 0 {
			continue
		}
		want = append(want, fmt.Sprintf("%d:%s", i, left[q][0]))
		left[q] = left[q][1:]
	}
	return want, left
}

// Each entry of the plan takes its queue's next job, as successive
// ClaimJob calls would; an entry whose queue has no more takes nothing;
// queues of other devices wait; the jobs come back RUNNING, leased, with
// their programs, as GetJob then shows them, and go on as any claimed
// job.
func testBatchClaims(t *testing.T, s storage.Store) {
	bc := batchClaimer(t, s)
	var alice []*storage.JobRecord
	for i := range 3 {
		j := create(t, s, newJob("alice", deviceA, i))
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Second))
		alice = append(alice, j)
	}
	bob := create(t, s, newJob("bob", deviceA, 0))
	queue(t, s, bob, epoch)
	aliceB := create(t, s, newJob("alice", deviceB, 0))
	queue(t, s, aliceB, epoch)
	dave := create(t, s, newJob("dave", deviceC, 0))
	queue(t, s, dave, epoch)
	notQueued := create(t, s, newJob("carol", deviceA, 0))

	// alice, then bob; alice's devices B ("aws:…"), then A ("qbraid:…").
	c := batchOf(6, deviceA, deviceB)
	got, err := bc.ClaimJobs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0:" + aliceB.JobQRN, "1:" + bob.JobQRN, "2:" + alice[0].JobQRN}
	if !slices.Equal(claimedQRNs(got), want) || got.Short != nil {
		t.Fatalf("ClaimJobs took %v (short %v), want %v", claimedQRNs(got), got.Short, want)
	}
	for _, cj := range got.Jobs {
		j := cj.Job
		if j.Status != qtype.StatusRunning || !j.UpdatedAt.Equal(c.Now) || !j.LeaseUntil.Equal(c.LeaseUntil) ||
			j.Node != claimNode || j.Attempts != 1 {
			t.Errorf("claimed job %+v: want RUNNING, updated at the claim, leased, node %s, one attempt", j, claimNode)
		}
		if cj.Program == nil || *cj.Program != program {
			t.Errorf("claimed job %s came with program %+v, want %+v", j.JobQRN, cj.Program, program)
		}
		stored := mustGet(t, s, j.JobQRN)
		if stored.Status != qtype.StatusRunning || !stored.UpdatedAt.Equal(c.Now) || !stored.LeaseUntil.Equal(c.LeaseUntil) ||
			stored.Node != claimNode || stored.Attempts != 1 || stored.Name != j.Name || stored.Shots != j.Shots {
			t.Errorf("claimed job as stored: %+v", stored)
		}
	}
	for _, j := range []*storage.JobRecord{notQueued, dave, alice[1], alice[2]} {
		if st := mustGet(t, s, j.JobQRN).Status; st != j.Status && st != qtype.StatusQueued {
			t.Errorf("job %s is %s: it was not to be claimed", j.JobQRN, st)
		}
	}
	if pos, _ := s.QueuePosition(ctx, alice[1].JobQRN); pos != 1 {
		t.Errorf("alice's second job is at %d, want 1", pos)
	}
	// A claimed job requeued goes last, and a claim again counts an
	// attempt; a queue served first comes first.
	requeued := alice[0].JobQRN
	if _, err := s.UpdateJob(ctx, requeued, qtype.StatusRunning, func(j *storage.JobRecord) {
		j.Status, j.UpdatedAt, j.QueuedAt = qtype.StatusQueued, epoch.Add(2*time.Minute), epoch.Add(2*time.Minute)
	}, nil); err != nil {
		t.Fatal(err)
	}
	c = batchOf(3, deviceA, deviceB)
	c.First, c.LastOwner = &storage.Queue{Device: deviceA, Owner: "alice"}, "alice"
	again, err := bc.ClaimJobs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:" + alice[1].JobQRN, "1:" + alice[2].JobQRN, "2:" + requeued}; !slices.Equal(claimedQRNs(again), want) {
		t.Fatalf("second ClaimJobs took %v, want %v", claimedQRNs(again), want)
	}
	if a := again.Jobs[2].Job.Attempts; a != 2 {
		t.Errorf("a job claimed twice has %d attempts, want 2", a)
	}
	res := &qtype.Result{Counts: map[string]int{"0": 100}}
	if _, err := s.UpdateJob(ctx, requeued, qtype.StatusRunning, func(j *storage.JobRecord) { j.Status = qtype.StatusCompleted }, res); err != nil {
		t.Fatal(err)
	}
	if r, err := s.GetResult(ctx, requeued); err != nil || r.Counts["0"] != 100 {
		t.Fatalf("result after a batch claim: %+v, %v", r, err)
	}
	if got, err := bc.ClaimJobs(ctx, batchOf(4, deviceA, deviceB)); err != nil || len(got.Jobs) != 0 || got.Short != nil {
		t.Fatalf("ClaimJobs of empty queues = %+v, %v", got, err)
	}
	if got, err := bc.ClaimJobs(ctx, batchOf(4, deviceC)); err != nil || !slices.Equal(claimedQRNs(got), []string{"0:" + dave.JobQRN}) {
		t.Fatalf("ClaimJobs on device C = %v, %v; want dave's job", claimedQRNs(got), err)
	}
}

// Whatever the turns, a claim takes what its plan says: users after the
// last one served, each user's devices after the last one served to
// them, a queue served first, and queues with fewer jobs than turns.
func testBatchClaimsFollowThePlan(t *testing.T, s storage.Store) {
	bc := batchClaimer(t, s)
	waiting := map[storage.Queue][]string{}
	n := 0
	for o, owner := range []string{"alice", "bob", "carol"} {
		for d, device := range []string{deviceA, deviceB, deviceC} {
			if o == 2 && d == 1 {
				continue // carol has nothing on B
			}
			for range 1 + (o+d)%3 {
				j := create(t, s, newJob(owner, device, n))
				queue(t, s, j, epoch.Add(time.Duration(n)*time.Second))
				n++
				q := storage.Queue{Device: device, Owner: owner}
				waiting[q] = append(waiting[q], j.JobQRN)
			}
		}
	}
	for i, c := range []storage.BatchClaim{
		batchOf(4, deviceA, deviceB, deviceC),
		{Max: 5, Devices: []string{deviceA, deviceB, deviceC}, LastOwner: "alice", LastDevice: map[string]string{"bob": deviceB, "carol": deviceA}},
		{Max: 3, Devices: []string{deviceA, deviceC}, LastOwner: "carol", First: &storage.Queue{Device: deviceC, Owner: "bob"}},
		{Max: 6, Devices: []string{deviceA, deviceB, deviceC}, LastOwner: "bob", LastDevice: map[string]string{"alice": deviceC},
			First: &storage.Queue{Device: deviceB, Owner: "carol"}}, // a queue that holds nothing
		{Max: 20, Devices: []string{deviceA, deviceB, deviceC}},
	} {
		c.MaxMemory, c.Now, c.LeaseUntil, c.Node = math.MaxInt64, epoch, epoch.Add(time.Hour), claimNode
		want, left := expected(c, waiting)
		got, err := bc.ClaimJobs(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(claimedQRNs(got), want) || got.Short != nil {
			t.Fatalf("claim %d took %v (short %v), want %v", i, claimedQRNs(got), got.Short, want)
		}
		waiting = left
	}
	if len(waiting) != 0 {
		t.Errorf("left waiting: %v", waiting)
	}
}

// The jobs are taken while their memory fits together; the first that
// does not stops the walk, stays QUEUED at the head of its queue and
// comes back as Short; nothing after it is taken.
func testBatchClaimsWithinMemory(t *testing.T, s storage.Store) {
	bc := batchClaimer(t, s)
	needs := []int64{100, 1000, 10}
	var a []*storage.JobRecord
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
	c := batchOf(4, deviceA)
	c.MaxMemory = 500
	got, err := bc.ClaimJobs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:" + a[0].JobQRN, "1:" + b.JobQRN}; !slices.Equal(claimedQRNs(got), want) {
		t.Fatalf("ClaimJobs took %v, want %v", claimedQRNs(got), want)
	}
	if got.Short == nil || got.Short.JobQRN != a[1].JobQRN || got.Short.MemoryNeed != 1000 || got.Short.Status != qtype.StatusQueued {
		t.Fatalf("Short = %+v, want the job of 1000 bytes, QUEUED", got.Short)
	}
	for _, j := range a[1:] {
		if st := mustGet(t, s, j.JobQRN).Status; st != qtype.StatusQueued {
			t.Errorf("job %s is %s, want QUEUED", j.JobQRN, st)
		}
	}
	if pos, _ := s.QueuePosition(ctx, a[1].JobQRN); pos != 1 {
		t.Errorf("the job that did not fit is at %d, want 1", pos)
	}
	c = batchOf(2, deviceA)
	c.MaxMemory, c.First = 1010, &storage.Queue{Device: deviceA, Owner: "alice"}
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
func testConcurrentBatchClaims(t *testing.T, s storage.Store) {
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
				var taken []*storage.JobRecord
				if w%3 == 0 {
					j, err := s.ClaimJob(ctx, claimOf(deviceA, owners[w%3]))
					if err == nil {
						taken = append(taken, j)
					}
				} else {
					c := batchOf(1+w%4, deviceA)
					c.LastOwner = owners[w%3]
					got, err := bc.ClaimJobs(ctx, c)
					if err != nil {
						t.Error(err)
						return
					}
					for _, cj := range got.Jobs {
						taken = append(taken, cj.Job)
					}
				}
				locked(&mu, func() {
					for _, j := range taken {
						seen[j.JobQRN]++
					}
				})
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
