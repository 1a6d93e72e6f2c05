package qir

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/qjobs/quantum/sim"
)

// Options configure Compile.
type Options struct {
	// MaxQubits refuses programs that use more qubits, before anything is
	// allocated; 0 means sim.DefaultMaxQubits.
	MaxQubits int
	// EntryPoint names the function to run in a module with several
	// entry points; "" picks the only one.
	EntryPoint string
	// MaxSteps bounds the instructions one shot may run (and the trace
	// Compile makes); 0 means sim.DefaultMaxSteps.
	MaxSteps int
	// MaxOps bounds the circuit of a program whose operations are the
	// same every shot; a longer one runs shot by shot instead. 0 means
	// DefaultMaxOps.
	MaxOps int
}

// DefaultMaxOps is the default for Options.MaxOps.
const DefaultMaxOps = 2_000_000

// Program is a compiled QIR program.
type Program struct {
	// EntryPoint is the function that runs.
	EntryPoint string
	// Profile is the entry point's qir_profiles attribute
	// ("base_profile", "adaptive_profile", …), "" when it has none.
	Profile string
	// NumQubits is the width of the state the program runs on.
	NumQubits int
	// Circuit is set when the program's operations are the same every
	// shot (it never reads a measured result): the sim circuit they form,
	// with recorded result i in classical bit i. Run samples its shots
	// when its measurements are terminal. Nil means the program runs shot
	// by shot, interpreted.
	Circuit *sim.Circuit
	// ResultBits is the bits Circuit's counts are keyed by.
	ResultBits int

	c        *checked
	maxSteps int64
}

// Compile reads a QIR program as the service receives it: format "qir.ll"
// (LLVM IR text, or base64 of it), "qir.bc" or "pyqir" (base64 of LLVM
// bitcode). It checks everything it can before running: the module, the
// functions it calls, its entry point, its qubits against MaxQubits; then
// it runs the program once without a state to find whether it is the same
// circuit every shot. Errors are *Error, or *EntryPointError for the
// entry point, or ctx's.
func Compile(ctx context.Context, format, data string, opts Options) (*Program, error) {
	m, err := decode(format, data)
	if err != nil {
		return nil, err
	}
	return compileModule(ctx, m, opts)
}

func compileModule(ctx context.Context, m *module, opts Options) (*Program, error) {
	maxQubits := opts.MaxQubits
	if maxQubits <= 0 {
		maxQubits = sim.DefaultMaxQubits
	}
	c, err := checkModule(m, opts.EntryPoint, maxQubits)
	if err != nil {
		return nil, err
	}
	p := &Program{EntryPoint: c.entry.name, Profile: c.entry.attrs["qir_profiles"], c: c, maxSteps: int64(opts.MaxSteps)}
	if p.maxSteps <= 0 {
		p.maxSteps = sim.DefaultMaxSteps
	}
	maxOps := opts.MaxOps
	if maxOps <= 0 {
		maxOps = DefaultMaxOps
	}
	// The trace: allocated qubits may go up to the limit here; the
	// program's width is what it used.
	t := &tracer{maxOps: maxOps}
	// Room for a straight-line program's trace, so that a long one is not
	// copied as it grows; a loop's grows past it.
	t.circ.Ops = make([]sim.Op, 0, min(c.ops+c.qubits, maxOps, maxTraceBytes/opBytes))
	mc := newMachine(c, maxQubits, p.maxSteps)
	err = mc.shot(ctx, t)
	switch {
	case err == nil:
		if circ, bits, ok := t.circuit(max(mc.nextQ, mc.usedQ, c.qubits)); ok {
			p.Circuit, p.ResultBits, p.NumQubits = circ, bits, circ.NumQubits
			return p, nil
		}
	case errors.Is(err, errDynamic), errors.Is(err, errTraceLong):
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil, err
	case errors.Is(err, errTooWide):
		return nil, errorf("the program uses more than the %d qubits the device has", maxQubits)
	default:
		// The same every shot until here, so every shot would fail.
		var e *Error
		if errors.As(err, &e) {
			e.Msg = "the program fails when run: " + e.Msg
			return nil, e
		}
		return nil, errorf("the program fails when run: %v", err)
	}
	// Shot by shot: wide enough for the static qubits, what the trace
	// used, and every allocation site once.
	p.NumQubits = min(maxQubits, max(mc.nextQ, mc.usedQ, c.qubits+c.allocs))
	return p, nil
}

