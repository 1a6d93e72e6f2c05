package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/qjobs/quantum/anneal"
)

// name is variable i's name.
func name(i int) string { return fmt.Sprintf("x%06d", i) }

// sparseGlass is n spins and m random ±1 couplings, no fields.
func sparseGlass(n, m int, seed uint64) (*anneal.Problem, error) {
	r := rand.New(rand.NewPCG(seed, 3))
	quadratic := make(map[[2]string]float64, m)
	for len(quadratic) < m {
		u, v := r.IntN(n), r.IntN(n)
		if u == v {
			continue
		}
		quadratic[[2]string{name(min(u, v)), name(max(u, v))}] = float64(2*r.IntN(2) - 1)
	}
	linear := make(map[string]float64, n)
	for i := range n {
		linear[name(i)] = 0
	}
	return anneal.New(anneal.Ising, linear, quadratic)
}

// plantedInstance is a frustrated-loop instance (Hen et al., 2015) of n
// spins on a random 3-regular graph, with its ground energy: each loop has
// couplings −1 but one +1, so all spins up meets every loop's least
// energy −(length − 2); a random gauge hides that state.
func plantedInstance(n, loops, maxLoop int, seed uint64) (p *anneal.Problem, ground, meanLoop float64) {
	r := rand.New(rand.NewPCG(seed, 2))
	var adj [][]int
	for simple := false; !simple; {
		stubs := make([]int, 0, 3*n)
		for i := range n {
			stubs = append(stubs, i, i, i)
		}
		r.Shuffle(len(stubs), func(a, b int) { stubs[a], stubs[b] = stubs[b], stubs[a] })
		adj, simple = make([][]int, n), true
		for k := 0; k < len(stubs) && simple; k += 2 {
			a, b := stubs[k], stubs[k+1]
			if a == b || slices.Contains(adj[a], b) {
				simple = false
			}
			adj[a] = append(adj[a], b)
			adj[b] = append(adj[b], a)
		}
	}
	j := map[[2]int]float64{}
	edges := 0
	for made := 0; made < loops; {
		at := map[int]int{}
		path := []int{r.IntN(n)}
		at[path[0]] = 0
		prev := -1
		var cycle []int
		for len(path) < 4*n && cycle == nil {
			cur := path[len(path)-1]
			next := adj[cur][r.IntN(3)]
			for next == prev {
				next = adj[cur][r.IntN(3)]
			}
			if k, seen := at[next]; seen {
				cycle = append(slices.Clone(path[k:]), next)
				break
			}
			at[next] = len(path)
			path = append(path, next)
			prev = cur
		}
		if len(cycle) < 5 || len(cycle) > maxLoop+1 {
			continue
		}
		frustrated := r.IntN(len(cycle) - 1)
		for e := range len(cycle) - 1 {
			k := [2]int{min(cycle[e], cycle[e+1]), max(cycle[e], cycle[e+1])}
			if e == frustrated {
				j[k]++
			} else {
				j[k]--
			}
		}
		ground -= float64(len(cycle) - 3)
		edges += len(cycle) - 1
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
	p, err := anneal.New(anneal.Ising, nil, quadratic)
	if err != nil {
		panic(err)
	}
	return p, ground, float64(edges) / float64(loops)
}

// clientJSON writes p as the public client does (json.dumps: ", " and
// ": " between items, floats with a point, each quadratic key json.dumps
// of the pair).
func clientJSON(p *anneal.Problem) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"problem_type": "%s"`, p.Kind)
	num := func(c float64) string {
		s := strconv.FormatFloat(c, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	}
	var nonzero []int
	for i, c := range p.Linear {
		if c != 0 {
			nonzero = append(nonzero, i)
		}
	}
	if len(nonzero) > 0 {
		b.WriteString(`, "linear": {`)
		for k, i := range nonzero {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"%s": %s`, p.Names[i], num(p.Linear[i]))
		}
		b.WriteString("}")
	}
	b.WriteString(`, "quadratic": {`)
	for k, c := range p.Couplings {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"[\"%s\", \"%s\"]": %s`, p.Names[c.U], p.Names[c.V], num(c.C))
	}
	b.WriteString("}}")
	return b.String()
}
