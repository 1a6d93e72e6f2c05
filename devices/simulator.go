package devices

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/qir"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/sim"
)

// Simulator is the backend of the built-in gate-model devices: OpenQASM 2
// and 3 compiled by qasm, QIR read by qir, both run on sim, within a memory
// budget and a work bound, enforcing a device's Topology and Calibration.
type Simulator struct {
	budget   int64
	maxWork  int64 // sim.Options.MaxWork of every job
	compiled *compiledCache
}

// NewSimulator returns the Simulator of a Service whose memory budget is
// budget and whose jobs may each do maxWork of work (sim.Options.MaxWork).
func NewSimulator(budget, maxWork int64) *Simulator {
	return &Simulator{budget: budget, maxWork: maxWork, compiled: newCompiledCache()}
}

// Cancellable reports that its jobs stop when cancelled.
func (b *Simulator) Cancellable() bool { return true }

// program is a compiled program of either front end.
type program struct {
	precision sim.Precision
	method    sim.Method
	// noise is the model the job runs with (nil: ideal), noiseName its
	// name for the metadata.
	noise     *sim.NoiseModel
	noiseName string
	// numQubits are the qubits simulated; declaredQubits those the
	// program declares (more when some are never used).
	numQubits      int
	declaredQubits int
	// qubits, when the circuit was compacted, are the declared qubits it
	// runs on (sim.Circuit.Compact): a device's noise model is moved onto
	// them.
	qubits     []int
	circuit    *sim.Circuit // qasm, and QIR that is the same circuit every shot
	resultBits int
	qir        *qir.Program // QIR that runs shot by shot
	entryPoint string       // QIR's
	fits       int          // QIR run shot by shot: the most qubits a state vector within the budget holds
}

// fits is the most qubits, up to n, whose state in precision prec the
// memory budget holds.
func (b *Simulator) fits(n int, prec sim.Precision) int {
	for n > 0 && (sim.Limits{MaxQubits: n, MemoryBudget: b.budget}).CheckPrecision(n, prec) != nil {
		n--
	}
	return n
}

// memoryNeeds is what a run of p holds from its start and at most, with
// opts.Grow set.
func (p *program) memoryNeeds(opts sim.Options) (start, most int64) {
	if p.qir != nil {
		return p.qir.MemoryNeeds(opts)
	}
	return sim.MemoryNeeds(p.circuit, opts)
}

// methodOf is the method a run of p takes with opts, and why when auto
// chose it.
func (p *program) methodOf(opts sim.Options) (sim.Method, string) {
	var m sim.Method
	var reason string
	if p.qir != nil {
		m, reason, _ = p.qir.Method(opts)
	} else {
		m, reason, _ = p.circuit.Method(opts)
	}
	return m, reason
}

func (p *program) run(ctx context.Context, opts sim.Options) (*sim.Result, error) {
	if p.qir != nil {
		return p.qir.Run(ctx, opts)
	}
	return sim.Run(ctx, p.circuit, opts)
}

// qirFormats are the formats qir reads.
var qirFormats = []string{"qir.ll", "qir.bc", "pyqir"}

// compile checks the format against the program and lowers it, refusing
// more qubits than the device has (Check refuses what no method can hold
// within the budget). A small program is compiled once for all the jobs
// that send it (compiledCache).
func (b *Simulator) compile(ctx context.Context, t qtype.Task) (*program, error) {
	prec, err := precision(t.RuntimeOptions)
	if err != nil {
		return nil, err
	}
	method, err := methodOption(t.RuntimeOptions, t.Device)
	if err != nil {
		return nil, err
	}
	noise, noiseName := noiseOf(t)
	// A circuit is simulated on the qubits it uses (Compact), so a
	// program may name any of the device's; a QIR program that reads its
	// measurements runs on all its qubits, which some method must hold
	// (checkMethod).
	limit := t.Device.NumberQubits
	key, keyed := cacheKey(t, limit)
	// A device with a coupling map checks every program against it
	// (checkCoupling), which the cache's key does not name.
	keyed = keyed && !t.Device.HasCouplings()
	var compiled *program
	if keyed {
		compiled = b.compiled.get(key)
	}
	if compiled == nil {
		var err error
		if compiled, err = b.compileFormat(ctx, t, limit, prec); err != nil {
			return nil, err
		}
		if keyed {
			b.compiled.put(key, compiled)
		}
	}
	// The compiled program may be shared (compiledCache): the job's
	// options go on a copy of its header; the circuit is only read.
	p := *compiled
	p.setOptions(prec, method, noise, noiseName)
	return &p, nil
}

