package qir

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/qjobs/quantum/sim"
	"gonum.org/v1/gonum/stat/distuv"
)

// Every Clifford program of the QIR corpus runs on the stabilizer method
// (auto's choice: a circuit, or a program that reads its measurements
// judged by the gates it calls) and its counts are a sample of its exact
// distribution (chi-squared at a fixed seed, 0.9999 quantile).
func TestCorpusCliffordOnStabilizer(t *testing.T) {
	clifford := 0
	for key, want := range loadExpected(t) {
		if want.Error != "" {
			continue
		}
		file, entry := entryOf(key)
		src, err := os.ReadFile(filepath.Join(corpusDir, file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(context.Background(), "qir.ll", string(src), Options{EntryPoint: entry})
		if err != nil {
			t.Fatal(err)
		}
		seed := uint64(13)
		opts := sim.Options{Shots: 20_000, Seed: &seed, Limits: sim.Limits{MaxQubits: p.NumQubits}}
		if m, _, err := p.Method(opts); err != nil || m != sim.MethodStabilizer {
			continue
		}
		clifford++
		t.Run(key, func(t *testing.T) {
			r, err := p.Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Method != sim.MethodStabilizer || len(r.Counts) == 0 {
				t.Fatalf("ran as %s", r.Method)
			}
			probs := exact(t, p)
			var x2 float64
			df := -1
			for k, n := range r.Counts {
				if probs[k] < 1e-12 {
					t.Fatalf("outcome %s seen %d times, probability %g", k, n, probs[k])
				}
			}
			for k, pr := range probs {
				if pr < 1e-12 {
					continue
				}
				df++
				d := float64(r.Counts[k]) - pr*float64(opts.Shots)
				x2 += d * d / (pr * float64(opts.Shots))
			}
			if df > 0 && x2 > (distuv.ChiSquared{K: float64(df)}).Quantile(0.9999) {
				t.Fatalf("chi-squared %.1f over %d degrees of freedom: counts %v, exact %v", x2, df, r.Counts, probs)
			}
		})
	}
	t.Logf("%d Clifford programs in the QIR corpus", clifford)
	if clifford < 3 {
		t.Fatalf("only %d Clifford programs found", clifford)
	}
}
