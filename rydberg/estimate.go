package rydberg

import (
	"fmt"
	"math"
	"slices"
)

// Options say how to simulate a program.
type Options struct {
	// BlockadeRadius, in µm, when above 0, keeps only the configurations
	// in which no two atoms at most that far apart are both in r, as
	// Braket's local simulator does: an approximation, exact only when
	// such pairs' interaction is far above the drive.
	BlockadeRadius float64
	// Tolerance bounds the 2-norm of the final state's error, and so
	// every amplitude's; 0 is DefaultTolerance.
	Tolerance float64
	// MemoryBudget, when above 0, is the most memory a run may hold, in
	// bytes: a run that would need more is refused before it allocates.
	MemoryBudget int64
	// MaxWork, when above 0, bounds a run's work, in amplitudes touched
	// (a pass over the Hamiltonian touches each configuration and its
	// neighbours); a run stops with ErrWorkLimit before passing it.
	MaxWork int64
}

// DefaultTolerance is the tolerance of Options whose Tolerance is 0.
const DefaultTolerance = 1e-8

func (o Options) tolerance() float64 {
	if o.Tolerance > 0 {
		return o.Tolerance
	}
	return DefaultTolerance
}

// Need is what simulating a program holds, counted before anything is
// allocated.
type Need struct {
	// Atoms is the number of atoms.
	Atoms int
	// Configurations is the number of configurations simulated: 2^Atoms,
	// or with a blockade radius those that obey it.
	Configurations float64
	// AtLeast says that counting stopped once the configurations could no
	// longer fit (the memory budget): Configurations is a lower bound.
	AtLeast bool
	// Restricted says that the blockade radius left out configurations
	// (some pair of atoms lies within it).
	Restricted bool
	// Bytes is the memory the run holds, from its start to its end.
	Bytes float64
	// couplings is the number of pairs of configurations one flip apart.
	couplings float64
}

// The memory of a run, per configuration: the state, the sum being
// formed and three terms of the series (16 bytes each), the diagonal's
// two parts on the current step and the interactions (8 bytes each).
const stateBytes = 5*16 + 3*8

// A restricted space adds each configuration's bits, where its
// neighbours start and where its up-flips start (4 bytes each), and for
// each pair of neighbours, both ways, the neighbour's index (4 bytes)
// and the atom flipped (2 bytes).
const (
	offsetBytes   = 2 * 4
	neighborBytes = 2 * (4 + 2)
)

// maxConfigurations is the most configurations a run may have: indices
// are 32-bit in a restricted space.
const maxConfigurations = math.MaxInt32

// smallGroup is the most configurations a group of atoms is counted to
// once the configurations are known not to fit: enough for the groups
// of a register of small clusters, quick to count.
const smallGroup = 1 << 16

// words is the uint64 words a configuration of n atoms takes.
func words(n int) int { return max((n+63)/64, 1) }

func (n *Need) bytesFor(atoms int) {
	if !n.Restricted {
		n.Bytes = n.Configurations * stateBytes
		return
	}
	n.Bytes = n.Configurations*float64(stateBytes+offsetBytes+8*words(atoms)) + n.couplings*neighborBytes
}

// Estimate counts what simulating p within o holds: the configurations,
// and their memory. With a blockade radius the configurations are counted
// by connected groups of atoms within the radius of one another, so that
// many small groups cost nothing to count; counting a large group stops
// once the configurations could no longer fit the memory budget
// (Need.AtLeast).
func Estimate(p *Program, o Options) (Need, error) {
	if err := p.Validate(); err != nil {
		return Need{}, err
	}
	if !(o.BlockadeRadius >= 0) || math.IsInf(o.BlockadeRadius, 0) {
		return Need{}, fmt.Errorf("%w: the blockade radius must be 0 or more and finite, got %v", ErrProgram, o.BlockadeRadius)
	}
	n := len(p.Atoms)
	need := Need{Atoms: n, Configurations: math.Exp2(float64(n))}
	conflicts := conflictsOf(p, o.BlockadeRadius)
	if conflicts == nil {
		need.bytesFor(n)
		return need, nil
	}
	need.Restricted = true
	limit := float64(maxConfigurations)
	if o.MemoryBudget > 0 {
		limit = min(limit, math.Floor(float64(o.MemoryBudget)/float64(stateBytes+offsetBytes+8*words(n))))
	}
	// Groups apart contribute a factor each; the configurations' total of
	// Rydberg atoms (the couplings, counted once each way) adds over them.
	// Past the limit, the groups left are still counted while each is
	// small, so that a refusal can give the whole count (4^25 for 25
	// groups of three).
	count, rydberg := 1.0, 0.0
	for _, g := range groups(n, conflicts) {
		groupLimit := float64(smallGroup)
		if count <= limit {
			groupLimit = max(math.Floor(limit/count)+1, smallGroup)
		}
		c, r, over := countGroup(g, conflicts, groupLimit)
		rydberg = rydberg*c + r*count
		count *= c
		if over {
			need.Configurations, need.AtLeast = count, true
			need.couplings = rydberg
			need.bytesFor(n)
			return need, nil
		}
	}
	need.Configurations, need.couplings = count, rydberg
	need.bytesFor(n)
	return need, nil
}