// setOptions sets what the job's runtime options and device say of how
// p runs.
func (p *program) setOptions(prec sim.Precision, method sim.Method, noise *sim.NoiseModel, noiseName string) {
	if noise != nil && p.qubits != nil {
		noise = noise.OnQubits(p.qubits)
	}
	p.precision, p.method, p.noise, p.noiseName = prec, method, noise, noiseName
}

// precision reads runtimeOptions.precision: "double" (the default) or
// "single", which halves the state's memory for errors around 1e-6.
func precision(opts map[string]any) (sim.Precision, error) {
	v, ok := opts["precision"]
	if !ok || v == nil || v == "double" {
		return sim.Double, nil
	}
	if v == "single" {
		return sim.Single, nil
	}
	return 0, qtype.Invalid("runtimeOptions.precision", `must be "double" or "single"`)
}

// methodOption reads runtimeOptions.method (decisions.md, "Simulation
// methods"); auto when absent, or the device's own method (Device.Method),
// which a job may name too but no other.
func methodOption(opts map[string]any, d *qtype.Device) (sim.Method, error) {
	var m sim.Method
	if v, ok := opts["method"]; ok && v != nil {
		name, _ := v.(string)
		var err error
		if m, err = sim.ParseMethod(name); err != nil {
			return 0, qtype.Invalid("runtimeOptions.method", "must be one of auto, statevector, densitymatrix, stabilizer, sparse (got %v)", v)
		}
	}
	if d == nil || d.Method == "" {
		return m, nil
	}
	own, err := sim.ParseMethod(d.Method)
	if err != nil {
		return 0, fmt.Errorf("device %s: method %q: %w", d.QRN, d.Method, err)
	}
	if m != sim.MethodAuto && m != own {
		return 0, qtype.Invalid("runtimeOptions.method", "%s runs the %s method only (got %s)", d.QRN, own, m)
	}
	return own, nil
}

func (b *Simulator) compileFormat(ctx context.Context, t qtype.Task, limit int, prec sim.Precision) (*program, error) {
	switch {
	case slices.Contains(qirFormats, t.Program.Format):
		return b.compileQIR(ctx, t, limit, prec)
	case t.Program.Format == "quil":
		return compileQuil(ctx, t, limit)
	case t.Program.Format == "ionq.circuit.v0":
		return compileIonQ(ctx, t, limit)
	}
	p, err := qasm.CompileProgramContext(ctx, t.Program.Data, qasm.Options{
		MaxQubits: limit,
		Inputs:    inputs(t.RuntimeOptions),
	})
	if err != nil {
		if qtype.IsContextErr(err) {
			return nil, err
		}
		return nil, qtype.Invalid("program.data", "%s", err.Error())
	}
	want := map[string]int{"qasm2": 2, "qasm3": 3}[t.Program.Format]
	if p.Version != want {
		return nil, qtype.Invalid("program.format", "is %s but the program is OpenQASM %d", t.Program.Format, p.Version)
	}
	if err := checkCoupling(t.Device, p.Circuit); err != nil {
		return nil, err
	}
	c, qubits := p.Circuit.Compact()
	return &program{numQubits: c.NumQubits, declaredQubits: p.Circuit.NumQubits, circuit: c, qubits: qubits, resultBits: p.OutputBits}, nil
}

