package qasm_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"sort"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

// The program of issue 37: a million X gates in two nested loops, refused
// when loops were unrolled (64 MiB of operations), now a body of a
// thousand gates run a thousand times.
const millionXs = "OPENQASM 3; qubit[1] q; for int i in [0:999] { for int j in [0:999] { x q[0]; } }"

// compileKept compiles src, checks that the circuit is valid, and reports
// whether some loop of it was kept as a loop (a jump back).
func compileKept(t *testing.T, src string, opts qasm.Options) (*sim.Circuit, int64, bool) {
	t.Helper()
	p, charged, kept := compileLoops(t, src, opts)
	return p.Circuit, charged, kept
}

func compileLoops(t *testing.T, src string, opts qasm.Options) (*qasm.Program, int64, bool) {
	t.Helper()
	p, charged, err := qasm.CompileCharged(context.Background(), src, opts)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, src)
	}
	if err := p.Circuit.Validate(); err != nil {
		t.Fatalf("invalid circuit: %v", err)
	}
	kept := false
	for i, op := range p.Circuit.Ops {
		kept = kept || op.Kind == sim.OpJump && op.JumpTarget() <= i
	}
	return p, charged, kept
}

// exactState is the final state of c, exact as the simulator computes it.
func exactState(t *testing.T, c *sim.Circuit) []complex128 {
	t.Helper()
	s, err := sim.Simulate(context.Background(), c, sim.Limits{})
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	return s.Amplitudes()
}

func TestMillionIterationLoopIsSmall(t *testing.T) {
	tests := []struct {
		name, src string
		one       bool // the qubit ends in |1⟩
	}{
		{"10^6 X gates", millionXs, false},
		{"1,001,000 X gates", "OPENQASM 3; qubit[1] q; for int i in [0:1000] { for int j in [0:999] { x q[0]; } }", false},
		{"1,000,001 X gates", "OPENQASM 3; qubit[1] q; for int i in [0:1000000] { x q[0]; }", true},
		{"10^6 X gates, inner loop kept", "OPENQASM 3; qubit[1] q; for int i in [0:9] { for int j in [0:99999] { x q[0]; } }", false},
		{"10^6 X gates in three loops", "OPENQASM 3; qubit[1] q; for int i in [0:99] { for int j in [0:99] { for int k in [0:99] { x q[0]; } } }", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, charged, kept := compileKept(t, tt.src, qasm.Options{})
			t.Logf("%d operations, %d classical bits, %d bytes charged", len(c.Ops), c.NumClbits, charged)
			if !kept {
				t.Fatal("no loop was kept as a loop")
			}
			if len(c.Ops) > 1100 || charged > 256<<10 {
				t.Fatalf("%d operations, %d bytes charged: want a thousand or so, kilobytes", len(c.Ops), charged)
			}
			want := []complex128{1, 0}
			if tt.one {
				want = []complex128{0, 1}
			}
			// X is a permutation: the state is exact, not within a
			// tolerance.
			if got := exactState(t, c); got[0] != want[0] || got[1] != want[1] {
				t.Fatalf("state %v, want %v", got, want)
			}
			r, err := sim.Run(context.Background(), c, sim.Options{Shots: 100, Method: sim.MethodAuto})
			if err != nil {
				t.Fatal(err)
			}
			key := map[bool]string{false: "0", true: "1"}[tt.one]
			if r.Counts[key] != 100 || r.PerShot || r.Method != sim.MethodStateVector {
				t.Fatalf("counts %v, per shot %v, method %s (%s): want %s: 100 sampled from one run", r.Counts, r.PerShot, r.Method, r.MethodReason, key)
			}
		})
	}
}

