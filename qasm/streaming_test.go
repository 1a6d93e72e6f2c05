package qasm_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

// A program without physical qubits or inputs is compiled as it is read,
// a top-level statement at a time, its syntax nodes reused; one with
// either is parsed whole first. The two paths must agree on every
// program: the same circuit, or the same error. So must a compile that
// reads every parameter and operand with the expression parser, none of
// the parser's shortcuts for the common shapes, and it must charge the
// same bytes.
func sameBothWays(t *testing.T, src string) {
	t.Helper()
	opts := qasm.Options{MaxQubits: 20, MaxBytes: 4 << 20, MaxLoopIterations: 1000}
	streamed, charged, serr := qasm.CompileCharged(context.Background(), src, opts)
	parsed, perr := qasm.CompileParsedFirst(src, opts)
	if fmt.Sprint(serr) != fmt.Sprint(perr) {
		t.Fatalf("streamed: %v\nparsed first: %v\nprogram: %q", serr, perr, src)
	}
	general, gcharged, gerr := qasm.CompileGeneral(src, opts)
	if fmt.Sprint(serr) != fmt.Sprint(gerr) || charged != gcharged {
		t.Fatalf("with the parser's shortcuts: %v, %d bytes charged\nwithout: %v, %d bytes\nprogram: %q", serr, charged, gerr, gcharged, src)
	}
	if serr != nil {
		return
	}
	if a, b := render(streamed), render(parsed); a != b {
		t.Fatalf("the two compiles differ:\nstreamed:\n%s\nparsed first:\n%s\nprogram: %q", a, b, src)
	}
	if a, b := render(streamed), render(general); a != b {
		t.Fatalf("the parser's shortcuts change the circuit:\nwith:\n%s\nwithout:\n%s\nprogram: %q", a, b, src)
	}
}

// render writes a compiled program as text, every operation with
// everything it holds.
func render(p *qasm.Program) string {
	var b strings.Builder
	c := p.Circuit
	fmt.Fprintf(&b, "v%d qubits %d clbits %d out %d regs %v\n", p.Version, c.NumQubits, c.NumClbits, p.OutputBits, p.Registers)
	for i, op := range c.Ops {
		line, col := op.Pos()
		fmt.Fprintf(&b, "%d %s @%d:%d", i, op.Kind, line, col)
		switch op.Kind {
		case sim.OpGate:
			g := op.Gate()
			fmt.Fprintf(&b, " %s %v %v %v", op.GateName(), g.Targets, g.Controls, g.Matrix)
		case sim.OpMeasure:
			fmt.Fprintf(&b, " %d->%d", op.Qubit(), op.Bit())
		case sim.OpReset:
			fmt.Fprintf(&b, " %d", op.Qubit())
		case sim.OpBarrier:
			fmt.Fprintf(&b, " %v", op.Qubits())
		case sim.OpSetBits:
			fmt.Fprintf(&b, " %v=%d", op.Bits(), op.Value())
		case sim.OpCompute:
			fmt.Fprintf(&b, " %v=%s", op.Bits(), renderExpr(op.Expr()))
		case sim.OpJump:
			fmt.Fprintf(&b, " ->%d", op.JumpTarget())
		case sim.OpNoise:
			ch := op.Channel()
			fmt.Fprintf(&b, " %s %v", ch, ch.Kraus())
			for i := range op.NumTargets() {
				fmt.Fprintf(&b, " %d", op.TargetAt(i))
			}
		}
		if cond := op.Cond(); cond != nil {
			fmt.Fprintf(&b, " if %s", renderCond(cond))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func renderCond(c *sim.Condition) string {
	if c == nil {
		return "nil"
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = renderCond(a)
	}
	return fmt.Sprintf("(%d %v %s %d %s)", c.Kind, c.Bits, c.Cmp, c.Value, strings.Join(args, " "))
}

func renderExpr(e *sim.Expr) string {
	if e == nil {
		return "nil"
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = renderExpr(a)
	}
	return fmt.Sprintf("[%d %d %v %v %d %d %s %s]", e.Kind, e.Value, e.Bits, e.Signed, e.Op, e.Cmp, renderCond(e.Cond), strings.Join(args, " "))
}

func TestStreamedAsParsed(t *testing.T) {
	var srcs []string
	srcs = append(srcs, fuzzSeeds...)
	for _, b := range bombs {
		srcs = append(srcs, b.src)
	}
	for _, path := range corpusFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(src))
	}
	srcs = append(srcs,
		"OPENQASM 3.0;\nqubit[2] q;\nh q[0];\nend;\nx q[1];\n",
		"OPENQASM 3.0;\nqubit[2] q;\nh q[5];\nthis is not ( a program\n",
		"OPENQASM 3.0;\ngate g a { h a; }\nqubit[3] q;\ng q[0]; g q[1]; def f(qubit a) { x a; } f(q[2]);\n",
		straightLine(3000),
	)
	for _, src := range srcs {
		sameBothWays(t, src)
	}
}

func FuzzStreamedAsParsed(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 64<<10 {
			return
		}
		sameBothWays(t, src)
	})
}

// A parameter made of numbers, constants and + − × ÷ is evaluated on a
// fast path; it must give what the general evaluator gives, which a float
// variable declared with the same expression gets.
func TestConstantParametersAsEvaluated(t *testing.T) {
	for _, e := range []string{
		"0.5", "3", "-2", "pi", "-pi/4", "pi/2", "tau", "euler", "π", "2*pi/3", "1/3", "6/3", "7/2",
		"-(1+2)*pi", "1e-300*1e-300", "4503599627370495 + 1", "9007199254740993", "2/0.5",
		"1 - 2 - 3 - 4 - 5 - 6 - 7 - 8 - 9 - 10 - 11", "((((((((((pi))))))))))/2", "0x10", "1_000/3",
	} {
		direct, err := qasm.Compile("OPENQASM 3.0;\nqubit q;\nrz("+e+") q;\n", qasm.Options{})
		if err != nil {
			t.Fatalf("rz(%s): %v", e, err)
		}
		viaVar, err := qasm.Compile("OPENQASM 3.0;\nqubit q;\nfloat x = "+e+";\nrz(x) q;\n", qasm.Options{})
		if err != nil {
			t.Fatalf("float x = %s: %v", e, err)
		}
		a, b := direct.Ops[0].Gate().Matrix, viaVar.Ops[len(viaVar.Ops)-1].Gate().Matrix
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("rz(%s): %v, but through a variable %v", e, a, b)
		}
	}
}
