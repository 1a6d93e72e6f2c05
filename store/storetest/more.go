package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// ResultLimiter is a Store that bounds results: one whose JSON encoding
// is larger than MaxResultBytes fails with an error that wraps
// storage.ErrTooLarge. The suite tests the bound when it is small enough
// to build a result past it (16 MiB at most).
type ResultLimiter interface {
	MaxResultBytes() int64
}

// Updates that keep a QUEUED job QUEUED (in its place: QueuedAt kept)
// change neither its place nor any count.
func testQueuedUpdatesKeepPlace(t *testing.T, s storage.Store) {
	var jobs []*storage.JobRecord
	for i := range 3 {
		j := create(t, s, newJob("alice", deviceA, i))
		queue(t, s, j, epoch.Add(time.Duration(i)*time.Second))
		jobs = append(jobs, j)
	}
	check := func(when string) {
		t.Helper()
		if n, _ := s.CountQueued(ctx, deviceA); n != 3 {
			t.Fatalf("%s: CountQueued = %d, want 3", when, n)
		}
		if n, _ := s.CountJobs(ctx, "alice", []qtype.JobStatus{qtype.StatusQueued}); n != 3 {
			t.Fatalf("%s: CountJobs(QUEUED) = %d, want 3", when, n)
		}
		if _, total, _ := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Statuses: []qtype.JobStatus{qtype.StatusQueued}, Limit: 10}); total != 3 {
			t.Fatalf("%s: list of QUEUED gives %d, want 3", when, total)
		}
		if q, _ := s.Queues(ctx); !sameQueues(q, []storage.Queue{{Device: deviceA, Owner: "alice"}}) {
			t.Fatalf("%s: Queues = %v", when, q)
		}
		for i, j := range jobs {
			if pos, _ := s.QueuePosition(ctx, j.JobQRN); pos != i+1 {
				t.Fatalf("%s: QueuePosition(job %d) = %d, want %d", when, i, pos, i+1)
			}
		}
	}
	check("before")
	for round := range 3 {
		for _, j := range []*storage.JobRecord{jobs[1], jobs[0], jobs[2]} {
			if _, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusQueued, func(j *storage.JobRecord) {
				j.Name = fmt.Sprintf("renamed %d", round)
				j.Tags = map[string]any{"round": int64(round)}
				j.UpdatedAt = epoch.Add(time.Hour + time.Duration(round)*time.Minute)
			}, nil); err != nil {
				t.Fatal(err)
			}
		}
		check(fmt.Sprintf("after round %d of QUEUED → QUEUED updates", round))
	}
	for i, want := range jobs {
		if j, err := s.ClaimJob(ctx, claimOf(deviceA, "alice")); err != nil || j.JobQRN != want.JobQRN {
			t.Fatalf("claim %d = %v, %v; want job %d", i, j, err, i)
		}
	}
}

