package quil_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/quil"
)

func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// families are programs of any size, one unit repeated.
var families = []struct {
	name string
	unit func(i int) string
}{
	{"standard gates", func(i int) string {
		switch i % 4 {
		case 0:
			return fmt.Sprintf("H %d\n", i%16)
		case 1:
			return fmt.Sprintf("CNOT %d %d\n", i%16, (i+5)%16)
		case 2:
			return fmt.Sprintf("RZ(%.6f) %d\n", float64(i)*0.001, i%16)
		}
		return fmt.Sprintf("CPHASE(pi/%d) %d %d\n", i%7+1, i%16, (i+3)%16)
	}},
	{"gates given by matrices", func(i int) string { return fmt.Sprintf("XY(%.4f) %d %d\n", float64(i)*0.01, i%16, (i+1)%16) }},
	{"modifiers", func(i int) string {
		return fmt.Sprintf("DAGGER CONTROLLED FORKED RX(0.1, %d) %d %d %d\n", i, i%5, 5+i%5, 10+i%5)
	}},
	{"classical", func(i int) string { return fmt.Sprintf("DECLARE v%d INTEGER\nADD v%d %d\nGT b v%d 3\n", i, i, i, i) }},
	{"measurements and jumps", func(i int) string {
		return fmt.Sprintf("MEASURE %d ro[%d]\nJUMP-WHEN @l%d ro[%d]\nX %d\nLABEL @l%d\n", i%16, i%16, i, i%16, i%16, i)
	}},
	{"comments and pragmas", func(i int) string { return "# a comment\n\nPRAGMA PRESERVE_BLOCK\n" }},
	{"defined gates", func(i int) string {
		return fmt.Sprintf("DEFGATE G%d(%%t) AS MATRIX:\n    cos(%%t), -sin(%%t)\n    sin(%%t), cos(%%t)\nG%d(%d) %d\n", i, i, i, i%16)
	}},
}

func familyProgram(unit func(int) string, size int) string {
	var b strings.Builder
	b.WriteString("DECLARE ro BIT[16]\nDECLARE b BIT\n")
	for i := 0; b.Len() < size; i++ {
		b.WriteString(unit(i))
	}
	return b.String()
}

// What a compile allocates beyond the source is what it charged against
// MaxBytes, within a fixed slack: the charges, checked before each
// allocation, are what bounds a program's memory.
func TestChargesCoverAllocations(t *testing.T) {
	if raceEnabled {
		testenv.Optional(t, "the race detector changes what escapes to the heap")
	}
	const slack = 64 << 10
	for _, f := range families {
		for _, size := range []int{4 << 10, 256 << 10} {
			src := familyProgram(f.unit, size)
			var charged int64
			var err error
			total := allocated(func() { _, charged, err = quil.CompileCharged(context.Background(), src, quil.Options{}) })
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			if int64(total) > charged+slack {
				t.Errorf("%s, %d bytes of source: allocated %d bytes, charged %d", f.name, size, total, charged)
			}
		}
	}
}

// bombs are small programs that expand without bound: each is refused by
// MaxOps or MaxBytes having allocated no more than MaxBytes and a slack.
var bombs = []struct{ name, src string }{
	{"doubling sequences", func() string {
		var b strings.Builder
		b.WriteString("DEFGATE G0 q AS SEQUENCE:\n    X q\n")
		for i := 1; i <= 60; i++ {
			fmt.Fprintf(&b, "DEFGATE G%d q AS SEQUENCE:\n    G%d q; G%d q\n", i, i-1, i-1)
		}
		b.WriteString("G60 0\n")
		return b.String()
	}()},
	{"controlled doubling sequences", func() string {
		var b strings.Builder
		b.WriteString("DEFGATE G0 q AS SEQUENCE:\n    RX(0.1) q\n")
		for i := 1; i <= 60; i++ {
			fmt.Fprintf(&b, "DEFGATE G%d q AS SEQUENCE:\n    G%d q; DAGGER G%d q\n", i, i-1, i-1)
		}
		b.WriteString("CONTROLLED CONTROLLED CONTROLLED CONTROLLED G60 1 2 3 4 0\n")
		return b.String()
	}()},
	{"a sequence applied a million times", "DEFGATE G q AS SEQUENCE:\n" + strings.Repeat("    H q\n", 1000) + strings.Repeat("G 0\n", 10_000)},
	{"Pauli sums of six qubits, each applied with new parameters", "DEFGATE P(%t) a b c d e f AS PAULI-SUM:\n    XYZXYZ(%t) a b c d e f\n    ZZZZZZ(%t/2) a b c d e f\n" +
		func() string {
			var b strings.Builder
			for i := range 2000 {
				fmt.Fprintf(&b, "P(%d) 0 1 2 3 4 5\n", i)
			}
			return b.String()
		}()},
	{"a large indexed store, many times", "DECLARE big INTEGER[1000]\nDECLARE k INTEGER\n" + strings.Repeat("STORE big k 1\n", 20_000)},
}

func TestBombsAreRefusedWithinBudget(t *testing.T) {
	if raceEnabled {
		testenv.Optional(t, "the race detector changes what escapes to the heap")
	}
	const maxBytes, slack = 16 << 20, 4 << 20
	for _, b := range bombs {
		var err error
		total := allocated(func() {
			_, err = quil.Compile(context.Background(), b.src, quil.Options{MaxBytes: maxBytes})
		})
		if err == nil || !strings.Contains(err.Error(), "MaxBytes") && !strings.Contains(err.Error(), "MaxOps") {
			t.Errorf("%s: err %v, want MaxBytes or MaxOps", b.name, err)
		}
		if total > maxBytes+slack {
			t.Errorf("%s: allocated %d MiB, more than MaxBytes (%d MiB) and slack", b.name, total>>20, maxBytes>>20)
		}
	}
}
