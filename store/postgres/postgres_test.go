package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/store/postgres"
	"github.com/qjobs/quantum/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func open(t testing.TB, opts ...postgres.Option) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), pgtest.DSN(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) quantum.Store { return open(t, postgres.WithMaxValueBytes(1<<20)) })
}

// The feed announces a new job and each change of status, from another
// pool (another node), also after its connection has idled through
// several liveness checks.
func TestChangeFeed(t *testing.T) {
	defer postgres.SetFeedPing(50 * time.Millisecond)()
	dsn := pgtest.DSN(t)
	a, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan quantum.Change, 16)
	done := make(chan error, 1)
	go func() { done <- a.WatchChanges(ctx, func(c quantum.Change) { changes <- c }) }()
	next := func() quantum.Change {
		t.Helper()
		select {
		case c := <-changes:
			return c
		case err := <-done:
			t.Fatalf("the feed stopped: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("no change within 10 s")
		}
		return quantum.Change{}
	}
	if c := next(); c != (quantum.Change{}) {
		t.Fatalf("first change = %+v, want the zero Change that says the feed listens", c)
	}
	time.Sleep(300 * time.Millisecond) // idle through several pings: the point of the test

	j := &quantum.JobRecord{Job: quantum.Job{JobQRN: "dev-abcd-qjob-1", DeviceQRN: "dev", Status: quantum.StatusInitializing,
		TimeStamps: quantum.TimeStamps{CreatedAt: time.Now()}}, Owner: "alice", UpdatedAt: time.Now()}
	if err := b.CreateJob(context.Background(), j, quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	want := quantum.Change{JobQRN: j.JobQRN, DeviceQRN: "dev", Owner: "alice", Status: quantum.StatusInitializing}
	if c := next(); c != want {
		t.Fatalf("after create: %+v, want %+v", c, want)
	}
	// A change that keeps the status is no news; one that moves it is.
	if _, err := b.UpdateJob(context.Background(), j.JobQRN, quantum.StatusInitializing, func(r *quantum.JobRecord) { r.Name = "renamed" }, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.UpdateJob(context.Background(), j.JobQRN, quantum.StatusInitializing, func(r *quantum.JobRecord) { r.Status = quantum.StatusValidating }, nil); err != nil {
		t.Fatal(err)
	}
	want.Status = quantum.StatusValidating
	if c := next(); c != want {
		t.Fatalf("after a move: %+v, want %+v", c, want)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WatchChanges after cancel: %v", err)
	}
}
