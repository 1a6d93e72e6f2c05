// Package testenv decides what a test does when it cannot run here. A
// skipped test is a test that did not run, so the module allows two kinds
// of skip, and a test of the root package (optional_test.go) checks that
// no test skips any other way:
//
//   - Optional: a test that runs only where it means something (not in
//     -short, not under the race detector, not without the hardware it
//     checks). Each is listed, with why, under "Optional tests" in the
//     README; CI skips it too.
//   - Skip: a test whose prerequisite is missing (PostgreSQL's server
//     binaries, say). It is skipped on a developer's machine, and fails
//     under CI=true, where a missing prerequisite is a broken setup that
//     a skip would hide.
package testenv

import (
	"os"
	"testing"
)

// InCI reports whether the tests run in CI: the environment variable CI
// is "true", as CI services set it and .ci/run does.
func InCI() bool { return os.Getenv("CI") == "true" }

// Optional skips tb, saying why. Call it only from a test that the
// README's "Optional tests" lists.
func Optional(tb testing.TB, why string) {
	tb.Helper()
	tb.Skip(why)
}

// Skip skips tb, saying why, or fails it under CI=true.
func Skip(tb testing.TB, why string) {
	tb.Helper()
	if InCI() {
		tb.Fatalf("%s (CI=true: a test that cannot run fails; only the README's optional tests may skip)", why)
		return
	}
	tb.Skip(why)
}
