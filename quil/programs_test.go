package quil_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// run compiles and runs src for shots, seeded, and returns its counts.
func run(t *testing.T, src string, shots int) map[string]int {
	t.Helper()
	p := compile(t, src)
	seed := uint64(7)
	res, err := sim.Run(context.Background(), p.Circuit, sim.Options{Shots: shots, Seed: &seed, ResultBits: p.ResultBits})
	if err != nil {
		t.Fatalf("run:\n%s\nerror: %v", src, err)
	}
	return res.Counts
}

func int64Key(v int64) string { return fmt.Sprintf("%064b", uint64(v)) }

// Programs whose outcome is certain: classical memory, arithmetic,
// control flow, each giving exactly one key.
func TestDeterministicPrograms(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"arithmetic", "DECLARE ro INTEGER\nMOVE ro 5\nADD ro 3\nMUL ro 2\nSUB ro 1\nDIV ro 2\nMEASURE 0\n", int64Key(7)},
		{"negative integers", "DECLARE ro INTEGER\nDECLARE x INTEGER\nMOVE x 6\nNEG x\nMOVE ro x\nSUB ro 1\nMEASURE 0\n", int64Key(-7)},
		{"bitwise", "DECLARE ro OCTET\nDECLARE x OCTET\nMOVE ro 12\nMOVE x 10\nAND ro x\nIOR ro 1\nXOR ro 255\nMEASURE 0\n", "11110110"},
		{"NOT of a bit", "DECLARE ro BIT[2]\nNOT ro[1]\nMEASURE 0\n", "10"},
		{"TRUE and FALSE (pyquil's old names)", "DECLARE ro BIT[2]\nTRUE ro[0]\nTRUE ro[1]\nFALSE ro[1]\nMEASURE 0\n", "01"},
		{"comparisons", "DECLARE ro BIT[5]\nDECLARE x INTEGER\nMOVE x -3\nEQ ro[0] x -3\nGT ro[1] x -4\nGE ro[2] x -2\nLT ro[3] x 0\nLE ro[4] x -4\nMEASURE 0\n", "01011"},
		{"EXCHANGE and CONVERT", "DECLARE ro BIT[2]\nDECLARE x INTEGER\nDECLARE y INTEGER\nMOVE x 9\nEXCHANGE x y\nCONVERT ro[1] y\nCONVERT ro[0] x\nMEASURE 0\n", "10"},
		{"LOAD and STORE", "DECLARE ro INTEGER\nDECLARE arr INTEGER[4]\nDECLARE k INTEGER\nMOVE k 2\nSTORE arr k 41\nMOVE k 3\nSTORE arr k 1\nMOVE k 2\nLOAD ro arr k\nMOVE k 3\nDECLARE t INTEGER\nLOAD t arr k\nADD ro t\nMEASURE 0\n", int64Key(42)},
		{"a counted loop", "DECLARE ro BIT\nDECLARE n INTEGER\nDECLARE more BIT\nMOVE n 3\nLABEL @loop\nX 0\nSUB n 1\nGT more n 0\nJUMP-WHEN @loop more\nMEASURE 0 ro\n", "1"},
		{"repeat until success", "DECLARE ro BIT\nLABEL @again\nRESET 0\nH 0\nMEASURE 0 ro\nJUMP-UNLESS @again ro\n", "1"},
		{"HALT ends the program", "DECLARE ro BIT[2]\nX 0\nMEASURE 0 ro[0]\nHALT\nX 1\nMEASURE 1 ro[1]\n", "01"},
		{"JUMP over", "DECLARE ro BIT\nJUMP @end\nX 0\nLABEL @end\nMEASURE 0 ro\n", "0"},
		{"MEASURE into an INTEGER", "DECLARE ro INTEGER\nMOVE ro 6\nX 3\nMEASURE 3 ro\n", int64Key(1)},
		{"MEASURE for its effect only", "DECLARE ro BIT\nX 0\nMEASURE 0\nMEASURE 0 ro\n", "1"},
		{"RESET of every qubit", "DECLARE ro BIT[3]\nX 0\nX 2\nRESET\nX 1\nMEASURE 0 ro[0]\nMEASURE 1 ro[1]\nMEASURE 2 ro[2]\n", "010"},
		{"no ro: every BIT region, the first's bit 0 rightmost", "DECLARE a BIT\nDECLARE n INTEGER\nDECLARE b BIT[2]\nX 0\nX 2\nMEASURE 0 a\nMEASURE 1 b[0]\nMEASURE 2 b[1]\n", "101"},
		{"ro first whatever the order", "DECLARE a BIT\nDECLARE ro BIT\nX 0\nMEASURE 0 ro\nMEASURE 1 a\n", "1"},
		{"teleportation with corrections", `DECLARE ro BIT[3]
RX(pi) 0          # |1⟩, up to a phase
H 1
CNOT 1 2
CNOT 0 1
H 0
MEASURE 0 ro[0]
MEASURE 1 ro[1]
JUMP-UNLESS @nox ro[1]
X 2
LABEL @nox
JUMP-UNLESS @noz ro[0]
Z 2
LABEL @noz
MEASURE 2 ro[2]
`, ""},
		{"semicolons separate instructions", "DECLARE ro BIT[2]; X 0; CNOT 0 1\nMEASURE 0 ro[0]; MEASURE 1 ro[1]\n", "11"},
		{"PRAGMA, NOP and WAIT do nothing", "DECLARE ro BIT\nPRAGMA INITIAL_REWIRING \"PARTIAL\"\nNOP\nWAIT\nX 0\nPRAGMA READOUT-POVM 0 \"(0.9 0.1 0.1 0.9)\"\nMEASURE 0 ro\n", "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			counts := run(t, tc.src, 64)
			if tc.name == "teleportation with corrections" {
				// The teleported qubit is always 1; the other two are
				// uniform.
				for k := range counts {
					if k[0] != '1' {
						t.Fatalf("teleported qubit measured 0: %v", counts)
					}
				}
				if len(counts) != 4 {
					t.Fatalf("want the 4 outcomes of ro[0], ro[1]; got %v", counts)
				}
				return
			}
			if len(counts) != 1 || counts[tc.want] != 64 {
				t.Fatalf("counts %v, want only %s", counts, tc.want)
			}
		})
	}
}