// conflictsOf lists, for each atom, the atoms within the blockade radius
// of it; nil when no pair is (the whole space is kept).
func conflictsOf(p *Program, radius float64) [][]int32 {
	if radius <= 0 {
		return nil
	}
	n := len(p.Atoms)
	var conflicts [][]int32
	for i := range n {
		for j := i + 1; j < n; j++ {
			if distance(p.Atoms[i], p.Atoms[j]) <= radius {
				if conflicts == nil {
					conflicts = make([][]int32, n)
				}
				conflicts[i] = append(conflicts[i], int32(j))
				conflicts[j] = append(conflicts[j], int32(i))
			}
		}
	}
	return conflicts
}

// groups are the connected groups of atoms (within the radius of one
// another, step by step), each in increasing order, smallest groups first.
func groups(n int, conflicts [][]int32) [][]int32 {
	seen := make([]bool, n)
	var out [][]int32
	for start := range n {
		if seen[start] {
			continue
		}
		seen[start] = true
		g := []int32{int32(start)}
		for i := 0; i < len(g); i++ {
			for _, j := range conflicts[g[i]] {
				if !seen[j] {
					seen[j] = true
					g = append(g, j)
				}
			}
		}
		slices.Sort(g)
		out = append(out, g)
	}
	slices.SortStableFunc(out, func(a, b []int32) int { return len(a) - len(b) })
	return out
}

// countGroup counts the configurations of a group's atoms in which no two
// in conflict are both in r, and their total number of atoms in r; over
// is true once the count passes limit (counting stops there).
func countGroup(g []int32, conflicts [][]int32, limit float64) (count, rydberg float64, over bool) {
	var count64, rydberg64 int64
	cap64 := int64(math.MaxInt64)
	if limit < float64(math.MaxInt64) {
		cap64 = int64(limit)
	}
	walkIndependent(g, conflicts, func(r int) bool {
		count64++
		rydberg64 += int64(r)
		return count64 < cap64
	})
	return float64(count64), float64(rydberg64), count64 >= cap64
}

// walkIndependent calls leaf for each configuration of the atoms g (in
// order, ground before Rydberg, so in increasing order of the bits with
// g[0] the most significant) in which no two atoms in conflict are both
// in r, with how many are; leaf returns false to stop.
func walkIndependent(g []int32, conflicts [][]int32, leaf func(rydberg int) bool) {
	walk(g, conflicts, func(_ []bool, _ []int32, r int) bool { return leaf(r) })
}

// walk is walkIndependent showing leaf, by g's positions, the atoms in r
// (chosen) and, for each, how many atoms in r it is in conflict with
// (blocked): an atom in g with blocked 0 may be flipped to r. The walk
// keeps an explicit stack, one entry an atom: no recursion.
func walk(g []int32, conflicts [][]int32, leaf func(chosen []bool, blocked []int32, rydberg int) bool) {
	m := len(g)
	pos := make(map[int32]int, m)
	for i, a := range g {
		pos[a] = i
	}
	// near[i] are the positions of the atoms in conflict with g[i]. When
	// the walk decides position i, only positions before it are chosen,
	// so blocked[i] counts those alone.
	near := make([][]int, m)
	for i, a := range g {
		for _, b := range conflicts[a] {
			if j, ok := pos[b]; ok {
				near[i] = append(near[i], j)
			}
		}
	}
	chosen := make([]bool, m)
	blocked := make([]int32, m)
	stage := make([]uint8, m+1) // per depth: 0 try g, 1 try r, 2 undo
	depth, rydberg := 0, 0
	for depth >= 0 {
		if depth == m {
			if !leaf(chosen, blocked, rydberg) {
				return
			}
			depth--
			continue
		}
		switch stage[depth] {
		case 0:
			stage[depth] = 1
			depth++
			stage[depth] = 0
		case 1:
			stage[depth] = 2
			if blocked[depth] == 0 {
				chosen[depth] = true
				rydberg++
				for _, j := range near[depth] {
					blocked[j]++
				}
				depth++
				stage[depth] = 0
			}
		default:
			if chosen[depth] {
				chosen[depth] = false
				rydberg--
				for _, j := range near[depth] {
					blocked[j]--
				}
			}
			depth--
		}
	}
}
