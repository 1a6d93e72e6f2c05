package notify_test

import (
	"testing"

	"github.com/qjobs/quantum/internal/notify"
)

// TestResumeAfterMissed: a resume from an event before changes were
// missed cannot know them all; one from an event after can.
func TestResumeAfterMissed(t *testing.T) {
	n := notify.New()
	n.Publish("q1", "alice", nil)
	before := n.EventID(n.Current())
	n.Publish("q2", "alice", nil)
	if got, ok := n.Resume("alice", before); !ok || len(got) != 1 || got[0].QRN != "q2" {
		t.Fatalf("resume before anything was missed: %+v, %v; want q2, all known", got, ok)
	}
	atMiss := n.EventID(n.Current())
	n.Missed()
	n.Publish("q3", "alice", nil)
	for _, id := range []string{before, atMiss} {
		if got, ok := n.Resume("alice", id); ok {
			t.Errorf("resume from %s, at or before the miss: %+v, all known; want a reset", id, got)
		}
	}
	after := n.EventID(n.Current())
	n.Publish("q4", "alice", nil)
	if got, ok := n.Resume("alice", after); !ok || len(got) != 1 || got[0].QRN != "q4" {
		t.Fatalf("resume after the miss: %+v, %v; want q4, all known", got, ok)
	}
}
