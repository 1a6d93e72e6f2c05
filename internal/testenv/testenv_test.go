package testenv_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qjobs/quantum/internal/testenv"
)

// recorder is a testing.TB that notes a skip or a failure instead of
// ending the test that uses it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Skip(args ...any)          { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...) }

func TestSkips(t *testing.T) {
	for _, tc := range []struct {
		name, ci     string
		skip         func(testing.TB, string)
		skips, fails bool
	}{
		{"Skip outside CI", "", testenv.Skip, true, false},
		{"Skip with CI=false", "false", testenv.Skip, true, false},
		{"Skip under CI=true", "true", testenv.Skip, false, true},
		{"Optional outside CI", "", testenv.Optional, true, false},
		{"Optional under CI=true", "true", testenv.Optional, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			r := &recorder{TB: t}
			tc.skip(r, "no widget installed")
			if got := r.skipped != ""; got != tc.skips {
				t.Errorf("skipped %v (%q), want %v", got, r.skipped, tc.skips)
			}
			if got := r.failed != ""; got != tc.fails {
				t.Errorf("failed %v (%q), want %v", got, r.failed, tc.fails)
			}
			if msg := r.skipped + r.failed; !strings.Contains(msg, "no widget installed") {
				t.Errorf("the message %q does not say why", msg)
			}
		})
	}
}
