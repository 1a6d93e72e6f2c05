package quantum_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEShowsTheExample: the README's embedding example is
// example_test.go as it compiles and runs, imports to the last brace, so
// that the two never drift.
func TestREADMEShowsTheExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, ok := strings.Cut(string(example), "\nimport (")
	if !ok {
		t.Fatal("example_test.go has no import block")
	}
	if want := "```go\nimport (" + code + "```\n"; !strings.Contains(string(readme), want) {
		t.Fatalf("the README does not show example_test.go from its imports on, as it is:\n%s", want)
	}
}
