package qir

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzParseLL: no text may panic the parser, the checks or the trace, or
// run past their limits.
func FuzzParseLL(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.ll"))
	more, _ := filepath.Glob(filepath.Join(corpusDir, "bc-upstream", "*.ll"))
	if len(files) == 0 || len(more) == 0 {
		f.Fatalf("no seeds: no .ll file in %s or its bc-upstream", corpusDir)
	}
	arrays, _ := filepath.Glob(filepath.Join("testdata", "arrays", "*.ll"))
	for _, name := range append(append(files, more...), arrays...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := parseLL(src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p, err := compileModule(ctx, m, Options{MaxQubits: 8, MaxSteps: 10_000, MaxOps: 10_000})
		if err != nil {
			return
		}
		if p.NumQubits > 8 {
			t.Fatalf("%d qubits past the limit of 8", p.NumQubits)
		}
	})
}
