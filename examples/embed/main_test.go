package main

import (
	"strings"
	"testing"
)

// The example runs as documented: a Bell pair measures 00 or 11, and the
// seed fixes how often each.
func TestRunPrintsBellCounts(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	if want := "00 518\n11 482\n"; out.String() != want {
		t.Fatalf("run printed %q, want %q", out.String(), want)
	}
}
