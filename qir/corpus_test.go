package qir

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// corpusDir holds QIR programs that producers wrote, with their exact
// distributions (see its README), kept in the repository.
const corpusDir = "../testdata/corpus/qir"

type expectation struct {
	Bits  map[string]float64 `json:"bits"`
	Entry string             `json:"entry"`
	Error string             `json:"error"`
}

func loadExpected(t *testing.T) map[string]expectation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]expectation
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// reverse turns a key in record order (first recorded leftmost) into the
// service's (first recorded rightmost).
func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// entryOf splits "file.ll@entry".
func entryOf(key string) (file, entry string) {
	file, entry, _ = strings.Cut(key, "@")
	return file, entry
}

// checkDistribution compares an exact distribution with the corpus's.
func checkDistribution(t *testing.T, got map[string]float64, want expectation, qubits int) {
	t.Helper()
	if _, none := want.Bits[""]; none {
		// Nothing recorded: every qubit measured at the end.
		sum := 0.0
		for k, p := range got {
			if len(k) != qubits {
				t.Errorf("key %q, want %d bits (every qubit)", k, qubits)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("probabilities add up to %v", sum)
		}
		return
	}
	for k, p := range want.Bits {
		if g := got[reverse(k)]; math.Abs(g-p) > 1e-9 {
			t.Errorf("P(%s) = %v, want %v", reverse(k), g, p)
		}
	}
	for k, p := range got {
		if _, ok := want.Bits[reverse(k)]; !ok && p > 1e-12 {
			t.Errorf("P(%s) = %v, want 0", k, p)
		}
	}
}

func TestCorpusText(t *testing.T) {
	for key, want := range loadExpected(t) {
		t.Run(key, func(t *testing.T) {
			file, entry := entryOf(key)
			src, err := os.ReadFile(filepath.Join(corpusDir, file))
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(context.Background(), "qir.ll", string(src), Options{EntryPoint: entry})
			if want.Error != "" {
				if err == nil {
					t.Fatalf("compiled; want an error like %q", want.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.EntryPoint != want.Entry {
				t.Errorf("entry point %s, want %s", p.EntryPoint, want.Entry)
			}
			checkDistribution(t, exact(t, p), want, p.NumQubits)
			if p.Circuit != nil && !p.PerShot() {
				checkDistribution(t, fromFinalState(t, p), want, p.NumQubits)
			}
		})
	}
}

// fromFinalState is the distribution of a sampled program's keys read off
// its circuit's final state: the probability of each basis state, summed
// by the bits its terminal measurements write.
func fromFinalState(t *testing.T, p *Program) map[string]float64 {
	t.Helper()
	gates := &sim.Circuit{NumQubits: p.Circuit.NumQubits}
	var measures []sim.Op
	for _, op := range p.Circuit.Ops {
		if op.Kind == sim.OpMeasure {
			measures = append(measures, op)
		} else {
			gates.Ops = append(gates.Ops, op)
		}
	}
	st, err := sim.Simulate(context.Background(), gates, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for i, pr := range st.Probabilities() {
		if pr == 0 {
			continue
		}
		key := []byte(strings.Repeat("0", p.ResultBits))
		for _, m := range measures {
			if m.Bit() < p.ResultBits && i>>m.Qubit()&1 == 1 {
				key[p.ResultBits-1-m.Bit()] = '1'
			}
		}
		out[string(key)] += pr
	}
	return out
}

// The bitcode its producers wrote (LLVM 10 to 14) gives the same exact
// distribution as its llvm-dis text, and the same refusal.
func TestCorpusUpstreamBitcode(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "bc-upstream", "*.bc"))
	if len(files) == 0 {
		t.Fatalf("no bitcode in %s", filepath.Join(corpusDir, "bc-upstream"))
	}
	for _, bc := range files {
		t.Run(filepath.Base(bc), func(t *testing.T) {
			raw, err := os.ReadFile(bc)
			if err != nil {
				t.Fatal(err)
			}
			text, err := os.ReadFile(strings.TrimSuffix(bc, ".bc") + ".dis.ll")
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			want, werr := Compile(ctx, "qir.ll", string(text), Options{})
			got, gerr := Compile(ctx, "qir.bc", base64.StdEncoding.EncodeToString(raw), Options{})
			if werr != nil || gerr != nil {
				// Refused alike: the same message, but for where it is.
				var we, ge *Error
				if !errors.As(werr, &we) || !errors.As(gerr, &ge) || we.Msg != ge.Msg || ge.Func == "" && we.Func != "" {
					t.Fatalf("text: %v; bitcode: %v", werr, gerr)
				}
				return
			}
			if got.EntryPoint != want.EntryPoint || got.NumQubits != want.NumQubits || (got.Circuit == nil) != (want.Circuit == nil) {
				t.Fatalf("bitcode: entry %s, %d qubits, circuit %v; text: %s, %d, %v", got.EntryPoint, got.NumQubits,
					got.Circuit != nil, want.EntryPoint, want.NumQubits, want.Circuit != nil)
			}
			a, b := exact(t, want), exact(t, got)
			if len(a) != len(b) {
				t.Fatalf("bitcode %v, text %v", b, a)
			}
			for k, p := range a {
				if math.Abs(b[k]-p) > 1e-12 {
					t.Errorf("P(%s): bitcode %v, text %v", k, b[k], p)
				}
			}
		})
	}
}
