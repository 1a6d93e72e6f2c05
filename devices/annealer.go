package devices

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/qjobs/quantum/anneal"
	"github.com/qjobs/quantum/qtype"
)

// Annealer is the backend of the annealing devices: problems of the format
// "problem" (QUBO or Ising, as the public client sends them) solved by
// package anneal, within the Service's memory budget and work bound. A
// job's result is its solutions (resultData.solutions), not counts.
type Annealer struct {
	budget  int64
	maxWork int64 // each job's, in anneal's units: reads × sweeps × (variables + couplings)
}

// NewAnnealer returns the Annealer of a Service whose memory budget is
// budget and whose jobs may each do maxWork of work.
func NewAnnealer(budget, maxWork int64) *Annealer {
	return &Annealer{budget: budget, maxWork: maxWork}
}

// Cancellable reports that its jobs stop when cancelled (between sweeps).
func (a *Annealer) Cancellable() bool { return true }

// problemFormat is the format the annealer reads.
const problemFormat = "problem"

// job is a task read: its problem, the solver's options and what a run
// of them holds.
type job struct {
	problem *anneal.Problem
	opts    anneal.Options
	memory  int64
}

// read decodes the task's problem and options and sizes the run, refusing
// what the annealer cannot run with the field at fault: the same at create
// and at run.
func (a *Annealer) read(t qtype.Task) (*job, error) {
	if t.Program.Format != problemFormat {
		return nil, qtype.Invalid("program.format", "must be %s on an annealer (got %s)", problemFormat, t.Program.Format)
	}
	p, err := anneal.Decode([]byte(t.Program.Data))
	if err != nil {
		var pe *anneal.PathError
		if errors.As(err, &pe) {
			return nil, qtype.Invalid(dataPath(pe.Path), "%s", pe.Rule)
		}
		return nil, qtype.Invalid("program.data", "%s", err.Error())
	}
	opts, err := annealOptions(t, p)
	if err != nil {
		return nil, err
	}
	if opts.o.Method == anneal.SimulatedAnnealing && opts.o.BetaRange == nil {
		if r := anneal.DefaultBetaRange(p); anneal.CheckBetaRange(r, opts.o.Schedule) != nil {
			return nil, qtype.Invalid("program.data", "its biases give no finite default β range (%v, %v): the least nonzero one is too small; give runtimeOptions.beta_range", r[0], r[1])
		}
	}
	opts.o.MaxWork = cmp.Or(t.MaxWork, a.maxWork)
	memory, work := anneal.Need(p, opts.o)
	if work > opts.o.MaxWork {
		what, fix := "reads × sweeps × (variables + couplings)", "ask for fewer reads or sweeps"
		if opts.o.Method == anneal.Exact {
			what, fix = "the exact method's flips and the couplings each updates", "simulated_annealing takes it"
		}
		return nil, qtype.Invalid(opts.workField, "the run would do %d units of work (%s), more than the service's bound of %d: %s",
			work, what, opts.o.MaxWork, fix)
	}
	size := resultSize(p, opts.o)
	if size.json > maxResultBytes {
		return nil, qtype.Invalid(opts.readsField, "the result could hold %d solutions of %d variables, about %s of JSON, more than the %s a result may hold: ask for fewer reads",
			size.solutions, len(p.Names), qtype.ByteSize(size.json), qtype.ByteSize(maxResultBytes))
	}
	// What the run holds: the solver's need, the problem decoded again at
	// run, and the solutions as the result's data.
	return &job{problem: p, opts: opts.o, memory: memory + problemBytes(p) + size.memory}, nil
}

// dataPath is a problem's path under program.data.
func dataPath(path string) string {
	switch {
	case path == "":
		return "program.data"
	case path[0] == '[':
		return "program.data" + path
	}
	return "program.data." + path
}

// problemBytes is about what a decoded problem holds: its names (and the
// decoder's map of them), coefficients, and the terms as written.
func problemBytes(p *anneal.Problem) int64 {
	b := int64(len(p.Couplings)) * (16 + 24)
	for _, name := range p.Names {
		b += 2*int64(len(name)) + 96
	}
	return b
}

// Check decodes the problem and its options and says what the run holds.
// A problem whose run needs more than the whole budget is then refused by
// the Service (a VALIDATION_ERROR on program.data).
func (a *Annealer) Check(ctx context.Context, t qtype.Task) (qtype.Resources, error) {
	j, err := a.read(t)
	if err != nil {
		return qtype.Resources{}, err
	}
	return qtype.Resources{Memory: j.memory}, nil
}

// Run solves the problem: its solutions go in the result's data, with no
// counts.
func (a *Annealer) Run(ctx context.Context, t qtype.Task) (*qtype.RunResult, error) {
	j, err := a.read(t)
	if err != nil {
		return nil, err
	}
	seed := qtype.SeedOrFresh(t.Seed)
	j.opts.Seed = *seed
	j.opts.MemoryBudget = a.budget
	start := time.Now()
	res, err := anneal.Solve(ctx, j.problem, j.opts)
	if err != nil {
		if qtype.IsContextErr(err) {
			return nil, err
		}
		return nil, fmt.Errorf("annealing failed: %w", err)
	}
	seconds := time.Since(start).Seconds()
	md := map[string]any{"seed": *seed}
	if j.opts.Method == anneal.Exact {
		md["method"] = "exact"
		if res.Truncated {
			md["groundStatesTruncated"] = true
		}
	} else {
		md["method"] = "simulated_annealing"
		md["numReads"] = res.Reads
		md["numSweeps"] = res.Sweeps
		md["betaRange"] = []any{res.BetaRange[0], res.BetaRange[1]}
		md["betaScheduleType"] = j.opts.Schedule.String()
	}
	return &qtype.RunResult{Data: solutionsData(j.problem, res, seconds, j.memory), Metadata: md, Work: res.Work}, nil
}
