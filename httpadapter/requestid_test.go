package httpadapter_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/qjobs/quantum/httpadapter"
)

// TestRequestIDsAreRandomUUIDs checks that request ids are what they were
// when uuid.NewString made them, and all different, across several refills
// of the random bytes and from several goroutines at once.
func TestRequestIDsAreRandomUUIDs(t *testing.T) {
	const goroutines, each = 4, 1000
	ids := make([][]string, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range each {
				ids[g] = append(ids[g], httpadapter.RequestID())
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, list := range ids {
		for _, id := range list {
			u, err := uuid.Parse(id)
			switch {
			case err != nil:
				t.Fatalf("%q: %v", id, err)
			case u.String() != id:
				t.Fatalf("%q is written %q as a UUID", id, u.String())
			case u.Version() != 4 || u.Variant() != uuid.RFC4122:
				t.Fatalf("%q: version %d, variant %v", id, u.Version(), u.Variant())
			case seen[id]:
				t.Fatalf("%q twice", id)
			}
			seen[id] = true
		}
	}
}
