package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/postgres"
)

// TestCreditsAcrossNodes: three nodes on one database create jobs for one
// user at once; each node's own lock on the user serialises only its own
// creates, so the database's check is what keeps the account from being
// overdrawn. Exactly the jobs the balance covers are stored; their
// cancels, on whichever node runs them, give it all back.
func TestCreditsAcrossNodes(t *testing.T) {
	dsn := pgtest.DSN(t)
	if _, err := postgres.Open(context.Background(), dsn); err != nil { // migrate once, up front
		t.Fatal(err)
	}
	const held = "qbraid:qbraid:sim:held" // 1 credit a job, runs until cancelled
	var nodes []*quantum.Service
	var st *postgres.Store
	var user quantum.User
	for i := range 3 {
		var err error
		if st, err = postgres.Open(context.Background(), dsn); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close) // after the Service's Close, registered before it
		svc, u := quantumtest.NewServiceOn(t, st, quantum.WithNode(fmt.Sprintf("node-%d", i)), quantum.WithCredits(true),
			quantum.WithWorkers(2), quantum.WithLease(nodeLease), quantum.WithMaxActiveJobsPerUser(10_000))
		d := quantumtest.Device(held)
		d.Pricing = quantum.Pricing{PerTask: 1}
		if err := svc.RegisterDevice(d, &quantumtest.FakeBackend{Block: true}); err != nil {
			t.Fatal(err)
		}
		nodes, user = append(nodes, svc), u
	}
	ctx := context.Background()
	if _, err := nodes[0].GrantCredits(ctx, user, 10, "test"); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var stored []string
	refused := 0
	var wg sync.WaitGroup
	for _, svc := range nodes {
		for range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, err := svc.CreateJob(ctx, user, quantum.JobRequest{DeviceQRN: held, Shots: 1,
					Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\nqreg q[1];\n"}})
				mu.Lock()
				defer mu.Unlock()
				switch code := quantum.ErrorCode(err); code {
				case "":
					stored = append(stored, j.JobQRN)
				case quantum.EINSUFFICIENTCREDITS:
					refused++
				default:
					t.Errorf("create: %v", err)
				}
			}()
		}
	}
	wg.Wait()
	if len(stored) != 10 || refused != 26 {
		t.Fatalf("%d jobs stored and %d refused on three nodes, want 10 and 26", len(stored), refused)
	}
	if a, err := st.Credits(ctx, user.ID); err != nil || a != (storage.CreditAccount{Balance: 10e6, Reserved: 10e6, Entries: 11}) {
		t.Fatalf("account after the creates: %+v, %v", a, err)
	}
	for i, qrn := range stored {
		if _, err := nodes[i%3].CancelJob(ctx, user, qrn); err != nil {
			t.Fatal(err)
		}
	}
	for i, qrn := range stored {
		if j := quantumtest.WaitForStatus(t, nodes[(i+1)%3], user, qrn, 30*time.Second, quantum.StatusCancelled); j.Cost != 0 {
			t.Fatalf("cancelled job %s cost %v", qrn, j.Cost)
		}
	}
	if a, err := st.Credits(ctx, user.ID); err != nil || a != (storage.CreditAccount{Balance: 10e6, Entries: 21}) {
		t.Fatalf("account after the cancels: %+v, %v", a, err)
	}
}
