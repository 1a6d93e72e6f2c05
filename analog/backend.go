package analog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/rydberg"
)

// Backend runs the jobs of analog devices (formats analog and
// pulser.sequence) on package rydberg, within a memory budget and a work
// bound.
type Backend struct {
	budget  int64
	maxWork int64
}

// NewBackend returns the Backend of a Service whose memory budget is
// budget and whose jobs may each do maxWork of work (amplitudes touched).
func NewBackend(budget, maxWork int64) *Backend { return &Backend{budget: budget, maxWork: maxWork} }

// Cancellable reports that its jobs stop when cancelled (between the
// simulator's passes).
func (b *Backend) Cancellable() bool { return true }

// job is a task decoded: the program to simulate and how its shots are
// read out.
type job struct {
	program *rydberg.Program
	// analog: the register's sites and, for each, its atom (−1 empty).
	sites  int
	atomOf []int
	pulser bool
	// radius is runtimeOptions.blockadeRadius in metres (0: none).
	radius float64
	// noise is the device's model the job runs with ("" for ideal).
	noise string
}

// decode reads a task's program and options, checking them against the
// rules of the format and the limits of the device.
func (b *Backend) decode(t qtype.Task) (*job, error) {
	j := &job{}
	var err error
	switch t.Program.Format {
	case "analog":
		err = j.decodeAnalog(t)
	case "pulser.sequence":
		j.pulser = true
		var s *pulserSeq
		if s, err = decodePulser(t.Program.Data, t.Device.NumberQubits); err == nil {
			j.program = s.program()
		}
	default:
		return nil, qtype.Invalid("program.format", "must be analog or pulser.sequence on %s, got %q", t.Device.QRN, t.Program.Format)
	}
	if err != nil {
		return nil, err
	}
	if err := j.program.Validate(); err != nil {
		return nil, qtype.Invalid("program.data", "%s", strings.TrimPrefix(err.Error(), rydberg.ErrProgram.Error()+": "))
	}
	if j.radius, err = blockadeRadius(t.RuntimeOptions); err != nil {
		return nil, err
	}
	j.noise = noiseModel(t)
	return j, nil
}

func (j *job) decodeAnalog(t qtype.Task) error {
	a, err := decodeAHS(t.Program.Data)
	if err != nil {
		return err
	}
	var p problems
	if n := t.Device.NumberQubits; n > 0 && len(a.sites) > n && t.Device.QRN != AquilaQRN {
		p.add(a.sitesPath, "has %d sites; %s has %d", len(a.sites), t.Device.QRN, n)
	}
	if t.Device.QRN == AquilaQRN {
		checkAquila(a, &p)
	}
	checkApart(a, &p)
	if !p.ok() {
		return p.err()
	}
	j.sites = len(a.sites)
	j.program, j.atomOf = a.program()
	return nil
}

// checkApart refuses two filled sites at one position: their atoms'
// interaction would be infinite.
func checkApart(a *ahs, p *problems) {
	seen := map[[2]float64]int{}
	for i, s := range a.sites {
		if !a.filling[i] {
			continue
		}
		if j, ok := seen[s]; ok {
			p.add(fmt.Sprintf("%s[%d]", a.sitesPath, i), "is where site %d is, and both are filled", j)
			return
		}
		seen[s] = i
	}
}

// blockadeRadius reads runtimeOptions.blockadeRadius: a distance in
// metres, 0 or more.
func blockadeRadius(opts map[string]any) (float64, error) {
	v, ok := opts["blockadeRadius"]
	if !ok || v == nil {
		return 0, nil
	}
	var r float64
	switch x := v.(type) {
	case int64:
		r = float64(x)
	case float64:
		r = x
	case int:
		r = float64(x)
	default:
		return 0, qtype.Invalid("runtimeOptions.blockadeRadius", "must be a distance in metres, a number, got %v", v)
	}
	if !(r >= 0) || math.IsInf(r, 0) {
		return 0, qtype.Invalid("runtimeOptions.blockadeRadius", "must be a distance in metres, 0 or more, got %v", v)
	}
	if r > 1 {
		return 0, qtype.Invalid("runtimeOptions.blockadeRadius", "is %v m, more than a metre: it is in metres (Aquila's blockade radius is about 8e-6)", v)
	}
	return r, nil
}

// noiseModel is the device model the task runs with: the one
// runtimeOptions.noiseModel names (create checked it is the device's),
// else the device's default; "" for ideal.
func noiseModel(t qtype.Task) string {
	name, _ := t.RuntimeOptions["noiseModel"].(string)
	if name == "" {
		name = t.Device.DefaultNoiseModel
	}
	if name == "ideal" {
		return ""
	}
	return name
}

func (j *job) options(budget, maxWork int64) rydberg.Options {
	return rydberg.Options{BlockadeRadius: j.radius * 1e6, MemoryBudget: budget, MaxWork: maxWork}
}

