package quil_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjobs/quantum/quil"
	"github.com/qjobs/quantum/sim"
)

// FuzzCompile: no input makes the compiler panic (it would report an
// internal error), exceed its operations, or lower a circuit sim refuses.
func FuzzCompile(f *testing.F) {
	seeds := []string{
		"DECLARE ro BIT[2]\nH 0\nCNOT 0 1\nMEASURE 0 ro[0]\nMEASURE 1 ro[1]\n",
		"DEFGATE G(%a) p q AS PAULI-SUM:\n    XY(%a) p q\n    Z(-%a/2) q\nG(0.3) 1 0\n",
		"DEFGATE S2 a b AS SEQUENCE:\n    H a; CONTROLLED S b a\nDAGGER S2 0 1\n",
		"DEFGATE P AS PERMUTATION:\n    1, 0, 3, 2\nFORKED CONTROLLED P 2 1 0\n",
		"DECLARE n INTEGER\nDECLARE c BIT\nMOVE n 4\nLABEL @l\nSUB n 1\nGT c n 0\nJUMP-WHEN @l c\nHALT\n",
		"DECLARE t REAL[2]\nMOVE t[1] 0.5\nRX(t[1]*pi) 0\nFORKED RZ(t[0], t[1]) 1 0\n",
		"DECLARE a INTEGER[3]\nDECLARE k INTEGER\nSTORE a k 7\nLOAD k a k\nEXCHANGE a[1] a[2]\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "quil", "*", "*.quil"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 4096 {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		opts := quil.Options{MaxQubits: 8, MaxOps: 5000, MaxBytes: 1 << 20}
		p, err := quil.Compile(context.Background(), src, opts)
		if err != nil {
			var qe *quil.Error
			if !errors.As(err, &qe) {
				t.Fatalf("error %v is not a *quil.Error", err)
			}
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("compiler panicked: %v", err)
			}
			return
		}
		if len(p.Circuit.Ops) > opts.MaxOps {
			t.Fatalf("%d operations, past MaxOps", len(p.Circuit.Ops))
		}
		seed := uint64(1)
		_, err = sim.Run(context.Background(), p.Circuit, sim.Options{Shots: 2, Seed: &seed, MaxWork: 1 << 16, ResultBits: p.ResultBits})
		if err != nil && !errors.Is(err, sim.ErrWorkLimit) && !errors.Is(err, sim.ErrResultTooLarge) {
			t.Fatalf("sim refuses the compiled circuit: %v\n%s", err, src)
		}
	})
}