// REAL memory is known while the program compiles: gate parameters read
// it, and the arithmetic on it, exactly.
func TestRealMemory(t *testing.T) {
	src := `DECLARE theta REAL[2]
MOVE theta[0] 0.5
MUL theta[0] 3
ADD theta[1] theta[0]
SUB theta[1] 0.25
DIV theta[1] 2
RX(theta[0]) 0
RY(2*theta[1] + theta) 1
`
	want := unitaryOf(t, "RX(1.5) 0\nRY(2.75) 1\n", 2)
	assertClose(t, "REAL parameters", unitaryOf(t, src, 2), want, false)
}

// The public client's own request: a Bell pair, only 00 and 11.
func TestPublicClientBell(t *testing.T) {
	counts := run(t, "DECLARE ro BIT[2]\nH 0\nCNOT 0 1\nMEASURE 0 ro[0]\nMEASURE 1 ro[1]\n", 1000)
	if len(counts) != 2 || counts["00"]+counts["11"] != 1000 {
		t.Fatalf("counts %v, want only 00 and 11", counts)
	}
	p := compile(t, "DECLARE ro BIT[2]\nH 0\nCNOT 0 1\nMEASURE 0 ro[0]\nMEASURE 1 ro[1]\n")
	s, err := sim.Simulate(context.Background(), p.Circuit, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	probs := s.Probabilities()
	if math.Abs(probs[0]-0.5) > 1e-12 || math.Abs(probs[3]-0.5) > 1e-12 {
		t.Fatalf("probabilities %v, want ½ on 00 and 11", probs)
	}
}

// A loop that never ends is bounded by the run's work bound.
func TestEndlessLoopEndsOnTheWorkBound(t *testing.T) {
	p := compile(t, "DECLARE ro BIT\nLABEL @forever\nH 0\nMEASURE 0 ro\nJUMP @forever\n")
	seed := uint64(1)
	_, err := sim.Run(context.Background(), p.Circuit, sim.Options{Shots: 1, Seed: &seed, MaxWork: 1 << 20, ResultBits: p.ResultBits})
	if err == nil || !strings.Contains(err.Error(), "work") {
		t.Fatalf("err %v, want the work bound", err)
	}
}
