package devices

import (
	"github.com/qjobs/quantum/anneal"
	"github.com/qjobs/quantum/sim"
)

// maxResultBytes bounds the JSON of an annealing job's solutions, as
// sim.DefaultMaxResultBytes bounds a circuit's counts: a result the
// service must store and send.
const maxResultBytes = sim.DefaultMaxResultBytes

// exactSolutions is the most ground states the exact method returns
// (anneal.Options.MaxSolutions' default).
const exactSolutions = 1000

// size is what a run's solutions come to: at most how many, their JSON,
// and what they hold in memory as the result's data.
type size struct {
	solutions    int64
	json, memory int64
}

// resultSize bounds a run's solutions: one per read at most (or per
// assignment, for a few variables; the exact method's ground states), each
// naming every variable.
func resultSize(p *anneal.Problem, o anneal.Options) size {
	n := int64(len(p.Names))
	var s size
	s.solutions = int64(max(o.Reads, 1))
	if o.Method == anneal.Exact {
		s.solutions = exactSolutions
	}
	if n < 62 {
		s.solutions = min(s.solutions, int64(1)<<n)
	}
	names := int64(0)
	for _, name := range p.Names {
		names += int64(len(name)) + 2 // a name's quotes; escapes are rare
	}
	// Per variable ": 0, " or ": -1, "; per solution its other fields.
	const perSolution = 200
	s.json = s.solutions * (names + 5*n + perSolution)
	// A map entry: the name's header (its text shared) and a boxed value
	// shared by every entry, with the map's slack.
	s.memory = s.solutions * (64*n + perSolution*2)
	return s
}

// The values of spins and bits as interface values, made once: every
// solution names every variable.
var (
	boxedMinusOne any = -1
	boxedZero     any = 0
	boxedOne      any = 1
)

func boxedValue(v int8) any {
	switch v {
	case -1:
		return boxedMinusOne
	case 0:
		return boxedZero
	}
	return boxedOne
}

// solutionsData is a run's result as decisions.md fixes it (the format
// "problem"): solutions, one per distinct assignment, lowest energy first,
// {spin, energy, time, constraint, memory_usage, num_occurrences}, and
// their number as solutionCount (what NEC's service answers) and
// numSolutions (what the public client reads). time is the run's, in
// seconds; memory_usage what the job held, in MiB.
func solutionsData(p *anneal.Problem, res *anneal.Result, seconds float64, memory int64) map[string]any {
	mib := float64(memory) / (1 << 20)
	sols := make([]any, len(res.Solutions))
	for i, s := range res.Solutions {
		spin := make(map[string]any, len(p.Names))
		for k, name := range p.Names {
			spin[name] = boxedValue(s.Values[k])
		}
		sols[i] = map[string]any{
			"spin":            spin,
			"energy":          s.Energy,
			"time":            seconds,
			"constraint":      true,
			"memory_usage":    mib,
			"num_occurrences": s.Occurrences,
		}
	}
	return map[string]any{"solutions": sols, "solutionCount": len(sols), "numSolutions": len(sols)}
}
