package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// testControls: a ControlStore keeps each device's controls and their
// version, counts injected failures down exactly under concurrent takes,
// resets, keeps API keys, and its claims leave the jobs of a device held,
// OFFLINE or UNAVAILABLE in the queue.
func testControls(t *testing.T, s storage.Store) {
	cs, ok := s.(storage.ControlStore)
	if !ok {
		testenv.Optional(t, "not a storage.ControlStore")
	}
	// Jobs queued before the devices' controls change.
	a := create(t, s, newJob("alice", deviceA, 0))
	queue(t, s, a, epoch)
	b := create(t, s, newJob("alice", deviceB, 1))
	queue(t, s, b, epoch)
	all, err := cs.Controls(ctx)
	if err != nil || len(all.Devices) != 0 {
		t.Fatalf("controls of a new store: %+v (%v)", all, err)
	}
	msg := "maintenance"
	wait := 30
	got, err := cs.UpdateControl(ctx, deviceA, func(c *storage.DeviceControl) {
		if c.Device != deviceA || c.Status != "" {
			t.Errorf("a device without controls: %+v", c)
		}
		c.Status, c.StatusMsg, c.AvgQueueTime, c.Latency = qtype.DeviceOffline, &msg, &wait, 250*time.Millisecond
	})
	want := storage.DeviceControl{Device: deviceA, Status: qtype.DeviceOffline, StatusMsg: &msg, AvgQueueTime: &wait, Latency: 250 * time.Millisecond}
	if err != nil || !sameControl(got, want) {
		t.Fatalf("UpdateControl: %+v (%v), want %+v", got, err, want)
	}
	after, err := cs.Controls(ctx)
	if err != nil || after.Version <= all.Version || !sameControl(after.Devices[deviceA], want) || len(after.Devices) != 1 {
		t.Fatalf("controls after a change: %+v (%v)", after, err)
	}

	// Injected failures: exactly as many takes succeed as there were, of
	// concurrent ones.
	if _, err := cs.UpdateControl(ctx, deviceB, func(c *storage.DeviceControl) {
		c.Status, c.Failures, c.FailMessage = qtype.DeviceOnline, 5, "drifted"
	}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	taken := 0
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, ok, err := cs.TakeFailure(ctx, deviceB)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				if m != "drifted" {
					t.Errorf("message %q", m)
				}
				locked(&mu, func() { taken++ })
			}
		}()
	}
	wg.Wait()
	if taken != 5 {
		t.Fatalf("%d failures taken of 5", taken)
	}
	if _, ok, err := cs.TakeFailure(ctx, "aws:aws:sim:none"); ok || err != nil {
		t.Fatalf("a device without controls gave a failure (%v)", err)
	}

	// No job is stored for a device OFFLINE.
	if err := s.CreateJob(ctx, newJob("alice", deviceA, 2), program); !errors.Is(err, storage.ErrDeviceNotOnline) {
		t.Fatalf("a job created on a device OFFLINE: %v", err)
	}
	// Claims leave a held or OFFLINE device's jobs queued.
	if _, err := cs.UpdateControl(ctx, deviceB, func(c *storage.DeviceControl) { c.Held = true }); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{deviceA, deviceB} {
		if j, err := s.ClaimJob(ctx, claimOf(d, "alice")); !errors.Is(err, storage.ErrNoJob) {
			t.Fatalf("a claim of a job of %s, which is OFFLINE or held: %v (%v)", d, j, err)
		}
	}
	if bc, ok := s.(storage.BatchClaimer); ok {
		got, err := bc.ClaimJobs(ctx, batchOf(4, deviceA, deviceB))
		if err != nil || len(got.Jobs) != 0 {
			t.Fatalf("a batch claim took %d jobs of devices OFFLINE or held (%v)", len(got.Jobs), err)
		}
	}
	if _, err := cs.UpdateControl(ctx, deviceB, func(c *storage.DeviceControl) { c.Held = false }); err != nil {
		t.Fatal(err)
	}
	now, _ := cs.Controls(ctx)
	if bc, ok := s.(storage.BatchClaimer); ok {
		got, err := bc.ClaimJobs(ctx, batchOf(4, deviceA, deviceB))
		if err != nil || len(got.Jobs) != 1 || got.Jobs[0].Job.JobQRN != b.JobQRN || got.ControlsVersion != now.Version {
			t.Fatalf("a batch claim once released: %+v (%v), want %s with version %d", got, err, b.JobQRN, now.Version)
		}
	} else if j, err := s.ClaimJob(ctx, claimOf(deviceB, "alice")); err != nil || j.JobQRN != b.JobQRN {
		t.Fatalf("a claim once released: %v (%v)", j, err)
	}

	if err := cs.ResetControls(ctx); err != nil {
		t.Fatal(err)
	}
	reset, err := cs.Controls(ctx)
	if err != nil || len(reset.Devices) != 0 || reset.Version <= now.Version {
		t.Fatalf("controls after a reset: %+v (%v)", reset, err)
	}
	if j, err := s.ClaimJob(ctx, claimOf(deviceA, "alice")); err != nil || j.JobQRN != a.JobQRN {
		t.Fatalf("a claim after a reset: %v (%v)", j, err)
	}

	// API keys.
	k := storage.APIKey{Hash: [32]byte{1, 2, 3}, UserID: "u1", OrganizationUserID: "ou1", OrganizationID: "o1", Name: "dave", CreatedAt: epoch}
	if err := cs.AddAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := cs.AddAPIKey(ctx, k); !errors.Is(err, storage.ErrKeyExists) {
		t.Fatalf("a key added twice: %v", err)
	}
	if got, err := cs.APIKeyByHash(ctx, k.Hash); err != nil || got != k {
		t.Fatalf("APIKeyByHash: %+v (%v)", got, err)
	}
	if got, err := cs.APIKeyByUser(ctx, "u1"); err != nil || got != k {
		t.Fatalf("APIKeyByUser: %+v (%v)", got, err)
	}
	if _, err := cs.APIKeyByHash(ctx, [32]byte{9}); !errors.Is(err, storage.ErrKeyNotFound) {
		t.Fatalf("an unknown hash: %v", err)
	}
	if _, err := cs.APIKeyByUser(ctx, "nobody"); !errors.Is(err, storage.ErrKeyNotFound) {
		t.Fatalf("an unknown user: %v", err)
	}
}

func sameControl(a, b storage.DeviceControl) bool {
	eq := func(x, y *string) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	eqi := func(x, y *int) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return a.Device == b.Device && a.Status == b.Status && eq(a.StatusMsg, b.StatusMsg) && eq(a.NextAvailable, b.NextAvailable) &&
		eqi(a.AvgQueueTime, b.AvgQueueTime) && a.Latency == b.Latency && a.Held == b.Held && a.Failures == b.Failures && a.FailMessage == b.FailMessage
}
