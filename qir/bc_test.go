package qir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func corpusBitcode(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"bc-llvm14", "bc-llvm19", "bc-upstream"} {
		fs, _ := filepath.Glob(filepath.Join(corpusDir, dir, "*.bc"))
		files = append(files, fs...)
	}
	if len(files) == 0 {
		t.Fatalf("no bitcode in %s", corpusDir)
	}
	return files
}

// testdata/atomicrmw.bc is `llvm-as-14 testdata/atomicrmw.ll`: an entry
// point that does an atomicrmw.
func TestUnsupportedInBitcode(t *testing.T) {
	raw, err := os.ReadFile("testdata/atomicrmw.bc")
	if err != nil {
		t.Fatal(err)
	}
	_, err = readBitcode(raw)
	if err == nil || err.Error() != `in function @main: unsupported instruction "atomicrmw"` {
		t.Fatalf("error %v", err)
	}
}

// FuzzReadBitcode: no bytes may panic the reader, or the checks and the
// trace of what it reads, or run past their limits.
func FuzzReadBitcode(f *testing.F) {
	for _, name := range corpusBitcode(f) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := readBitcode(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("an error of type %T: %v", err, err)
			}
			if strings.TrimSpace(e.Msg) == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		checkReadModule(t, m)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p, err := compileModule(ctx, m, Options{MaxQubits: 8, MaxSteps: 10_000, MaxOps: 10_000})
		if err == nil && p.NumQubits > 8 {
			t.Fatalf("%d qubits past the limit of 8", p.NumQubits)
		}
	})
}
