package anneal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Method is how Solve looks for low energies.
type Method uint8

const (
	// SimulatedAnnealing runs Options.Reads reads of Options.Sweeps sweeps.
	SimulatedAnnealing Method = iota
	// Exact enumerates every assignment (at most MaxExactVariables
	// variables) and returns the ground states.
	Exact
)

// DefaultSweeps is dwave-samplers' num_sweeps.
const DefaultSweeps = 1000

// Errors that Solve wraps; test them with errors.Is.
var (
	// ErrWorkLimit: the run would do more work than Options.MaxWork.
	ErrWorkLimit = errors.New("work limit exceeded")
	// ErrMemoryBudget: the run would hold more than Options.MemoryBudget.
	ErrMemoryBudget = errors.New("memory budget exceeded")
	// ErrTooManyVariables: Exact on more than MaxExactVariables.
	ErrTooManyVariables = errors.New("too many variables")
	// ErrOptions: an option out of its range.
	ErrOptions = errors.New("invalid options")
)

// Options of a run. The zero value is dwave-samplers' defaults: one read
// of 1,000 sweeps, a geometric schedule over DefaultBetaRange.
type Options struct {
	Method Method
	// Reads is how many independent reads, each from its own random
	// start (0 means 1).
	Reads int
	// Sweeps is each read's sweeps, one β each (0 means DefaultSweeps).
	Sweeps int
	// BetaRange is [hot, cold]: β of the first sweep and of the last; nil
	// means DefaultBetaRange.
	BetaRange *[2]float64
	Schedule  Schedule
	// Seed makes the run repeat exactly (on one machine, whatever
	// Workers is).
	Seed uint64
	// MaxWork, when above zero, bounds the work: Need's, which Solve
	// refuses to start past.
	MaxWork int64
	// MemoryBudget, when above zero, bounds what the run holds: Need's,
	// checked before anything is allocated.
	MemoryBudget int64
	// Workers run reads side by side (0 means GOMAXPROCS).
	Workers int
	// MaxSolutions bounds the ground states Exact returns (0 means 1,000).
	MaxSolutions int
}

func (o Options) reads() int   { return max(o.Reads, 1) }
func (o Options) sweeps() int  { return cmp0(o.Sweeps, DefaultSweeps) }
func (o Options) kept() int    { return cmp0(o.MaxSolutions, 1000) }
func (o Options) workers() int { return max(min(cmp0(o.Workers, runtime.GOMAXPROCS(0)), o.reads()), 1) }