// compileQIR reads a QIR program; runtimeOptions.entryPoint picks the
// function of a module with several entry points.
func (b *Simulator) compileQIR(ctx context.Context, t qtype.Task, limit int, prec sim.Precision) (*program, error) {
	entry, _ := t.RuntimeOptions["entryPoint"].(string)
	if v, ok := t.RuntimeOptions["entryPoint"]; ok && entry == "" {
		return nil, qtype.Invalid("runtimeOptions.entryPoint", "must be a function's name, a non-empty string (got %v)", v)
	}
	p, err := qir.Compile(ctx, t.Program.Format, t.Program.Data, qir.Options{MaxQubits: limit, EntryPoint: entry})
	var ep *qir.EntryPointError
	switch {
	case err == nil:
		if p.Circuit == nil {
			return &program{numQubits: p.NumQubits, resultBits: p.ResultBits, qir: p, entryPoint: p.EntryPoint, fits: b.fits(t.Device.NumberQubits, prec)}, nil
		}
		if err := checkCoupling(t.Device, p.Circuit); err != nil {
			return nil, err
		}
		c, qubits := p.Circuit.Compact()
		return &program{numQubits: c.NumQubits, declaredQubits: p.NumQubits, circuit: c, qubits: qubits, resultBits: p.ResultBits, entryPoint: p.EntryPoint}, nil
	case qtype.IsContextErr(err):
		return nil, err
	case errors.As(err, &ep):
		return nil, qtype.Invalid("runtimeOptions.entryPoint", "%s", ep.Msg)
	}
	return nil, qtype.Invalid("program.data", "%s", err.Error())
}

func (b *Simulator) Check(ctx context.Context, t qtype.Task) (qtype.Resources, error) {
	p, err := b.compile(ctx, t)
	if err != nil {
		return qtype.Resources{}, err
	}
	opts := b.options(t, p, nil)
	if err := p.checkMethod(opts); err != nil {
		var e *qtype.Error
		if t.Device.Method != "" && errors.As(err, &e) && len(e.Details) == 1 {
			// The device's method, not one the job asked for: the program
			// is at fault.
			return qtype.Resources{}, qtype.Invalid("program.data", "%s; %s (%s) runs the %s method only", e.Details[0].Message, t.Device.Name, t.Device.QRN, t.Device.Method)
		}
		return qtype.Resources{}, err
	}
	start, most := p.memoryNeeds(opts)
	if most > b.budget {
		return qtype.Resources{}, b.tooLarge(p, opts, most)
	}
	return qtype.Resources{Memory: start, MaxMemory: most}, nil
}

// tooLarge refuses a program whose run may need more than the whole
// memory budget, naming the method, the need and the budget: on the
// sparse method, what its bound on nonzero amplitudes comes from.
func (b *Simulator) tooLarge(p *program, opts sim.Options, most int64) error {
	m, reason := p.methodOf(opts)
	why := ""
	if reason != "" {
		why = " (auto chose it: " + reason + ")"
	}
	if m == sim.MethodSparse && p.circuit != nil {
		k := p.circuit.SparseLog2(opts)
		return qtype.Invalid("program.data", "on the sparse method%s the program may hold up to 2^%d nonzero amplitudes, %s at %d bytes each, "+
			"more than the memory budget of %s: its branching gates (such as h, rx or u) put %d qubits in superposition at once, with no measurement or reset between",
			why, k, qtype.ByteSize(most), sim.SparseEntryBytes, qtype.ByteSize(b.budget), k)
	}
	return qtype.Invalid("program.data", "on the %s method%s running the program needs %s of memory, more than the memory budget of %s",
		m, why, qtype.ByteSize(most), qtype.ByteSize(b.budget))
}

