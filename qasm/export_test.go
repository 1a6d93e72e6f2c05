package qasm

import "context"

// CompileCharged is CompileProgramContext that also reports the bytes
// the compile charged against MaxBytes.
func CompileCharged(ctx context.Context, src string, opts Options) (*Program, int64, error) {
	return compileProgram(ctx, src, opts, streams(src), false)
}

// CompileGeneral is CompileCharged with every parameter and operand read
// by the expression parser, none of the parser's shortcuts.
func CompileGeneral(src string, opts Options) (*Program, int64, error) {
	return compileProgram(context.Background(), src, opts, streams(src), true)
}

// CompileParsedFirst compiles src parsed whole first, as a program with
// physical qubits or inputs is, whatever it holds.
func CompileParsedFirst(src string, opts Options) (*Program, error) {
	p, _, err := compileProgram(context.Background(), src, opts, false, false)
	return p, err
}

// Parse only parses src.
func Parse(src string) error {
	if _, _, _, err := parse(src, newPoller(context.Background()), false); err != nil {
		return err
	}
	return nil
}

// FastGates compiles src as a program without physical qubits or inputs
// is compiled, and reports how many of its statements fastGate placed.
func FastGates(src string) (n int, err error) {
	c := newCompiler(Options{}, 3, newPoller(context.Background()))
	if e := catch(func() {
		if e := compileStreaming(c, src, false); e != nil {
			panic(bail{e})
		}
	}); e != nil {
		return 0, e
	}
	return c.fastPlaced, nil
}

// Unrolled is o with every loop unrolled, none kept as a loop.
func Unrolled(o Options) Options {
	o.unrollLoops = true
	return o
}
