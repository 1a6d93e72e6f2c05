package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/postgres"
)

func TestParseChanges(t *testing.T) {
	for _, tc := range []struct {
		name, payload string
		want          []storage.Change
	}{
		{"one job", `{"jobs":[["q","d","o","QUEUED"]]}`,
			[]storage.Change{{JobQRN: "q", DeviceQRN: "d", Owner: "o", Status: quantum.StatusQueued}}},
		{"two jobs", `{"jobs":[["q1","d","o","RUNNING"],["q2","d","p","COMPLETED"]]}`, []storage.Change{
			{JobQRN: "q1", DeviceQRN: "d", Owner: "o", Status: quantum.StatusRunning},
			{JobQRN: "q2", DeviceQRN: "d", Owner: "p", Status: quantum.StatusCompleted}}},
		{"a change too long to send", `{"jobs":[null,["q","d","o","QUEUED"]]}`,
			[]storage.Change{{}, {JobQRN: "q", DeviceQRN: "d", Owner: "o", Status: quantum.StatusQueued}}},
		{"an entry of the wrong length", `{"jobs":[["q","d","o"]]}`, []storage.Change{{}}},
		{"the controls", `{"controls":7}`, []storage.Change{{Controls: true}}},
		{"not JSON", `qrn`, nil},
		{"another shape", `{"jobs":{"q":1}}`, nil},
		{"none", `{}`, []storage.Change{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := postgres.ParseChanges(tc.payload)
			if len(got) != len(tc.want) {
				t.Fatalf("ParseChanges(%s) = %+v, want %+v", tc.payload, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("ParseChanges(%s)[%d] = %+v, want %+v", tc.payload, i, got[i], tc.want[i])
				}
			}
		})
	}
}

// A statement that moves many jobs notifies the nodes in a few
// notifications, each under PostgreSQL's bound on a payload, that carry
// every change; a change too long for one goes as null.
func TestNotificationsPerStatement(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "LISTEN quantum_job_changes"); err != nil {
		t.Fatal(err)
	}
	if err := postgres.LockFollowKeys(ctx, conn); err != nil { // every change: RUNNING too
		t.Fatal(err)
	}
	// next returns the next notification's payload, checked for size and
	// shape.
	next := func() []json.RawMessage {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		n, err := conn.WaitForNotification(wctx)
		if err != nil {
			t.Fatalf("no notification: %v", err)
		}
		if len(n.Payload) >= 8000 {
			t.Fatalf("a payload of %d bytes", len(n.Payload))
		}
		var p struct{ Jobs []json.RawMessage }
		if err := json.Unmarshal([]byte(n.Payload), &p); err != nil || len(p.Jobs) == 0 {
			t.Fatalf("payload %.200s: %v", n.Payload, err)
		}
		return p.Jobs
	}

	const jobs, device = 256, "dev"
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pad := strings.Repeat("x", 200) // about 250 bytes a change: many notifications
	for i := range jobs {
		j := &storage.JobRecord{Job: quantum.Job{JobQRN: fmt.Sprintf("dev-%s-qjob-%03d", pad, i), DeviceQRN: device,
			Status: quantum.StatusQueued, TimeStamps: qtype.TimeStamps{CreatedAt: at}}, Owner: "alice", UpdatedAt: at}
		if err := s.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
			t.Fatal(err)
		}
		if got := next(); len(got) != 1 {
			t.Fatalf("a create notified %d changes", len(got))
		}
	}

	claimed, err := s.ClaimJobs(ctx, storage.BatchClaim{Max: jobs, Devices: []string{device}, MaxMemory: math.MaxInt64,
		Now: at.Add(time.Second), LeaseUntil: at.Add(time.Hour), Node: "n"})
	if err != nil || len(claimed.Jobs) != jobs {
		t.Fatalf("claimed %d jobs, %v; want %d", len(claimed.Jobs), err, jobs)
	}
	seen, notifications := map[string]bool{}, 0
	for len(seen) < jobs {
		notifications++
		for _, raw := range next() {
			var c []string
			if err := json.Unmarshal(raw, &c); err != nil || len(c) != 4 || c[1] != device || c[2] != "alice" || c[3] != "RUNNING" {
				t.Fatalf("change %s: %v", raw, err)
			}
			if seen[c[0]] {
				t.Fatalf("%s notified twice", c[0])
			}
			seen[c[0]] = true
		}
	}
	// 256 changes of about 250 bytes: 64 kB, at least 9 payloads of at
	// most 7.8 kB, and far fewer than a notification a job.
	if notifications < 9 || notifications > 20 {
		t.Fatalf("%d notifications for one statement's %d changes", notifications, jobs)
	}

	// Identifiers of 1 KiB that JSON escapes to twice their length: the
	// change cannot be sent whole, and a listener learns that it missed
	// one.
	quoted := strings.Repeat(`"`, 1000)
	j := &storage.JobRecord{Job: quantum.Job{JobQRN: "q" + quoted[1:], DeviceQRN: "d" + quoted[1:],
		Status: quantum.StatusQueued, TimeStamps: qtype.TimeStamps{CreatedAt: at}}, Owner: "o" + quoted[1:], UpdatedAt: at}
	if err := s.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	if got := next(); len(got) != 1 || string(got[0]) != "null" {
		t.Fatalf("a change of 6 kB notified as %.100s", got)
	}
}