// checkMethod refuses, at create, a method that cannot run the program,
// saying why.
func (p *program) checkMethod(opts sim.Options) error {
	var err error
	switch {
	case p.circuit != nil:
		_, _, err = p.circuit.Method(opts)
	default:
		var m sim.Method
		m, _, err = p.qir.Method(opts)
		if err == nil && m == sim.MethodStateVector && p.numQubits > p.fits {
			msg := "the program reads its measurements, so it runs shot by shot on a state of all its %d qubits (its qubit ids from 0 up, and those it allocates); a state vector within the memory budget holds %d"
			if opts.Method == sim.MethodAuto {
				msg += fmt.Sprintf(", the sparse method %d, and the stabilizer runs Clifford programs only (it calls @%s)", sim.MaxSparseQubits, p.qir.NotClifford())
			}
			return qtype.Invalid("program.data", msg, p.numQubits, p.fits)
		}
	}
	if errors.Is(err, sim.ErrMethod) {
		return qtype.Invalid("runtimeOptions.method", "%s", strings.TrimPrefix(err.Error(), sim.ErrMethod.Error()+": "))
	}
	return err
}

// options are the simulator's options for a task: the same at create,
// where they size the job's memory, and at run.
func (b *Simulator) options(t qtype.Task, p *program, seed *uint64) sim.Options {
	return sim.Options{
		Shots:      t.Shots,
		Seed:       seed,
		Limits:     sim.Limits{MaxQubits: t.Device.NumberQubits, MemoryBudget: b.budget},
		ResultBits: p.resultBits,
		Precision:  p.precision,
		MaxWork:    cmp.Or(t.MaxWork, b.maxWork),
		Method:     p.method,
		Noise:      p.noise,
	}
}

func (b *Simulator) Run(ctx context.Context, t qtype.Task) (*qtype.RunResult, error) {
	p, err := b.compile(ctx, t)
	if err != nil {
		return nil, err
	}
	seed := qtype.SeedOrFresh(t.Seed)
	start := time.Now()
	opts := b.options(t, p, seed)
	opts.Grow, opts.Held = t.Grow, t.Memory
	res, err := p.run(ctx, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		if errors.Is(err, sim.ErrWorkLimit) {
			return nil, fmt.Errorf("simulation failed: work limit exceeded: the job's work would pass its bound of %d units, amplitudes touched (a gate on n qubits touches 2^n; a loop that does not end?); the bound is the service's WithMaxWork, the server's -max-work", b.maxWork)
		}
		return nil, fmt.Errorf("simulation failed: %s", strings.TrimPrefix(err.Error(), "sim: "))
	}
	path := "sampled"
	if res.PerShot {
		path = "per-shot"
	}
	md := map[string]any{
		"seed":          res.Seed,
		"executionPath": path,
		"numQubits":     p.numQubits,
		"simulationMs":  time.Since(start).Milliseconds(),
		"precision":     boxedName(p.precision.String()),
	}
	if p.entryPoint != "" {
		md["entryPoint"] = p.entryPoint
	}
	if p.declaredQubits > p.numQubits {
		md["declaredQubits"] = p.declaredQubits
	}
	md["method"] = boxedName(res.Method.String())
	if res.MethodReason != "" {
		md["methodReason"] = res.MethodReason
	}
	if p.noise != nil {
		md["noiseModel"] = p.noiseName
	}
	return &qtype.RunResult{Counts: res.Counts, Metadata: md, Work: res.Work}, nil
}

// boxedNames are the names of the methods and precisions as interface
// values, made once: a string put in an interface is an allocation each
// time, and every job's metadata names both.
var boxedNames = func() map[string]any {
	m := map[string]any{}
	for _, p := range []sim.Precision{sim.Double, sim.Single} {
		m[p.String()] = p.String()
	}
	for i := range 32 {
		if name := sim.Method(i).String(); !strings.HasPrefix(name, "Method(") {
			m[name] = name
		}
	}
	return m
}()

func boxedName(s string) any {
	if v, ok := boxedNames[s]; ok {
		return v
	}
	return s
}

// inputs passes runtimeOptions to OpenQASM 3 input declarations: every key
// but the ones the service reads itself (nil when there is none).
func inputs(opts map[string]any) map[string]any {
	var in map[string]any
	for k, v := range opts {
		if !serviceOption(k) {
			if in == nil {
				in = map[string]any{}
			}
			in[k] = v
		}
	}
	return in
}

func serviceOption(k string) bool {
	return k == "seed" || k == "noiseModel" || k == "entryPoint" || k == "precision" || k == "method"
}
