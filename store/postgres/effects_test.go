package postgres

import (
	"fmt"
	"strings"
	"testing"
)

// TestFollowKeysInStatements: the statements try the keys that a node
// following every change locks.
func TestFollowKeysInStatements(t *testing.T) {
	want := fmt.Sprintf("pg_try_advisory_xact_lock(%d, pg_backend_pid() %% %d)", followClass, followKeys)
	if !strings.Contains(moveEffects, want) {
		t.Errorf("moveEffects does not try %s", want)
	}
}