// cmp0 is v, or def when v is not above zero.
func cmp0(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Solution is one assignment the run found.
type Solution struct {
	// Values are the variables' values in Problem.Names' order: 0 or 1
	// for a QUBO, −1 or +1 for an Ising problem.
	Values []int8
	// Energy is the problem's energy at Values (Problem.Energy).
	Energy float64
	// Occurrences is how many reads ended on it (1 for Exact).
	Occurrences int
}

// Result is what a run found: distinct solutions, lowest energy first
// (ties in the order of their values), and what the run was.
type Result struct {
	Solutions []Solution
	// BetaRange is the range the schedule ran over.
	BetaRange [2]float64
	Reads     int
	Sweeps    int
	// Work and Memory are what the run did and held (Need).
	Work   int64
	Memory int64
	// Truncated, for Exact, says there are more ground states than
	// MaxSolutions: Solutions holds the first in the order of their values.
	Truncated bool
}

// Need is what a run of p with o holds at most, in bytes (the problem
// itself not counted), and its work: reads × sweeps × (variables +
// couplings) for simulated annealing (each sweep visits every variable
// and, at most, both ends of every coupling); for Exact, every flip of
// the Gray code and the couplings it updates. Both are known before the
// run starts, and Solve refuses a run whose need passes its bounds.
func Need(p *Problem, o Options) (memory, work int64) {
	n, m := int64(len(p.Names)), int64(len(p.Couplings))
	if o.Method == Exact {
		return exactNeed(p, o)
	}
	reads, sweeps := int64(o.reads()), int64(o.sweeps())
	words := (n + 63) / 64
	memory = isingBytes(n, m) +
		int64(o.workers())*9*n + // each worker's spins and fields
		reads*(8*words+4) + // each read's spins, packed, and its place in the sort
		distinct(reads, n)*(n+48) // the solutions' values
	return memory, satMul(satMul(reads, sweeps), n+m)
}

// distinct is the most distinct solutions reads of n variables can find.
func distinct(reads, n int64) int64 {
	if n < 62 {
		return min(reads, int64(1)<<n)
	}
	return reads
}

// satMul is a·b, or MaxInt64 past it.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// Solve looks for the lowest energies of p. It checks its options and its
// need against o's bounds before allocating anything, and stops with ctx's
// error when ctx ends (between sweeps, or every 65,536 assignments of
// Exact).
func Solve(ctx context.Context, p *Problem, o Options) (*Result, error) {
	if err := o.check(p); err != nil {
		return nil, err
	}
	memory, work := Need(p, o)
	if o.MaxWork > 0 && work > o.MaxWork {
		return nil, fmt.Errorf("%w: the run would do %d units of work, more than the bound of %d", ErrWorkLimit, work, o.MaxWork)
	}
	if o.MemoryBudget > 0 && memory > o.MemoryBudget {
		return nil, fmt.Errorf("%w: the run would hold %d bytes, more than the budget of %d", ErrMemoryBudget, memory, o.MemoryBudget)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The loops read a flag, not ctx: one atomic load a sweep.
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	var res *Result
	var err error
	if o.Method == Exact {
		res, err = exact(p, o, &stop)
	} else {
		res, err = anneal(p, o, &stop)
	}
	if err != nil {
		return nil, err
	}
	if stop.Load() {
		return nil, ctx.Err()
	}
	res.Work, res.Memory = work, memory
	return res, nil
}

func (o Options) check(p *Problem) error {
	switch {
	case o.Method != SimulatedAnnealing && o.Method != Exact:
		return fmt.Errorf("%w: method %d", ErrOptions, o.Method)
	case o.Method == Exact && len(p.Names) > MaxExactVariables:
		return fmt.Errorf("%w: the exact method enumerates at most %d variables, the problem has %d", ErrTooManyVariables, MaxExactVariables, len(p.Names))
	case o.Method == Exact:
		return nil
	case o.Reads < 0 || o.Sweeps < 0:
		return fmt.Errorf("%w: reads and sweeps must not be negative", ErrOptions)
	case o.Schedule != Geometric && o.Schedule != Linear:
		return fmt.Errorf("%w: schedule %d", ErrOptions, o.Schedule)
	case o.BetaRange != nil:
		return CheckBetaRange(*o.BetaRange, o.Schedule)
	}
	if r := DefaultBetaRange(p); CheckBetaRange(r, o.Schedule) != nil {
		return fmt.Errorf("%w: the problem's biases give no finite β range (%v, %v): its least nonzero one is too small; give a range", ErrOptions, r[0], r[1])
	}
	return nil
}

// CheckBetaRange says what is wrong with a range of β for a schedule:
// both finite and not negative, and above zero for a geometric one.
func CheckBetaRange(r [2]float64, s Schedule) error {
	for _, b := range r {
		if math.IsNaN(b) || math.IsInf(b, 0) || b < 0 {
			return fmt.Errorf("%w: a β range holds two finite numbers of at least 0, got [%v, %v]", ErrOptions, r[0], r[1])
		}
		if b == 0 && s == Geometric {
			return fmt.Errorf("%w: a geometric schedule's β range holds two numbers above 0, got [%v, %v]", ErrOptions, r[0], r[1])
		}
	}
	return nil
}

// anneal runs the reads on the workers, then gathers their distinct ends.
func anneal(p *Problem, o Options, stop *atomic.Bool) (*Result, error) {
	m := p.toIsing()
	res := &Result{Reads: o.reads(), Sweeps: o.sweeps()}
	if o.BetaRange != nil {
		res.BetaRange = *o.BetaRange
	} else {
		res.BetaRange = DefaultBetaRange(p)
	}
	bs := newBetas(res.BetaRange, res.Sweeps, o.Schedule)
	n := len(m.h)
	words := (n + 63) / 64
	packed := make([]uint64, res.Reads*words)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range o.workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			state := make([]int8, n)
			field := make([]float64, n)
			for {
				read := int(next.Add(1) - 1)
				if read >= res.Reads || stop.Load() {
					return
				}
				r := readRNG(o.Seed, read)
				start(state, &r)
				m.fields(state, field)
				for k := range res.Sweeps {
					if stop.Load() {
						return
					}
					m.sweep(state, field, bs.at(k), &r)
				}
				pack(packed[read*words:(read+1)*words], state)
			}
		}()
	}
	wg.Wait()
	if stop.Load() {
		return res, nil
	}
	res.Solutions = gather(p, packed, words)
	return res, nil
}

// pack writes spins as bits, 1 for +1.
func pack(dst []uint64, state []int8) {
	clear(dst)
	for i, s := range state {
		if s > 0 {
			dst[i/64] |= 1 << (i % 64)
		}
	}
}

// unpack is the values of packed spins in p's terms.
func unpack(p *Problem, src []uint64) []int8 {
	values := make([]int8, len(p.Names))
	low := int8(-1)
	if p.Kind == QUBO {
		low = 0
	}
	for i := range values {
		values[i] = low
		if src[i/64]>>(i%64)&1 == 1 {
			values[i] = 1
		}
	}
	return values
}

// gather counts the distinct assignments among reads (packed, words
// each), with their energies recomputed in p's terms, lowest first.
func gather(p *Problem, packed []uint64, words int) []Solution {
	reads := len(packed) / max(words, 1)
	order := make([]int32, reads)
	for i := range order {
		order[i] = int32(i)
	}
	read := func(i int32) []uint64 { return packed[int(i)*words : int(i+1)*words] }
	slices.SortFunc(order, func(a, b int32) int { return slices.Compare(read(a), read(b)) })
	type found struct {
		first int32 // one of its reads: its values break ties
		sol   Solution
	}
	var all []found
	for k := 0; k < len(order); {
		end := k + 1
		for end < len(order) && slices.Equal(read(order[k]), read(order[end])) {
			end++
		}
		values := unpack(p, read(order[k]))
		all = append(all, found{first: order[k], sol: Solution{Values: values, Energy: p.Energy(values), Occurrences: end - k}})
		k = end
	}
	slices.SortFunc(all, func(a, b found) int {
		if c := compareFloat(a.sol.Energy, b.sol.Energy); c != 0 {
			return c
		}
		return slices.Compare(read(a.first), read(b.first))
	})
	out := make([]Solution, len(all))
	for i, f := range all {
		out[i] = f.sol
	}
	return out
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