// PerShot reports whether the program runs shot by shot: it reads
// measurements, or its circuit's measurements are not terminal.
func (p *Program) PerShot() bool { return p.Circuit == nil || p.Circuit.PerShot() }

// MemoryNeed is what Run may allocate with opts, as sim.MemoryNeed.
func (p *Program) MemoryNeed(opts sim.Options) int64 {
	_, most := p.MemoryNeeds(opts)
	return most
}

// MemoryNeeds is what Run holds with opts.Grow set, from its start and at
// most, as sim.MemoryNeeds.
func (p *Program) MemoryNeeds(opts sim.Options) (start, most int64) {
	if p.Circuit != nil {
		opts.ResultBits = p.ResultBits
		return sim.MemoryNeeds(p.Circuit, opts)
	}
	m, _, err := p.Method(opts)
	if err != nil {
		return math.MaxInt64, math.MaxInt64
	}
	if m == sim.MethodSparse {
		// Its nonzero amplitudes may fill the budget: the gates are known
		// only as the shots run.
		return sim.SparseShotStart(opts.Limits), sim.SparseShotNeed(opts.Limits)
	}
	opts.Method = m
	one := &sim.Circuit{NumQubits: p.NumQubits}
	need := sim.MemoryNeed(one, opts) + int64(p.c.results)
	return need, need
}

// Run runs the program for opts.Shots shots. A program with a circuit
// runs on sim.Run (sampled when it can be); the others are interpreted
// shot by shot on one state vector, within opts' step limits. Counts are
// keyed by the recorded results, the first recorded rightmost.
func (p *Program) Run(ctx context.Context, opts sim.Options) (*sim.Result, error) {
	if p.Circuit != nil {
		opts.ResultBits = p.ResultBits
		return sim.Run(ctx, p.Circuit, opts)
	}
	if opts.Shots < 1 {
		return nil, fmt.Errorf("qir: shots must be at least 1")
	}
	var noise *sim.PreparedNoise
	if opts.Noise != nil {
		var err error
		if noise, err = opts.Noise.Prepare(); err != nil {
			return nil, err
		}
	}
	var seed uint64
	if opts.Seed != nil {
		seed = *opts.Seed
	} else {
		seed = rand.Uint64()
	}
	method, reason, err := p.Method(opts)
	if err != nil {
		return nil, err
	}
	st, err := sim.NewShotState(method, p.NumQubits, opts)
	if err != nil {
		return nil, err
	}
	dev := &live{ctx: ctx, st: st, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), work: newWork(opts.MaxWork), noise: noise}
	maxSteps := p.maxSteps
	if opts.MaxSteps > 0 {
		maxSteps = int64(opts.MaxSteps)
	}
	maxBytes := opts.MaxResultBytes
	if maxBytes <= 0 {
		maxBytes = sim.DefaultMaxResultBytes
	}
	mc := newMachine(p.c, p.NumQubits, maxSteps)
	counts := map[string]int{}
	var keyBytes int64
	for range opts.Shots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := dev.work.charge(st.Work(1)); err != nil {
			return nil, err
		}
		if err := st.ResetAll(ctx); err != nil {
			return nil, err
		}
		clear(dev.res)
		dev.rec = dev.rec[:0]
		if err := mc.shot(ctx, dev); err != nil {
			if errors.Is(err, errTooWide) {
				return nil, fmt.Errorf("%w: a shot needs more than %d qubits at once", errTooWide, p.NumQubits)
			}
			return nil, err
		}
		// A shot's instructions cost a unit each; its quantum operations
		// were charged as they ran.
		if err := dev.work.charge(mc.steps); err != nil {
			return nil, err
		}
		k, err := dev.key()
		if err != nil {
			return nil, err
		}
		if _, seen := counts[k]; !seen {
			if keyBytes += int64(len(k)); keyBytes > maxBytes {
				return nil, fmt.Errorf("%w: distinct outcomes past %d bytes", sim.ErrResultTooLarge, maxBytes)
			}
		}
		counts[k]++
	}
	return &sim.Result{Counts: counts, Seed: seed, PerShot: true, Work: dev.work.total - dev.work.left, Method: method, MethodReason: reason}, nil
}