// TestKeptLoopsMatchUnrolled holds loops kept as loops against the same
// programs unrolled: the same final state when the control flow is the
// same on every shot, the same exact distribution otherwise, and the same
// counts from the same seed (the shots run the same quantum operations in
// the same order, the loop's counter aside).
func TestKeptLoopsMatchUnrolled(t *testing.T) {
	const h = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\n"
	tests := []struct {
		name, src string
		static    bool // no measured bit steers anything: one final state
	}{
		{"rotations by constants", h + "qubit[2] q; for int i in [0:4999] { rx(0.001) q[0]; ry(0.002) q[1]; rz(0.003) q[0]; }", true},
		{"entangling gates", h + "qubit[3] q; h q[0]; for int i in [0:2999] { cx q[0], q[1]; crz(0.01) q[1], q[2]; rx(0.003) q[2]; cz q[2], q[0]; } bit[3] c = measure q;", true},
		{"nested loops", h + "qubit[2] q; for int i in [0:99] { for int j in [0:99] { rx(0.01) q[0]; } cx q[0], q[1]; ry(0.02) q[1]; }", true},
		{"kept loops in an unrolled one", h + "qubit[2] q; for int i in [0:19] { for int j in [0:4999] { rx(0.0001) q[0]; } cx q[0], q[1]; }", true},
		{"three levels", h + "qubit[2] q; for int i in [0:9] { for int j in [0:9] { for int k in [0:99] { ry(0.001) q[0]; } cx q[0], q[1]; } rz(0.1) q[1]; }", true},
		{"constants that steer", h + "qubit[2] q; const int n = 3; bit[2] f = \"01\"; for int i in [0:4999] { if (f[0]) rx(0.001) q[0]; if (n > 4) x q[1]; ry(n * 0.001) q[1]; }", true},
		{"a subroutine in the body", h + "def step(qubit a, qubit b) { cx a, b; rz(0.01) b; } qubit[2] q; h q[0]; for int i in [0:4999] { step(q[0], q[1]); }", true},
		{"a measurement at the end", h + "qubit[2] q; bit[2] c; for int i in [0:4999] { ry(0.001) q[0]; cry(0.002) q[0], q[1]; } c = measure q;", true},
		{"a runtime if inside", h + "qubit[2] q; bit c; bit d; for int i in [0:1199] { h q[0]; c = measure q[0]; if (c) x q[1]; reset q[0]; } d = measure q[1];", false},
		{"measurements inside", h + "qubit[2] q; bit[2] c; for int i in [0:1199] { ry(0.3) q[0]; c[0] = measure q[0]; cx q[0], q[1]; c[1] = measure q[1]; }", false},
		{"a counter of measured ones", h + "qubit q; bit b; int[4] n = 0; for int i in [0:1199] { ry(0.2) q; b = measure q; n += b; reset q; } bit[4] out = n;", false},
		{"a kept loop under a runtime if", h + "qubit[2] q; bit c; h q[0]; c = measure q[0]; if (c) { for int i in [0:4999] { rx(0.001) q[1]; } } bit d = measure q[1];", false},
		{"a kept loop in a runtime while", h + "qubit[2] q; bit c = 1; while (c) { for int i in [0:4999] { ry(0.0002) q[1]; } ry(0.3) q[0]; c = measure q[0]; reset q[0]; } c = measure q[1];", false},
		{"a kept loop in a subroutine called twice", h + "def f(qubit a) { for int i in [0:4999] { rx(0.0003) a; } } qubit[2] q; f(q[0]); cx q[0], q[1]; f(q[1]); bit[2] c = measure q;", true},
		{"a local register in the body", h + "qubit[2] q; for int i in [0:1199] { bit[2] t; ry(0.7) q[0]; t[0] = measure q[0]; if (t[0]) x q[1]; reset q[0]; } bit d = measure q[1];", false},
		{"a runtime while inside", h + "qubit[2] q; bit c; for int i in [0:599] { c = 0; while (!c) { ry(2.5) q[0]; c = measure q[0]; } x q[1]; reset q[0]; } c = measure q[1];", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keptProgram, _, wasKept := compileLoops(t, tt.src, qasm.Options{})
			unrolledProgram, _, wasUnrolled := compileLoops(t, tt.src, qasm.Unrolled(qasm.Options{}))
			kept, unrolled := keptProgram.Circuit, unrolledProgram.Circuit
			bits := keptProgram.OutputBits // the program's own bits, without the compiler's
			if !wasKept || wasUnrolled && tt.static {
				t.Fatalf("kept %v, unrolled %v: want a loop kept, and none in the unrolled circuit", wasKept, !wasUnrolled)
			}
			t.Logf("%d operations kept, %d unrolled", len(kept.Ops), len(unrolled.Ops))
			if kept.PerShot() == tt.static {
				t.Fatalf("PerShot() = %v, want %v", kept.PerShot(), !tt.static)
			}
			if tt.static {
				sameState(t, exactState(t, kept), exactState(t, unrolled))
			} else {
				sameDistribution(t, exactDistribution(t, kept, bits), exactDistribution(t, unrolled, bits))
			}
			for _, shots := range []int{1, 1000} {
				seed := uint64(7)
				opts := sim.Options{Shots: shots, Seed: &seed, Method: sim.MethodStateVector, ResultBits: bits}
				a, err := sim.Run(context.Background(), kept, opts)
				if err != nil {
					t.Fatal(err)
				}
				b, err := sim.Run(context.Background(), unrolled, opts)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(a.Counts) != fmt.Sprint(b.Counts) {
					t.Fatalf("%d shots: counts %v kept, %v unrolled", shots, a.Counts, b.Counts)
				}
			}
		})
	}
}

