package devices

import (
	"math"

	"github.com/qjobs/quantum/anneal"
	"github.com/qjobs/quantum/qtype"
)

// annealOpts are a job's runtimeOptions as the annealer reads them, and
// the fields a refusal of their work or result names.
type annealOpts struct {
	o                     anneal.Options
	workField, readsField string
}

// annealOptions reads runtimeOptions (decisions.md, the format "problem"):
// num_reads (default: the job's shots), num_sweeps (default 1,000),
// beta_range ([hot, cold], default from the biases), beta_schedule_type
// (geometric, linear), method (simulated_annealing, exact). seed is the
// Service's (Task.Seed). Every bad option is said at once.
func annealOptions(t qtype.Task, p *anneal.Problem) (annealOpts, error) {
	opts := t.RuntimeOptions
	var bad qtype.Validation
	out := annealOpts{o: anneal.Options{Reads: max(t.Shots, 1)}, workField: "program.data", readsField: "shots"}
	if t.Shots > 1 {
		out.workField = "shots"
	}
	most := qtype.DefaultMaxShots
	if t.Device != nil {
		most = t.Device.ShotLimit()
	}
	if v, ok := option(opts, "num_reads"); ok {
		n, isInt := qtype.TagValue(v)
		reads, _ := n.(int64)
		if !isInt || reads < 1 || reads > int64(most) {
			bad.Add("runtimeOptions.num_reads", "must be an integer from 1 to %d (got %v)", most, v)
		}
		out.o.Reads = int(min(max(reads, 1), int64(most)))
		out.workField, out.readsField = "runtimeOptions.num_reads", "runtimeOptions.num_reads"
	}
	if v, ok := option(opts, "num_sweeps"); ok {
		n, isInt := qtype.TagValue(v)
		sweeps, _ := n.(int64)
		if !isInt || sweeps < 1 {
			bad.Add("runtimeOptions.num_sweeps", "must be an integer of at least 1 (got %v)", v)
		}
		out.o.Sweeps = int(min(max(sweeps, 1), math.MaxInt32))
		out.workField = "runtimeOptions.num_sweeps"
	}
	if v, ok := option(opts, "beta_schedule_type"); ok {
		switch v {
		case "geometric":
			out.o.Schedule = anneal.Geometric
		case "linear":
			out.o.Schedule = anneal.Linear
		default:
			bad.Add("runtimeOptions.beta_schedule_type", `must be "geometric" (the default) or "linear" (got %v)`, v)
		}
	}
	if v, ok := option(opts, "beta_range"); ok {
		switch r, isPair := betaRange(v); {
		case !isPair:
			bad.Add("runtimeOptions.beta_range", "must be [hot, cold]: two numbers, the first sweep's β and the last's (got %v)", v)
		case anneal.CheckBetaRange(r, out.o.Schedule) != nil:
			bad.Add("runtimeOptions.beta_range", "must be two finite numbers of at least 0, above 0 for a geometric schedule (got %v)", v)
		default:
			out.o.BetaRange = &r
		}
	}
	if v, ok := option(opts, "method"); ok {
		switch v {
		case "simulated_annealing":
		case "exact":
			if len(p.Names) > anneal.MaxExactVariables {
				bad.Add("runtimeOptions.method", "exact enumerates every assignment of at most %d variables; the problem has %d",
					anneal.MaxExactVariables, len(p.Names))
			}
			out.o.Method = anneal.Exact
			out.workField = "runtimeOptions.method"
		default:
			bad.Add("runtimeOptions.method", `must be "simulated_annealing" (the default) or "exact" (got %v)`, v)
		}
	}
	return out, bad.Err()
}

// option is a runtime option that is present and not null.
func option(opts map[string]any, key string) (any, bool) {
	v, ok := opts[key]
	return v, ok && v != nil
}

// betaRange reads [hot, cold] as runtimeOptions hold it (JSON numbers in
// an array).
func betaRange(v any) ([2]float64, bool) {
	list, ok := v.([]any)
	if !ok || len(list) != 2 {
		return [2]float64{}, false
	}
	var r [2]float64
	for i, x := range list {
		switch n := x.(type) {
		case float64:
			r[i] = n
		case int64:
			r[i] = float64(n)
		case int:
			r[i] = float64(n)
		default:
			return r, false
		}
	}
	return r, true
}
