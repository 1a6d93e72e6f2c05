package badger_test

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/badger"
)

func TestBadgerRefusesBadOptions(t *testing.T) {
	for name, opt := range map[string]badger.Option{
		"gc interval 0":        badger.WithGCInterval(0),
		"gc interval negative": badger.WithGCInterval(-time.Second),
		"nil logger":           badger.WithLogger(nil),
		"scan limit 0":         badger.WithScanLimit(0),
		"scan limit negative":  badger.WithScanLimit(-5),
		"max value 0":          badger.WithMaxValueBytes(0),
		"max value negative":   badger.WithMaxValueBytes(-1),
		"max value huge":       badger.WithMaxValueBytes(1 << 50),
		"nil option":           nil,
	} {
		t.Run(name, func(t *testing.T) {
			b, err := badger.Open(t.TempDir(), opt)
			if err == nil {
				b.Close()
				t.Fatal("Open accepted it")
			}
		})
	}
	// Valid ones open, and a short GC interval runs without harm.
	b := openBadger(t, badger.WithGCInterval(time.Millisecond), badger.WithLogger(zap.NewNop()), badger.WithScanLimit(1), badger.WithMaxValueBytes(1))
	time.Sleep(20 * time.Millisecond)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// job is an INITIALIZING job of owner on the qbraid simulator.
func job(owner string, i int) *storage.JobRecord {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	return &storage.JobRecord{Job: quantum.Job{JobQRN: fmt.Sprintf("qbraid:qbraid:sim:qir-sv-abcd-qjob-%024x", i), DeviceQRN: "qbraid:qbraid:sim:qir-sv",
		Name: fmt.Sprintf("job %d", i), Status: quantum.StatusInitializing, Vendor: "qbraid", Provider: "qbraid", Shots: 100,
		TimeStamps: qtype.TimeStamps{CreatedAt: at}, Tags: map[string]any{}, RuntimeOptions: map[string]any{}, Metadata: map[string]any{}},
		Owner: owner, UpdatedAt: at}
}

// bigResult is a result of about size bytes of JSON.
func bigResult(size int) map[string]int {
	r := map[string]int{}
	for i := 0; len(r)*210 < size; i++ {
		r[fmt.Sprintf("%0200b", i)] = i
	}
	return r
}

func complete(t *testing.T, s storage.Store, qrn string, result map[string]int) error {
	t.Helper()
	_, err := s.UpdateJob(ctx, qrn, quantum.StatusRunning, func(j *storage.JobRecord) { j.Status = quantum.StatusCompleted }, qtype.CountsResult(result))
	return err
}

func running(t *testing.T, s storage.Store, j *storage.JobRecord) {
	t.Helper()
	if err := s.CreateJob(ctx, j, quantum.Program{Format: "qasm3", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateJob(ctx, j.JobQRN, quantum.StatusInitializing, func(j *storage.JobRecord) { j.Status = quantum.StatusRunning }, nil); err != nil {
		t.Fatal(err)
	}
}

// Results of 2 MB and 20 MB are stored and read back whole, on disk and
// in memory (where badger's values stop at 1 MiB); so is a 2 MB program.
func TestBadgerLargeValues(t *testing.T) {
	for mode, opts := range map[string][]badger.Option{
		"disk":   {badger.WithSyncWrites(false)},
		"memory": {badger.WithInMemory()},
	} {
		t.Run(mode, func(t *testing.T) {
			b := openBadger(t, opts...)
			for i, size := range []int{2 << 20, 20 << 20} {
				j := job("alice", i)
				running(t, b, j)
				want := bigResult(size)
				if err := complete(t, b, j.JobQRN, want); err != nil {
					t.Fatalf("a result of %d bytes: %v", size, err)
				}
				got, err := b.GetResult(ctx, j.JobQRN)
				if err != nil || !maps.Equal(got.Counts, want) {
					t.Fatalf("result of %d bytes read back: %d entries of %d, %v", size, len(got.Counts), len(want), err)
				}
			}
			p := quantum.Program{Format: "qasm3", Data: strings.Repeat("h q[0];\n", 2<<20/8)}
			j := job("alice", 9)
			if err := b.CreateJob(ctx, j, p); err != nil {
				t.Fatalf("a program of 2 MB: %v", err)
			}
			if got, err := b.GetProgram(ctx, j.JobQRN); err != nil || *got != p {
				t.Fatalf("program read back: %v", err)
			}
			// A job deleted takes its chunks with it.
			for i := range 2 {
				if err := b.DeleteJob(ctx, job("alice", i).JobQRN, quantum.StatusCompleted); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.UpdateJob(ctx, j.JobQRN, quantum.StatusInitializing, func(j *storage.JobRecord) { j.Status = quantum.StatusFailed }, nil); err != nil {
				t.Fatal(err)
			}
			if err := b.DeleteJob(ctx, j.JobQRN, quantum.StatusFailed); err != nil {
				t.Fatal(err)
			}
			if keys := b.KeysForTest("c/"); len(keys) != 0 {
				t.Fatalf("%d chunks outlive their jobs", len(keys))
			}
		})
	}
}

// A change that does not commit leaves no chunks behind.
func TestBadgerChunksOfFailedChanges(t *testing.T) {
	b := openBadger(t, badger.WithInMemory())
	j := job("alice", 0)
	running(t, b, j)
	result := qtype.CountsResult(bigResult(2 << 20))
	if _, err := b.UpdateJob(ctx, j.JobQRN, quantum.StatusQueued, func(*storage.JobRecord) {}, result); !errors.Is(err, storage.ErrStatusChanged) {
		t.Fatal(err)
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = b.UpdateJob(ctx, j.JobQRN, quantum.StatusRunning, func(*storage.JobRecord) { panic("boom") }, result)
	}()
	k := job("alice", 1)
	big := quantum.Program{Format: "qasm3", Data: strings.Repeat("x", 2<<20)}
	if err := b.CreateJob(ctx, k, big); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateJob(ctx, k, big); !errors.Is(err, storage.ErrJobExists) {
		t.Fatal(err)
	}
	if keys := b.KeysForTest("c/p/"); len(keys) != 5 { // the first create's 2 MiB and a little, in 512 KiB chunks
		t.Fatalf("%d program chunks, want the 5 of the job that exists", len(keys))
	}
	if keys := b.KeysForTest("c/r/"); len(keys) != 0 {
		t.Fatalf("%d result chunks of changes that did not commit", len(keys))
	}
	if _, err := b.GetResult(ctx, j.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatal(err)
	}
}

// Values over the store's limits give ErrTooLarge with sizes only, and
// change nothing.
func TestBadgerTooLarge(t *testing.T) {
	const secret = "SECRET-DATA"
	b := openBadger(t, badger.WithInMemory(), badger.WithMaxValueBytes(1<<20))
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, storage.ErrTooLarge) {
			t.Fatalf("%s: %v, want ErrTooLarge", what, err)
		}
		if msg := err.Error(); strings.Contains(msg, secret) || len(msg) > 300 {
			t.Fatalf("%s: the error carries data: %.400q", what, msg)
		}
	}
	j := job("alice", 0)
	j.Metadata = map[string]any{"blob": strings.Repeat(secret, 200_000)} // 2.2 MB, over a record's 1 MiB in memory
	check("a record too large", b.CreateJob(ctx, j, quantum.Program{}))
	j = job("alice", 1)
	check("a program too large", b.CreateJob(ctx, j, quantum.Program{Format: "qasm3", Data: strings.Repeat(secret, 100_000)}))
	j = job("alice", 2)
	j.JobQRN = strings.Repeat("q", 2000)
	check("a QRN too long", b.CreateJob(ctx, j, quantum.Program{}))
	if _, total, _ := b.ListJobs(ctx, storage.JobFilter{Owner: "alice", Limit: 10}); total != 0 {
		t.Fatalf("refused creates left %d jobs", total)
	}
	j = job("alice", 3)
	running(t, b, j)
	_, err := b.UpdateJob(ctx, j.JobQRN, quantum.StatusRunning, func(r *storage.JobRecord) {
		r.Metadata = map[string]any{"blob": strings.Repeat(secret, 200_000)}
	}, nil)
	check("an update too large", err)
	check("a result too large", complete(t, b, j.JobQRN, map[string]int{strings.Repeat(secret, 100_000): 1}))
	if got, _ := b.GetJob(ctx, j.JobQRN); got.Status != quantum.StatusRunning || len(got.Metadata) != 0 {
		t.Fatalf("refused updates changed the job: %s", got.Status)
	}
}

func TestBadgerScanLimit(t *testing.T) {
	b := openBadger(t, badger.WithInMemory(), badger.WithScanLimit(10))
	for i := range 30 {
		j := job("alice", i)
		j.Tags = map[string]any{"i": int64(i), "even": i%2 == 0}
		if i%10 == 0 {
			j.Vendor, j.Provider, j.DeviceQRN = "aws", "aws", "aws:aws:sim:sv1"
		}
		if err := b.CreateJob(ctx, j, quantum.Program{}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := b.UpdateJob(ctx, j.JobQRN, quantum.StatusInitializing, func(j *storage.JobRecord) { j.Status = quantum.StatusFailed }, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		f     storage.JobFilter
		total int // -1: over the scan limit
	}{
		{storage.JobFilter{}, 30},
		{storage.JobFilter{Search: "job 1"}, -1},                                          // 30 to read
		{storage.JobFilter{Statuses: qtype.StatusGroups()["pending"]}, 20},                // merged status index
		{storage.JobFilter{Statuses: qtype.StatusGroups()["returned"]}, 10},               //
		{storage.JobFilter{Vendor: "aws", Search: "job"}, 3},                              // 3 to read
		{storage.JobFilter{Provider: "aws", Tags: map[string]any{"even": true}}, 3},       // 3 to read
		{storage.JobFilter{Tags: map[string]any{"even": true}}, 15},                       // the tag's keys
		{storage.JobFilter{Tags: map[string]any{"even": true, "i": int64(4)}}, 1},         // the tag i=4: 1 to read
		{storage.JobFilter{Statuses: qtype.StatusGroups()["pending"], Search: "job"}, -1}, // 20 to read
		{storage.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusFailed}, Search: "job 2"}, 3},
	} {
		f := tc.f
		f.Owner, f.Limit = "alice", 5
		_, total, err := b.ListJobs(ctx, f)
		switch {
		case tc.total < 0:
			if !errors.Is(err, storage.ErrScanLimit) || !strings.Contains(err.Error(), "more than the 10") || strings.Contains(err.Error(), "job") && f.Search == "job 1" && strings.Contains(err.Error(), "job 1") {
				t.Fatalf("%+v: %v, want ErrScanLimit naming the limit, without the search", f, err)
			}
		case err != nil || total != tc.total:
			t.Fatalf("%+v: %d, %v; want %d", f, total, err, tc.total)
		}
	}
}

// A list picks the index with the fewest keys: a tag held by one job
// among many reads a few keys, not the owner's.
func TestBadgerListPicksIndex(t *testing.T) {
	b := openBadger(t, badger.WithInMemory())
	for i := range 500 {
		j := job("alice", i)
		j.Tags = map[string]any{"i": int64(i), "all": "yes"}
		if err := b.CreateJob(ctx, j, quantum.Program{}); err != nil {
			t.Fatal(err)
		}
	}
	var steps atomic.Int64
	b.SetFaultHookForTest(func(m string) {
		if m == "ListJobs" {
			steps.Add(1)
		}
	})
	for _, tc := range []struct {
		f        storage.JobFilter
		total    int
		maxSteps int64
	}{
		{storage.JobFilter{Tags: map[string]any{"i": int64(250)}}, 1, 3},
		{storage.JobFilter{Tags: map[string]any{"all": "yes", "i": int64(7)}}, 1, 3},
		{storage.JobFilter{Tags: map[string]any{"i": int64(7)}, Search: "job 7"}, 1, 3},
		{storage.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusFailed}, Tags: map[string]any{"all": "yes"}}, 0, 2},
		{storage.JobFilter{Tags: map[string]any{"all": "yes"}}, 500, 12},
		{storage.JobFilter{Provider: "qbraid"}, 500, 12},
	} {
		steps.Store(0)
		f := tc.f
		f.Owner, f.Limit = "alice", 10
		page, total, err := b.ListJobs(ctx, f)
		if err != nil || total != tc.total || len(page) != min(total, 10) {
			t.Fatalf("%+v: %d of %d, %v", f, len(page), total, err)
		}
		if n := steps.Load(); n > tc.maxSteps {
			t.Fatalf("%+v walked %d keys, want at most %d", f, n, tc.maxSteps)
		}
	}
}