func sameState(t *testing.T, got, want []complex128) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d amplitudes, want %d", len(got), len(want))
	}
	for i := range got {
		if cmplx.Abs(got[i]-want[i]) > tol {
			t.Fatalf("amplitude %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func sameDistribution(t *testing.T, got, want map[string]float64) {
	t.Helper()
	for k, p := range want {
		if math.Abs(got[k]-p) > tol {
			t.Fatalf("P(%s) = %v, want %v (distribution %v)", k, got[k], p, got)
		}
	}
	for k, p := range got {
		if _, ok := want[k]; !ok && p > tol {
			t.Fatalf("P(%s) = %v, want 0", k, p)
		}
	}
}

// branch is one way through a circuit's measurements, with its weight.
type branch struct {
	pc     int
	clbits []bool
	s      *sim.State
	p      float64
}

// exactDistribution follows every outcome of c's measurements and resets
// with its exact weight (sim.State.Collapse), and returns the probability
// of each key of c's first nbits classical bits. Branches that reach the
// same measurement with the same bits and the same state are one, so that
// a loop of thousands of measurements stays a few branches wide.
func exactDistribution(t *testing.T, c *sim.Circuit, nbits int) map[string]float64 {
	t.Helper()
	ctx := context.Background()
	s0, err := sim.NewState(c.NumQubits, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	front := []*branch{{clbits: make([]bool, c.NumClbits), s: s0, p: 1}}
	steps := 0
	for len(front) > 0 {
		// Each branch runs to its next measurement or reset, or its end.
		merged := map[string]*branch{}
		var order []string
		for _, b := range front {
			for b.pc < len(c.Ops) {
				if steps++; steps > 50_000_000 {
					t.Fatal("the branches ran more than 50,000,000 operations")
				}
				op := c.Ops[b.pc]
				if cond := op.Cond(); cond != nil && !cond.Eval(b.clbits) {
					b.pc++
					continue
				}
				if op.Kind == sim.OpMeasure || op.Kind == sim.OpReset {
					break
				}
				b.pc++
				switch op.Kind {
				case sim.OpGate:
					if err := b.s.ApplyOp(ctx, op.WithIf(nil)); err != nil {
						t.Fatal(err)
					}
				case sim.OpSetBits, sim.OpCompute:
					v := op.Value()
					if op.Kind == sim.OpCompute {
						x, err := op.Expr().Eval(b.clbits)
						if err != nil {
							t.Fatal(err)
						}
						v = uint64(x)
					}
					for j, bit := range op.Bits() {
						b.clbits[bit] = v>>j&1 == 1
					}
				case sim.OpJump:
					b.pc = op.JumpTarget()
				}
			}
			key := branchKey(b)
			if m, ok := merged[key]; ok {
				m.p += b.p
				continue
			}
			merged[key] = b
			order = append(order, key)
		}
		sort.Strings(order)
		front = front[:0]
		for _, key := range order {
			b := merged[key]
			if b.pc == len(c.Ops) {
				out[keyOf(b.clbits[:nbits])] += b.p
				continue
			}
			op := c.Ops[b.pc]
			var ways []*branch
			total := 0.0
			for _, one := range []bool{false, true} {
				s := b.s.Clone()
				p, err := s.Collapse(ctx, op.Qubit(), one)
				if err != nil {
					continue // an outcome that cannot happen
				}
				total += p
				nb := &branch{pc: b.pc + 1, clbits: append([]bool(nil), b.clbits...), s: s, p: p}
				if op.Kind == sim.OpMeasure {
					nb.clbits[op.Bit()] = one
				} else if one {
					x, _ := sim.LookupGate("x")
					g, _ := x.Op(nil, op.Qubit())
					if err := s.ApplyOp(ctx, g); err != nil {
						t.Fatal(err)
					}
				}
				ways = append(ways, nb)
			}
			for _, nb := range ways {
				// The outcomes' weights, made to add up to the branch's:
				// rounding leaves a state's norm a little off 1.
				if nb.p *= b.p / total; nb.p >= 1e-16 {
					front = append(front, nb)
				} // else the tail of a loop that ends with probability 1, within the tolerance
			}
		}
	}
	total := 0.0
	for _, p := range out {
		total += p
	}
	if math.Abs(total-1) > tol {
		t.Fatalf("the branches' weights add up to %v", total)
	}
	return out
}

// branchKey says where a branch is and what it holds, its state rounded.
func branchKey(b *branch) string {
	var k strings.Builder
	fmt.Fprintf(&k, "%d %s", b.pc, keyOf(b.clbits))
	for _, a := range b.s.Amplitudes() {
		fmt.Fprintf(&k, " %.9f %.9f", real(a), imag(a))
	}
	return k.String()
}

// keyOf is the counts' key of the bits: bit 0 rightmost.
func keyOf(bits []bool) string {
	k := make([]byte, len(bits))
	for i, v := range bits {
		k[len(k)-1-i] = '0'
		if v {
			k[len(k)-1-i] = '1'
		}
	}
	return string(k)
}

// The compile bombs of nested loops (budget_test.go) whose bodies do not
// read their variables: kept as loops, each is a small program, compiled
// within half of MaxBytes (an array of 65,536 elements declared in two
// iterations charges 18 MiB).
func TestBombsKeptAsLoops(t *testing.T) {
	const loops = "for int i in [0:99999] { for int j in [0:99999] { "
	programs := []struct{ name, src string }{
		{"nested loops of gates", "qubit q; " + loops + "x q; } }"},
		{"nested loops that emit nothing", loops + "int k = 7; } }"},
		{"a loop over a wide register", "qubit[64] q; for int i in [0:99999] { h q; }"},
		{"pow of a five-qubit gate", "qubit[5] q; gate g a, b, c, d, e { h a; cx a, b; cx b, c; cx c, d; cx d, e; } " + loops + "pow(0.5) @ g q[0], q[1], q[2], q[3], q[4]; } }"},
		{"pow of a large integer", "qubit q; " + loops + "pow(1000000) @ x q; } }"},
		{"integer pow of a sequence", "qubit q; gate s a { x a; y a; } " + loops + "pow(32) @ s q; } }"},
		{"big ctrl counts", "qubit[64] q; " + loops + "ctrl(63) @ x " + allQubits(64) + "; } }"},
		{"measured angles enumerated", "qubit[2] q; angle[6] a; measure q[0] -> a[0]; " + loops + "u2(a, 0) q[1]; } }"},
		{"switches on a measured value", "qubit q; int c = measure q; " + loops + "switch (c) { case 0 { x q; } case 1 { y q; } default { z q; } } } }"},
		{"noise pragmas in nested loops", "qubit q; " + loops + "\n#pragma braket noise depolarizing(0.01) q\n} }"},
		{"two-qubit Kraus pragmas in nested loops", "qubit[2] q; " + loops + "\n#pragma braket noise kraus(" + krausCNOT + ") q[0], q[1]\n} }"},
		{"wide bit registers", loops + "bit[65536] b; } }"},
		{"long arrays", "for int i in [0:99999] { array[int[64], 65536] a; }"},
	}
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			c, charged, _ := compileKept(t, p.src, qasm.Options{})
			t.Logf("%d operations, %d bytes charged", len(c.Ops), charged)
			if len(c.Ops) > 4096+64 || charged > qasm.DefaultMaxBytes/2 {
				t.Fatalf("%d operations, %d bytes charged", len(c.Ops), charged)
			}
		})
	}
}