// queueState checks that CountQueued, QueuePosition and Queues agree
// exactly with the jobs' statuses (each job has its own QueuedAt), then
// claims every QUEUED job, checking the order, and checks that nothing is
// left.
func queueState(t *testing.T, s storage.Store, jobs []*storage.JobRecord) {
	t.Helper()
	byDevice := map[string][]*storage.JobRecord{}
	byQueue := map[storage.Queue][]*storage.JobRecord{}
	for _, j := range jobs {
		got, err := s.GetJob(ctx, j.JobQRN)
		if errors.Is(err, storage.ErrJobNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != qtype.StatusQueued {
			if pos, err := s.QueuePosition(ctx, j.JobQRN); pos != 0 || err != nil {
				t.Fatalf("%s job at queue position %d, %v", got.Status, pos, err)
			}
			continue
		}
		byDevice[got.DeviceQRN] = append(byDevice[got.DeviceQRN], got)
		q := storage.Queue{Device: got.DeviceQRN, Owner: got.Owner}
		byQueue[q] = append(byQueue[q], got)
	}
	oldest := func(a, b *storage.JobRecord) int { return a.QueuedAt.Compare(b.QueuedAt) }
	for _, d := range []string{deviceA, deviceB} {
		queued := byDevice[d]
		slices.SortFunc(queued, oldest)
		if n, _ := s.CountQueued(ctx, d); n != len(queued) {
			t.Fatalf("CountQueued(%s) = %d; %d jobs are QUEUED", d, n, len(queued))
		}
		for i, j := range queued {
			if pos, _ := s.QueuePosition(ctx, j.JobQRN); pos != i+1 {
				t.Fatalf("QueuePosition = %d, want %d", pos, i+1)
			}
		}
	}
	var want []storage.Queue
	for q := range byQueue {
		want = append(want, q)
	}
	if got, _ := s.Queues(ctx); !sameQueues(got, want) {
		t.Fatalf("Queues = %v; the jobs' statuses give %v", got, want)
	}
	for q, queued := range byQueue {
		slices.SortFunc(queued, oldest)
		for i, want := range queued {
			j, err := s.ClaimJob(ctx, claimOf(q.Device, q.Owner))
			if err != nil || j.JobQRN != want.JobQRN {
				t.Fatalf("claim %d of %v = %v, %v; want %s", i, q, j, err, want.JobQRN)
			}
		}
	}
	for _, d := range []string{deviceA, deviceB} {
		for _, o := range []string{"alice", "bob"} {
			if j, err := s.ClaimJob(ctx, claimOf(d, o)); !errors.Is(err, storage.ErrNoJob) {
				t.Fatalf("a claim after all were claimed = %v, %v; want ErrNoJob", j, err)
			}
		}
		if n, _ := s.CountQueued(ctx, d); n != 0 {
			t.Fatalf("CountQueued(%s) = %d after every job was claimed", d, n)
		}
	}
	if q, _ := s.Queues(ctx); len(q) != 0 {
		t.Fatalf("Queues = %v after every job was claimed", q)
	}
}

// queueRace makes n VALIDATING jobs over two devices and two owners and
// runs, all at once: queuers moving them to QUEUED, each with its own
// QueuedAt; claimers taking them, and putting every third one they take
// back in its queue (as after a crash), a place later; and the racers,
// each calling race on a share of the jobs as soon as they are QUEUED. So
// a race lands between another change's commit and whatever a store does
// after it. It returns the jobs, how many times each was claimed and
// requeued, and each job's racers' wins.
func queueRace(t *testing.T, s storage.Store, n int, race func(qrn string) error) (jobs []*storage.JobRecord, claimed, requeued, won map[string]int) {
	t.Helper()
	for i := range n {
		owner, device := []string{"alice", "bob"}[i%2], []string{deviceA, deviceB}[i/2%2]
		j := create(t, s, newJob(owner, device, i))
		move(t, s, j.JobQRN, qtype.StatusInitializing, qtype.StatusValidating, epoch)
		jobs = append(jobs, j)
	}
	claimed, requeued, won = map[string]int{}, map[string]int{}, map[string]int{}
	var mu sync.Mutex
	var later atomic.Int64 // requeue times, after every first queueing
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() { // queuers
			defer wg.Done()
			<-start
			for i := w; i < n; i += 2 {
				at := epoch.Add(time.Duration(i) * time.Millisecond)
				if _, err := s.UpdateJob(ctx, jobs[i].JobQRN, qtype.StatusValidating, func(j *storage.JobRecord) {
					j.Status, j.UpdatedAt, j.QueuedAt = qtype.StatusQueued, at, at
				}, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	queues := []storage.Queue{{Device: deviceA, Owner: "alice"}, {Device: deviceB, Owner: "bob"}, {Device: deviceA, Owner: "bob"}, {Device: deviceB, Owner: "alice"}}
	for w := range 4 {
		wg.Add(1)
		go func() { // claimers
			defer wg.Done()
			<-start
			for i := range n / 4 {
				q := queues[(w+i)%4]
				j, err := s.ClaimJob(ctx, claimOf(q.Device, q.Owner))
				if errors.Is(err, storage.ErrNoJob) {
					runtime.Gosched()
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				locked(&mu, func() {
					claimed[j.JobQRN]++
					if j.Status != qtype.StatusRunning || j.Attempts != claimed[j.JobQRN] {
						t.Errorf("claim %d of a job gave it %s with %d attempts", claimed[j.JobQRN], j.Status, j.Attempts)
					}
				})
				if i%3 == 0 {
					at := epoch.Add(time.Hour + time.Duration(later.Add(1))*time.Millisecond)
					_, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(j *storage.JobRecord) {
						j.Status, j.UpdatedAt, j.QueuedAt = qtype.StatusQueued, at, at
					}, nil)
					switch {
					case err == nil:
						locked(&mu, func() { requeued[j.JobQRN]++ })
					case !errors.Is(err, storage.ErrStatusChanged) && !errors.Is(err, storage.ErrJobNotFound):
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	for w := range 6 {
		wg.Add(1)
		go func() { // racers
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			<-start
			for _, i := range rng.Perm(n)[:n/3] {
				qrn := jobs[i].JobQRN
				for try := 0; try < 1000; try++ {
					err := race(qrn)
					if err == nil {
						locked(&mu, func() { won[qrn]++ })
						break
					}
					if !errors.Is(err, storage.ErrStatusChanged) && !errors.Is(err, storage.ErrJobNotFound) {
						t.Error(err)
						return
					}
					j, err := s.GetJob(ctx, qrn)
					if err != nil || j.Status != qtype.StatusValidating {
						break // gone its way: not QUEUED now
					}
					runtime.Gosched()
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	return jobs, claimed, requeued, won
}

// Cancels (QUEUED → CANCELLING) racing the queueing, claims and requeues
// of the same jobs: each job goes one way, and afterwards the counts and
// queues agree exactly with the statuses.
func testCancelRacesClaim(t *testing.T, s storage.Store) {
	jobs, claimed, requeued, cancelled := queueRace(t, s, 96, func(qrn string) error {
		_, err := s.UpdateJob(ctx, qrn, qtype.StatusQueued, func(j *storage.JobRecord) {
			j.Status, j.UpdatedAt = qtype.StatusCancelling, epoch.Add(2*time.Hour)
		}, nil)
		return err
	})
	if t.Failed() {
		return
	}
	for _, j := range jobs {
		got := mustGet(t, s, j.JobQRN)
		c, r, x := claimed[j.JobQRN], requeued[j.JobQRN], cancelled[j.JobQRN]
		want := qtype.StatusQueued
		switch {
		case x > 1 || c > r+1 || r > c:
			t.Fatalf("job claimed %d times, requeued %d, cancelled %d", c, r, x)
		case x == 1:
			want = qtype.StatusCancelling
		case c > r:
			want = qtype.StatusRunning
		}
		if got.Status != want || got.Attempts != c {
			t.Fatalf("job claimed %d times, requeued %d, cancelled %d: %s with %d attempts", c, r, x, got.Status, got.Attempts)
		}
	}
	queueState(t, s, jobs)
}

// Deletes of QUEUED jobs racing their queueing, claims and requeues: each
// job is deleted or not, and afterwards the lists, counts and queues
// agree exactly with the jobs that are left.
func testDeleteRacesClaim(t *testing.T, s storage.Store) {
	jobs, claimed, requeued, deleted := queueRace(t, s, 96, func(qrn string) error {
		return s.DeleteJob(ctx, qrn, qtype.StatusQueued)
	})
	if t.Failed() {
		return
	}
	left := map[string]int{}
	for _, j := range jobs {
		c, r, d := claimed[j.JobQRN], requeued[j.JobQRN], deleted[j.JobQRN]
		got, err := s.GetJob(ctx, j.JobQRN)
		switch {
		case d > 1 || c > r+1 || r > c:
			t.Fatalf("job claimed %d times, requeued %d, deleted %d", c, r, d)
		case d == 1 && !errors.Is(err, storage.ErrJobNotFound):
			t.Fatalf("deleted job: %v, %v", got, err)
		case d == 0 && err != nil:
			t.Fatal(err)
		case d == 0 && (c > r) != (got.Status == qtype.StatusRunning):
			t.Fatalf("job claimed %d times, requeued %d: %s", c, r, got.Status)
		case d == 0:
			left[j.Owner]++
		}
	}
	for _, o := range []string{"alice", "bob"} {
		if _, n, err := s.ListJobs(ctx, storage.JobFilter{Owner: o, Limit: 1}); err != nil || n != left[o] {
			t.Fatalf("%s lists %d jobs, %v; %d are left", o, n, err, left[o])
		}
	}
	queueState(t, s, jobs)
}

// ClaimJob adds one to Attempts per claim, and only then; a requeue
// keeps the count.
func testAttempts(t *testing.T, s storage.Store) {
	j := newJob("alice", deviceA, 0)
	j.MemoryNeed = 100
	create(t, s, j)
	queue(t, s, j, epoch)
	c := claimOf(deviceA, "alice")
	c.MaxMemory = 10
	if got, err := s.ClaimJob(ctx, c); !errors.Is(err, storage.ErrMemoryShort) || got.Attempts != 0 {
		t.Fatalf("claim short of memory = %+v, %v; want ErrMemoryShort and 0 attempts", got, err)
	}
	for want := 1; want <= 3; want++ {
		got, err := s.ClaimJob(ctx, claimOf(deviceA, "alice"))
		if err != nil || got.Attempts != want {
			t.Fatalf("claim %d = %+v, %v; want %d attempts", want, got, err, want)
		}
		if stored, _ := s.GetJob(ctx, j.JobQRN); stored.Attempts != want || stored.Node != claimNode || got.Node != claimNode {
			t.Fatalf("stored after claim %d: %d attempts, node %q (claim gave %q); want node %q", want, stored.Attempts, stored.Node, got.Node, claimNode)
		}
		// Requeued (a worker's run was cut short): the count stays.
		move(t, s, j.JobQRN, qtype.StatusRunning, qtype.StatusQueued, epoch.Add(time.Duration(want)*time.Minute))
		if stored, _ := s.GetJob(ctx, j.JobQRN); stored.Attempts != want {
			t.Fatalf("stored after requeue %d: %d attempts", want, stored.Attempts)
		}
	}
	k := newJob("alice", deviceB, 1)
	k.Attempts = 5
	create(t, s, k)
	queue(t, s, k, epoch)
	c = claimOf(deviceB, "alice")
	c.Node = "node-2"
	if got, err := s.ClaimJob(ctx, c); err != nil || got.Attempts != 6 || got.Node != "node-2" {
		t.Fatalf("claim of a job with 5 attempts by node-2 = %+v, %v; want 6 attempts and node-2", got, err)
	}
}

// UpdateJob cannot change a job's identity: its QRN, owner, device and
// creation time, which its places in the indexes depend on.
func testIdentityIsFixed(t *testing.T, s storage.Store) {
	j := create(t, s, newJob("alice", deviceA, 0))
	queue(t, s, j, epoch)
	got, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusQueued, func(r *storage.JobRecord) {
		r.JobQRN, r.Owner, r.DeviceQRN = "qbraid:qbraid:sim:qir-sv-abcd-qjob-eeeeeeeeeeeeeeeeeeeeeeee", "mallory", deviceB
		r.TimeStamps.CreatedAt = epoch.Add(24 * time.Hour)
		r.Name = "renamed"
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for what, r := range map[string]*storage.JobRecord{"returned": got, "stored": mustGet(t, s, j.JobQRN)} {
		if r.JobQRN != j.JobQRN || r.Owner != "alice" || r.DeviceQRN != deviceA || !r.TimeStamps.CreatedAt.Equal(j.TimeStamps.CreatedAt) || r.Name != "renamed" {
			t.Fatalf("%s after an update that tried to change identity: %+v", what, r)
		}
	}
	if _, err := s.GetJob(ctx, "qbraid:qbraid:sim:qir-sv-abcd-qjob-eeeeeeeeeeeeeeeeeeeeeeee"); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("a job appeared under the new QRN: %v", err)
	}
	if _, n, _ := s.ListJobs(ctx, storage.JobFilter{Owner: "mallory", Limit: 10}); n != 0 {
		t.Fatal("mallory lists the job")
	}
	if page, n, _ := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Limit: 10}); n != 1 || len(page) != 1 || !page[0].TimeStamps.CreatedAt.Equal(j.TimeStamps.CreatedAt) {
		t.Fatalf("alice lists %d jobs", n)
	}
	if n, _ := s.CountQueued(ctx, deviceB); n != 0 {
		t.Fatalf("the job is queued on device B: %d", n)
	}
	if n, _ := s.CountQueued(ctx, deviceA); n != 1 {
		t.Fatalf("the job left device A's queue: %d", n)
	}
}

func mustGet(t *testing.T, s storage.Store, qrn string) *storage.JobRecord {
	t.Helper()
	j, err := s.GetJob(ctx, qrn)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// nested gives a job maps and slices nested in its tags' neighbours.
func nested(j *storage.JobRecord) {
	j.Metadata = map[string]any{"a": map[string]any{"b": []any{1, map[string]any{"c": "d"}}}}
	j.RuntimeOptions = map[string]any{"opt": []any{map[string]any{"x": 1}}}
	j.Tags = map[string]any{"team": "red"}
}

// scribble changes every map and slice nested in j.
func scribble(j *storage.JobRecord) {
	if j == nil {
		return
	}
	if a, ok := j.Metadata["a"].(map[string]any); ok {
		if b, ok := a["b"].([]any); ok {
			b[0] = 99
			if c, ok := b[1].(map[string]any); ok {
				c["c"] = "scribbled"
			}
		}
		a["new"] = true
	}
	if o, ok := j.RuntimeOptions["opt"].([]any); ok {
		if x, ok := o[0].(map[string]any); ok {
			x["x"] = 99
		}
	}
	j.Tags["team"] = "scribbled"
	j.Metadata["top"] = 1
}

func fingerprint(j *storage.JobRecord) string {
	return fmt.Sprint(j.Metadata, j.RuntimeOptions, j.Tags)
}

// A job created with nested maps is the caller's to change afterwards,
// and every record a method returns is a snapshot: later changes of the
// job (one whose change put the caller's own maps in it, a claim) do not
// show in it.
func testDeepCopies(t *testing.T, s storage.Store) {
	j := newJob("alice", deviceA, 0)
	nested(j)
	j.MemoryNeed = 100
	create(t, s, j)
	want := fingerprint(mustGet(t, s, j.JobQRN))
	if want != fingerprint(j) {
		t.Fatalf("stored %s, created %s", want, fingerprint(j))
	}
	scribble(j)
	if got := fingerprint(mustGet(t, s, j.JobQRN)); got != want {
		t.Fatalf("after changing the created job the stored job changed:\n%s\nwant\n%s", got, want)
	}
	type snapshot struct {
		what string
		rec  *storage.JobRecord
		was  string
	}
	var snaps []snapshot
	took := func(what string, rec *storage.JobRecord) {
		snaps = append(snaps, snapshot{what, rec, fmt.Sprint(*rec)})
	}
	took("GetJob", mustGet(t, s, j.JobQRN))
	mine := &storage.JobRecord{}
	nested(mine)
	got, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusInitializing, func(r *storage.JobRecord) {
		r.Metadata, r.RuntimeOptions = mine.Metadata, mine.RuntimeOptions // maps of the caller's own
		r.Status, r.UpdatedAt, r.QueuedAt = qtype.StatusQueued, epoch, epoch
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	took("UpdateJob", got)
	page, _, _ := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Limit: 10})
	took("ListJobs", page[0])
	page, _, _ = s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Search: "job", Limit: 10})
	took("a filtered ListJobs", page[0])
	list, _ := s.Unfinished(ctx, []qtype.JobStatus{qtype.StatusQueued}, time.Time{}, 10)
	took("Unfinished", list[0])
	c := claimOf(deviceA, "alice")
	c.MaxMemory = 1
	short, err := s.ClaimJob(ctx, c)
	if !errors.Is(err, storage.ErrMemoryShort) {
		t.Fatal(err)
	}
	took("a claim short of memory", short)
	claimed, err := s.ClaimJob(ctx, claimOf(deviceA, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	took("ClaimJob", claimed)
	if _, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(r *storage.JobRecord) {
		r.Status, r.Metadata = qtype.StatusCompleted, map[string]any{"other": true}
	}, nil); err != nil {
		t.Fatal(err)
	}
	for _, sn := range snaps {
		if now := fmt.Sprint(*sn.rec); now != sn.was {
			t.Errorf("the record %s returned changed with the job:\n%s\nwas\n%s", sn.what, now, sn.was)
		}
	}
}

// A result larger than a store's bound fails with ErrTooLarge, naming
// sizes only, and changes nothing.
func testResultTooLarge(t *testing.T, s storage.Store) {
	lim, ok := s.(ResultLimiter)
	if !ok || lim.MaxResultBytes() > 16<<20 {
		testenv.Optional(t, "the store sets no bound on results small enough to test")
	}
	j := create(t, s, newJob("alice", deviceA, 0))
	queue(t, s, j, epoch)
	if _, err := s.ClaimJob(ctx, claimOf(deviceA, "alice")); err != nil {
		t.Fatal(err)
	}
	result := map[string]int{}
	for i := 0; int64(i*40) <= lim.MaxResultBytes(); i++ { // each entry is 40 bytes of JSON or more
		result[fmt.Sprintf("secret%030d", i)] = 1
	}
	_, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(r *storage.JobRecord) { r.Status = qtype.StatusCompleted }, qtype.CountsResult(result))
	if !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("a result over the bound: %v, want ErrTooLarge", err)
	}
	if msg := err.Error(); strings.Contains(msg, "secret") || len(msg) > 300 {
		t.Fatalf("the error carries data: %.400q", msg)
	}
	if got := mustGet(t, s, j.JobQRN); got.Status != qtype.StatusRunning {
		t.Fatalf("the job is %s after a refused result", got.Status)
	}
	if _, err := s.GetResult(ctx, j.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("a refused result was stored: %v", err)
	}
	// A result within the bound still goes.
	if _, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(r *storage.JobRecord) { r.Status = qtype.StatusCompleted }, qtype.CountsResult(map[string]int{"0": 1})); err != nil {
		t.Fatal(err)
	}
}

// Every kind of filter, alone and combined, gives the right total and the
// right jobs on every page.
func testListFilterPages(t *testing.T, s storage.Store) {
	statuses := []qtype.JobStatus{qtype.StatusInitializing, qtype.StatusQueued, qtype.StatusRunning,
		qtype.StatusCompleted, qtype.StatusFailed, qtype.StatusCancelled}
	var all []*storage.JobRecord
	for i := range 48 {
		device := []string{deviceA, deviceB}[i%2]
		j := newJob("alice", device, i/3) // threes share a creation time
		j.Name = []string{"Bell pair", "ghz state", "teleport"}[i%3]
		if i%4 != 3 {
			j.Tags = map[string]any{"team": []string{"red", "blue/green"}[i/2%2], "n": int64(i % 5)}
		}
		if i%6 == 0 {
			j.Tags["ok"] = true
		}
		if i%7 == 0 {
			j.Provider = "partner"
		}
		create(t, s, j)
		if st := statuses[i%len(statuses)]; st != qtype.StatusInitializing {
			j = move(t, s, j.JobQRN, qtype.StatusInitializing, st, epoch.Add(time.Duration(i)*time.Second))
		}
		all = append(all, j)
	}
	create(t, s, newJob("bob", deviceA, 0)) // never listed for alice
	groups := qtype.StatusGroups()
	for _, f := range []storage.JobFilter{
		{},
		{Statuses: []qtype.JobStatus{qtype.StatusFailed}},
		{Statuses: groups["pending"]},
		{Statuses: groups["returned"]},
		{Statuses: []qtype.JobStatus{qtype.StatusQueued, qtype.StatusQueued, qtype.StatusRunning}},
		{Statuses: []qtype.JobStatus{qtype.StatusHold}},
		{Vendor: "aws"},
		{Provider: "qbraid"},
		{Provider: "partner"},
		{Search: "bell"},
		{Search: "SIM:SV1"},
		{Tags: map[string]any{"team": "red"}},
		{Tags: map[string]any{"team": "blue/green"}},
		{Tags: map[string]any{"n": int64(2)}},
		{Tags: map[string]any{"n": 2.0}}, // as JSON decodes it
		{Tags: map[string]any{"n": 2.5}}, // no tag holds it
		{Tags: map[string]any{"n": "2"}}, // a string is not the integer
		{Tags: map[string]any{"ok": true}},
		{Tags: map[string]any{"team": "red", "ok": true}},
		{Tags: map[string]any{"none": "x"}},
		{Vendor: "qbraid", Statuses: groups["pending"]},
		{Provider: "partner", Search: "ghz"},
		{Statuses: []qtype.JobStatus{qtype.StatusCompleted}, Tags: map[string]any{"team": "blue/green"}},
		{Vendor: "aws", Provider: "aws", Search: "tele", Tags: map[string]any{"n": int64(1)}},
	} {
		f.Owner = "alice"
		var want []string
		for _, j := range slices.SortedFunc(slices.Values(all), newestFirst) {
			if f.Matches(j) {
				want = append(want, j.JobQRN)
			}
		}
		for _, limit := range []int{5, 50} {
			for off := 0; off <= len(want)+limit; off += limit {
				f.Offset, f.Limit = off, limit
				page, total, err := s.ListJobs(ctx, f)
				if err != nil {
					t.Fatalf("%+v: %v", f, err)
				}
				lo, hi := min(off, len(want)), min(off+limit, len(want))
				if total != len(want) || !slices.Equal(qrns(page), want[lo:hi]) {
					t.Fatalf("%+v gives %d of %d: %v\nwant %v", f, len(page), total, qrns(page), want[lo:hi])
				}
			}
		}
	}
}

func newestFirst(a, b *storage.JobRecord) int {
	if c := b.TimeStamps.CreatedAt.Compare(a.TimeStamps.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(b.JobQRN, a.JobQRN)
}

// An ExclusiveStore is acquired by one at a time; its release may be
// called twice.
func testExclusive(t *testing.T, s storage.Store) {
	es, ok := s.(storage.ExclusiveStore)
	if !ok {
		testenv.Optional(t, "not an ExclusiveStore")
	}
	release, err := es.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := es.Acquire(); !errors.Is(err, storage.ErrStoreInUse) {
		t.Fatalf("second Acquire: %v, want ErrStoreInUse", err)
	}
	release()
	release()
	again, err := es.Acquire()
	if err != nil {
		t.Fatalf("Acquire after release: %v", err)
	}
	if _, err := es.Acquire(); !errors.Is(err, storage.ErrStoreInUse) {
		t.Fatalf("Acquire while held again: %v, want ErrStoreInUse", err)
	}
	release() // the first release, again: it must not free the second hold
	if _, err := es.Acquire(); !errors.Is(err, storage.ErrStoreInUse) {
		t.Fatalf("an old release freed a new hold: %v", err)
	}
	again()
}