// Check decodes and checks the program and counts the memory simulating
// it holds: past the memory budget it is refused, naming the atoms, the
// configurations and the need.
func (b *Backend) Check(ctx context.Context, t qtype.Task) (qtype.Resources, error) {
	j, err := b.decode(t)
	if err != nil {
		return qtype.Resources{}, err
	}
	need, err := rydberg.Estimate(j.program, j.options(b.budget, 0))
	if err != nil {
		return qtype.Resources{}, qtype.Invalid("program.data", "%v", err)
	}
	if need.AtLeast || need.Bytes > float64(b.budget) {
		return qtype.Resources{}, b.tooLarge(j, need)
	}
	return qtype.Resources{Memory: int64(need.Bytes)}, nil
}

// tooLarge is the refusal of a program whose simulation needs more than
// the memory budget.
func (b *Backend) tooLarge(j *job, need rydberg.Need) error {
	atoms := fmt.Sprintf("%d atoms", need.Atoms)
	if j.sites > 0 && j.sites != need.Atoms {
		atoms += fmt.Sprintf(" (the filled sites of %d)", j.sites)
	}
	bytes := size(need.Bytes)
	if need.AtLeast {
		bytes = "at least " + bytes
	}
	if !need.Restricted {
		hint := ""
		if j.radius == 0 {
			hint = "; runtimeOptions.blockadeRadius (in metres) keeps only the configurations with no two Rydberg atoms within it, as Braket's local simulator does"
		}
		return qtype.Invalid("program.data", "the %s have 2^%d = %s configurations: simulating them needs %s, more than the memory budget of %s%s",
			atoms, need.Atoms, count(need.Configurations), bytes, qtype.ByteSize(b.budget), hint)
	}
	at := ""
	if need.AtLeast {
		at = "at least "
	}
	return qtype.Invalid("program.data", "within the blockade radius of %g m the %s have %s%s configurations: simulating them needs %s, more than the memory budget of %s",
		j.radius, atoms, at, count(need.Configurations), bytes, qtype.ByteSize(b.budget))
}

// size writes a memory need: in binary units, or in bytes and powers of
// ten past what an int64 holds (2^75 configurations need 3.93e+24).
func size(b float64) string {
	if b < 1<<62 {
		return qtype.ByteSize(int64(b))
	}
	return fmt.Sprintf("%.3g bytes", b)
}

// count writes a number of configurations in full, or in powers of ten
// past 10^15.
func count(x float64) string {
	if x < 1e15 {
		return commas(int64(x))
	}
	return fmt.Sprintf("%.3g", x)
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Run simulates the program, draws the shots with the job's seed and
// reads them out as the device does.
func (b *Backend) Run(ctx context.Context, t qtype.Task) (*qtype.RunResult, error) {
	j, err := b.decode(t)
	if err != nil {
		return nil, err
	}
	seed := qtype.SeedOrFresh(t.Seed)
	start := time.Now()
	maxWork := cmp.Or(t.MaxWork, b.maxWork)
	st, err := rydberg.Evolve(ctx, j.program, j.options(b.budget, maxWork))
	var tl *rydberg.TooLargeError
	switch {
	case qtype.IsContextErr(err):
		return nil, err
	case errors.Is(err, rydberg.ErrWorkLimit):
		return nil, fmt.Errorf("simulation failed: work limit exceeded: the job's work would pass its bound of %d units, amplitudes touched (each term of the series is a pass over every configuration and its neighbours); the bound is the service's WithMaxWork, the server's -max-work", maxWork)
	case errors.As(err, &tl):
		return nil, b.tooLarge(j, tl.Need)
	case err != nil:
		return nil, fmt.Errorf("simulation failed: %v", err)
	}
	shots := st.Sample(t.Shots, *seed)
	res := &qtype.RunResult{Metadata: j.metadata(st, *seed, start)}
	if j.pulser {
		res.Counts = pulserCounts(st, shots)
	} else {
		res.Counts, res.Data = j.readAnalog(st, shots, *seed)
	}
	res.Work = st.Work
	return res, nil
}

func (j *job) metadata(st *rydberg.State, seed uint64, start time.Time) map[string]any {
	md := map[string]any{
		"seed":           seed,
		"numAtoms":       st.Atoms(),
		"configurations": st.Len(),
		"method":         "taylor",
		"tolerance":      rydberg.DefaultTolerance,
		"errorBound":     st.ErrorBound,
		"steps":          st.Steps,
		"terms":          st.Terms,
		"simulationMs":   time.Since(start).Milliseconds(),
		"space":          "full",
		"c6":             j.program.C6,
	}
	if j.radius > 0 {
		md["blockadeRadius"] = j.radius
		if st.Restricted {
			md["space"] = "blockade"
		}
	}
	if j.noise != "" {
		md["noiseModel"] = j.noise
	}
	return md
}