// A loop whose body reads its variable compiles as it always did: one
// iteration after another.
func TestLoopsThatStillUnroll(t *testing.T) {
	const h = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\n"
	tests := []struct {
		name, src string
		gates     int
	}{
		{"the variable names a qubit", h + "qubit[3] q; for int i in [0:2] { h q[i]; }", 3},
		{"the variable in an angle", h + "qubit q; for int i in [0:9999] { rz(i * 0.001) q; }", 10_000},
		{"the variable in a condition", h + "qubit q; for int i in [0:9999] { if (i % 2 == 0) x q; h q; }", 15_000},
		{"a compile-time variable changed", h + "qubit q; int k = 0; for int i in [0:9999] { k += 1; rz(k) q; }", 10_000},
		{"a compile-time variable changed by a subroutine", h + "qubit q; int k = 0; def f() { k += 1; } for int i in [0:9999] { f(); rz(k) q; }", 10_000},
		{"a break", h + "qubit q; for int i in [0:9999] { h q; if (i == 4999) break; }", 5_000},
		{"a small loop", h + "qubit q; for int i in [0:999] { h q; x q; }", 2_000},
		{"in a gate's body", h + "gate g a { for int i in [0:4999] { x a; } } qubit q; g q;", 5_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, kept := compileKept(t, tt.src, qasm.Options{})
			if kept {
				t.Fatal("a loop was kept as a loop")
			}
			if len(c.Ops) != tt.gates {
				t.Fatalf("%d operations, want %d gates", len(c.Ops), tt.gates)
			}
			for _, op := range c.Ops {
				if op.Kind != sim.OpGate {
					t.Fatalf("a %s operation, want gates only", op.Kind)
				}
			}
			unrolled, _, _ := compileKept(t, tt.src, qasm.Unrolled(qasm.Options{}))
			if len(unrolled.Ops) != len(c.Ops) {
				t.Fatalf("%d operations, %d unrolled", len(c.Ops), len(unrolled.Ops))
			}
		})
	}
}

