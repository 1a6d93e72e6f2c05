package anneal_test

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qjobs/quantum/anneal"
)

// name is variable i's name: x0000…, so that names sort as their indices.
func name(i int) string { return fmt.Sprintf("x%05d", i) }

// randomProblem has n variables, every pair coupled with probability
// density, coefficients drawn from ints in [−scale, scale] (ties and
// degenerate ground states happen) or, with scale 0, reals in [−1, 1].
func randomProblem(t testing.TB, kind anneal.Kind, n int, density float64, scale int, seed uint64) *anneal.Problem {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	coef := func() float64 {
		if scale == 0 {
			return 2*r.Float64() - 1
		}
		return float64(r.IntN(2*scale+1) - scale)
	}
	linear := map[string]float64{}
	quadratic := map[[2]string]float64{}
	for i := range n {
		linear[name(i)] = coef()
		for j := i + 1; j < n; j++ {
			if r.Float64() < density {
				quadratic[[2]string{name(i), name(j)}] = coef()
			}
		}
	}
	p, err := anneal.New(kind, linear, quadratic)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// bruteForce is the lowest energy of p and every assignment that has it,
// by enumeration in Gray-code order on a dense matrix of the terms, each
// assignment that comes near the lowest so far recomputed by p.Energy.
func bruteForce(t testing.TB, p *anneal.Problem) (float64, [][]int8) {
	t.Helper()
	n := len(p.Names)
	if n > 20 {
		t.Fatalf("brute force of %d variables", n)
	}
	q := make([][]float64, n)
	for i := range q {
		q[i] = make([]float64, n)
	}
	for _, c := range p.Couplings {
		q[c.U][c.V] += c.C
		q[c.V][c.U] += c.C
	}
	low := int8(-1)
	if p.Kind == anneal.QUBO {
		low = 0
	}
	values := make([]int8, n)
	for i := range values {
		values[i] = low
	}
	e := p.Energy(values)
	best := math.Inf(1)
	var all [][]int8
	consider := func() {
		if e > best+1e-6 {
			return
		}
		exact := p.Energy(values)
		switch {
		case exact < best-1e-9:
			best, all = exact, [][]int8{slices.Clone(values)}
		case exact <= best+1e-9:
			all = append(all, slices.Clone(values))
		}
	}
	consider()
	for step := 1; step < 1<<n; step++ {
		k := bits.TrailingZeros(uint(step))
		field := p.Linear[k]
		for j, c := range q[k] {
			field += c * float64(values[j])
		}
		if p.Kind == anneal.QUBO {
			e += field * float64(1-2*values[k]) // 0 → 1 adds the field, 1 → 0 takes it away
			values[k] = 1 - values[k]
		} else {
			e -= 2 * field * float64(values[k])
			values[k] = -values[k]
		}
		consider()
	}
	return best, all
}

// planted is an Ising problem of n spins with a known ground state and
// energy, made of frustrated loops (Hen et al., "Probing for quantum
// speedup in spin-glass problems with planted solutions", 2015): each loop,
// a cycle that a random walk on a random 3-regular graph closes, has
// couplings −1 on every edge but one, which has +1; all spins up satisfies
// every edge but that one, and no assignment does better on any loop, so
// the sum of the loops' −(length − 2) is the ground energy. A random gauge
// (s_i → g_i·s_i) hides the planted state.
func planted(t testing.TB, n, loops int, seed uint64) (*anneal.Problem, float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 2))
	// A random 3-regular graph by the configuration model, retried
	// until simple.
	var adj [][]int
	for {
		stubs := make([]int, 0, 3*n)
		for i := range n {
			stubs = append(stubs, i, i, i)
		}
		r.Shuffle(len(stubs), func(a, b int) { stubs[a], stubs[b] = stubs[b], stubs[a] })
		adj = make([][]int, n)
		ok := true
		for k := 0; k < len(stubs); k += 2 {
			a, b := stubs[k], stubs[k+1]
			if a == b || slices.Contains(adj[a], b) {
				ok = false
				break
			}
			adj[a] = append(adj[a], b)
			adj[b] = append(adj[b], a)
		}
		if ok {
			break
		}
	}
	j := map[[2]int]float64{}
	ground := 0.0
	for made := 0; made < loops; {
		// A walk that never steps straight back, until it meets itself.
		at := map[int]int{}
		path := []int{r.IntN(n)}
		at[path[0]] = 0
		prev := -1
		var cycle []int
		for len(path) < 4*n {
			cur := path[len(path)-1]
			var next int
			for {
				next = adj[cur][r.IntN(3)]
				if next != prev {
					break
				}
			}
			if k, seen := at[next]; seen {
				cycle = append(slices.Clone(path[k:]), next)
				break
			}
			at[next] = len(path)
			path = append(path, next)
			prev = cur
		}
		if len(cycle) < 5 { // loops of at least 4 edges
			continue
		}
		frustrated := r.IntN(len(cycle) - 1)
		for e := range len(cycle) - 1 {
			a, b := min(cycle[e], cycle[e+1]), max(cycle[e], cycle[e+1])
			if e == frustrated {
				j[[2]int{a, b}]++
			} else {
				j[[2]int{a, b}]--
			}
		}
		ground -= float64(len(cycle) - 1 - 2)
		made++
	}
	gauge := make([]float64, n)
	for i := range gauge {
		gauge[i] = float64(2*r.IntN(2) - 1)
	}
	quadratic := map[[2]string]float64{}
	for k, c := range j {
		quadratic[[2]string{name(k[0]), name(k[1])}] = c * gauge[k[0]] * gauge[k[1]]
	}
	linear := map[string]float64{}
	for i := range n {
		linear[name(i)] = 0
	}
	p, err := anneal.New(anneal.Ising, linear, quadratic)
	if err != nil {
		t.Fatal(err)
	}
	// The planted state, gauged, has the ground energy.
	values := make([]int8, n)
	for i := range values {
		values[i] = int8(gauge[i])
	}
	if e := p.Energy(values); math.Abs(e-ground) > 1e-9 {
		t.Fatalf("the planted state's energy is %v, not the loops' %v", e, ground)
	}
	return p, ground
}
