package qasm_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
	"gonum.org/v1/gonum/stat/distuv"
)

// Every Clifford program of the corpus (every gate Clifford as sim judges
// it) runs on the stabilizer method, and where its measurements are all
// at its end its counts are a sample of the state vector's exact
// distribution (chi-squared at a fixed seed, 0.9999 quantile); the others
// (mid-circuit measurement, classical control) run and add up.
func TestCorpusCliffordOnStabilizer(t *testing.T) {
	clifford, compared := 0, 0
	for _, path := range corpusFiles(t) {
		rel, _ := filepath.Rel(corpusDir, path)
		rel = filepath.ToSlash(rel)
		if _, fails := corpusFailures[rel]; fails {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		circ, err := qasm.Compile(string(src), qasm.Options{})
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		c, _ := circ.Compact()
		seed := uint64(11)
		opts := sim.Options{Shots: 20_000, Seed: &seed, Limits: sim.Limits{MaxQubits: c.NumQubits}}
		if m, _, err := c.Method(opts); err != nil || m != sim.MethodStabilizer {
			continue
		}
		clifford++
		t.Run(rel, func(t *testing.T) {
			r, err := sim.Run(context.Background(), c, opts)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, n := range r.Counts {
				total += n
			}
			if r.Method != sim.MethodStabilizer || total != opts.Shots {
				t.Fatalf("ran as %s, %d shots", r.Method, total)
			}
			if r.PerShot || c.PerShot() || c.NumQubits > 16 || len(r.Counts) > 2000 {
				return
			}
			compared++
			probs, err := exactCounts(c)
			if err != nil {
				t.Fatal(err)
			}
			var x2 float64
			df := -1
			for k, p := range probs {
				if p < 1e-12 {
					continue
				}
				df++
				d := float64(r.Counts[k]) - p*float64(opts.Shots)
				x2 += d * d / (p * float64(opts.Shots))
			}
			for k, n := range r.Counts {
				if probs[k] < 1e-12 {
					t.Fatalf("outcome %s seen %d times, probability %g", k, n, probs[k])
				}
			}
			if df > 0 && x2 > (distuv.ChiSquared{K: float64(df)}).Quantile(0.9999) {
				t.Fatalf("chi-squared %.1f over %d degrees of freedom", x2, df)
			}
		})
	}
	t.Logf("%d Clifford programs in the corpus, %d compared with the state vector's distribution", clifford, compared)
	if clifford < 10 {
		t.Fatalf("only %d Clifford programs found", clifford)
	}
}

// exactCounts is the distribution of the counts' keys of a terminal
// circuit from its state vector: each key bit holds the last measurement
// into it (0 when none), bit 0 rightmost; a circuit that measures nothing
// is measured on every qubit.
func exactCounts(c *sim.Circuit) (map[string]float64, error) {
	st, err := sim.Simulate(context.Background(), c, sim.Limits{MaxQubits: c.NumQubits})
	if err != nil {
		return nil, err
	}
	source := make([]int, c.NumClbits)
	for i := range source {
		source[i] = -1
	}
	measured := false
	for _, op := range c.Ops {
		if op.Kind == sim.OpMeasure {
			source[op.Bit()], measured = op.Qubit(), true
		}
	}
	if !measured {
		source = make([]int, c.NumQubits)
		for q := range source {
			source[q] = q
		}
	}
	out := map[string]float64{}
	key := make([]byte, len(source))
	for i, p := range st.Probabilities() {
		if p < 1e-15 {
			continue
		}
		for b, q := range source {
			key[len(key)-1-b] = '0'
			if q >= 0 && i>>q&1 == 1 {
				key[len(key)-1-b] = '1'
			}
		}
		out[string(key)] += p
	}
	for k, p := range out {
		out[k] = math.Min(p, 1)
	}
	return out, nil
}