// A loop of 10^12 iterations compiles into a few operations; its run ends
// on the work bound, or when its context is cancelled.
func TestTrillionIterationLoop(t *testing.T) {
	c, charged, kept := compileKept(t, "OPENQASM 3; qubit[2] q; for int i in [1:1000000000000] { h q[0]; cx q[0], q[1]; }", qasm.Options{})
	if !kept || len(c.Ops) > 8 || charged > 64<<10 {
		t.Fatalf("kept %v, %d operations, %d bytes charged", kept, len(c.Ops), charged)
	}
	t.Run("work bound", func(t *testing.T) {
		_, err := sim.Run(context.Background(), c, sim.Options{Shots: 100, MaxWork: 1_000_000})
		if !errors.Is(err, sim.ErrWorkLimit) || !strings.Contains(err.Error(), "more than 1000000 units of work (MaxWork") {
			t.Fatalf("error %v, want ErrWorkLimit", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		// Cancelled at its 10,000th look, some 600,000 operations into
		// the loop, the run stops there: no look after it.
		ctx := newCountingCtx(10_000)
		_, err := sim.Run(ctx, c, sim.Options{Shots: 100})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
		if ctx.polls != 10_000 {
			t.Fatalf("the run went on after the cancel: %d looks", ctx.polls)
		}
	})
}

// BenchmarkMillionIterationLoop compiles and runs the program of issue 37
// (100 shots on the state vector), and each half alone.
func BenchmarkMillionIterationLoop(b *testing.B) {
	opts := sim.Options{Shots: 100}
	b.Run("compile and run", func(b *testing.B) {
		for b.Loop() {
			c, err := qasm.Compile(millionXs, qasm.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sim.Run(context.Background(), c, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compile", func(b *testing.B) {
		for b.Loop() {
			if _, err := qasm.Compile(millionXs, qasm.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	c, err := qasm.Compile(millionXs, qasm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("run", func(b *testing.B) {
		for b.Loop() {
			if _, err := sim.Run(context.Background(), c, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}
