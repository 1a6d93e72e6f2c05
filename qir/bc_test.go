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
	return files
}

// Every prefix of a module is refused with an *Error, never a panic.
func TestBitcodePrefixes(t *testing.T) {
	files := corpusBitcode(t)
	if len(files) == 0 {
		t.Skip("corpus not found")
	}
	for _, name := range []string{files[0], files[len(files)-1]} {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(raw) {
			_, err := readBitcode(raw[:n])
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("%s[:%d]: an error of type %T: %v", filepath.Base(name), n, err, err)
			}
			if err == nil && n < len(raw)-64 {
				t.Fatalf("%s[:%d] of %d read without an error", filepath.Base(name), n, len(raw))
			}
		}
	}
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

func TestNotBitcode(t *testing.T) {
	for _, data := range []string{"", "BC", "BC\xc0\xde", "BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00", "\xde\xc0\x17\x0b\x00\x00\x00\x00\xff\xff\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00"} {
		if _, err := readBitcode([]byte(data)); err == nil {
			t.Errorf("%q read as a module", data)
		}
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
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p, err := compileModule(ctx, m, Options{MaxQubits: 8, MaxSteps: 10_000, MaxOps: 10_000})
		if err == nil && p.NumQubits > 8 {
			t.Fatalf("%d qubits past the limit of 8", p.NumQubits)
		}
	})
}