// A database written by schema version 1 opens: the provider and tag
// indexes are added, keys with segments version 2 escapes are moved, and
// everything lists, counts and queues as before.
func TestBadgerMigratesV1(t *testing.T) {
	dir := t.TempDir()
	var jobs []badger.V1Job
	for i := range 2500 { // more than one batch
		owner := "alice"
		if i%2 == 1 {
			owner = "team/bob" // a '/' that version 1 wrote raw
		}
		j := job(owner, i)
		j.Tags = map[string]any{"team": []string{"red", "blue/green"}[i%2], "n": int64(i % 3)}
		if i%5 == 0 {
			j.Provider = "partner"
		}
		var result map[string]int
		switch i % 4 {
		case 0:
			j.Status, j.QueuedAt = quantum.StatusQueued, j.UpdatedAt
		case 1:
			j.Status, result = quantum.StatusCompleted, map[string]int{"01": i}
		}
		jobs = append(jobs, badger.V1Job{Job: j, Program: quantum.Program{Format: "qasm3", Data: fmt.Sprint(i)}, Result: result})
	}
	if err := badger.WriteV1ForTest(dir, jobs); err != nil {
		t.Fatal(err)
	}
	for round := range 2 { // the migration, then a plain open
		b, err := badger.Open(dir, badger.WithSyncWrites(false))
		if err != nil {
			t.Fatalf("open %d: %v", round, err)
		}
		if keys := b.KeysForTest("o/team/"); len(keys) != 0 {
			t.Fatalf("%d keys of version 1 with a raw '/' are left", len(keys))
		}
		if keys := b.KeysForTest("v"); len(keys) != 1 || keys[0] != "v" {
			t.Fatalf("version key: %v", keys)
		}
		for _, tc := range []struct {
			f    storage.JobFilter
			want func(j *storage.JobRecord) bool
		}{
			{storage.JobFilter{Owner: "alice"}, func(j *storage.JobRecord) bool { return j.Owner == "alice" }},
			{storage.JobFilter{Owner: "team/bob"}, func(j *storage.JobRecord) bool { return j.Owner == "team/bob" }},
			{storage.JobFilter{Owner: "team/bob", Tags: map[string]any{"team": "blue/green", "n": int64(2)}}, func(j *storage.JobRecord) bool {
				return j.Owner == "team/bob" && j.Tags["n"] == int64(2)
			}},
			{storage.JobFilter{Owner: "alice", Provider: "partner"}, func(j *storage.JobRecord) bool { return j.Owner == "alice" && j.Provider == "partner" }},
			{storage.JobFilter{Owner: "team/bob", Statuses: []quantum.JobStatus{quantum.StatusCompleted}}, func(j *storage.JobRecord) bool {
				return j.Owner == "team/bob" && j.Status == quantum.StatusCompleted
			}},
		} {
			want := 0
			for _, j := range jobs {
				if tc.want(j.Job) {
					want++
				}
			}
			f := tc.f
			f.Limit = 3
			page, total, err := b.ListJobs(ctx, f)
			if err != nil || total != want || len(page) != min(3, want) {
				t.Fatalf("open %d, %+v: %d of %d, %v; want %d", round, f, len(page), total, err, want)
			}
		}
		if n, _ := b.CountQueued(ctx, "qbraid:qbraid:sim:qir-sv"); n != 625-round {
			t.Fatalf("open %d: CountQueued = %d, want %d", round, n, 625-round)
		}
		if pos, _ := b.QueuePosition(ctx, jobs[8].Job.JobQRN); pos != 3-round {
			t.Fatalf("open %d: QueuePosition of the third queued job = %d", round, pos)
		}
		if r, err := b.GetResult(ctx, jobs[5].Job.JobQRN); err != nil || r.Counts["01"] != 5 {
			t.Fatalf("result after migration: %v, %v", r, err)
		}
		if j, err := b.ClaimJob(ctx, storage.Claim{Queue: storage.Queue{Device: "qbraid:qbraid:sim:qir-sv", Owner: "alice"}, MaxMemory: 1}); err != nil || j.JobQRN != jobs[round*4].Job.JobQRN {
			t.Fatalf("claim after open %d: %v, %v", round, j, err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		jobs[round*4].Job.Status = quantum.StatusRunning
	}
}
