package anneal

// ising is a problem in spins, as the solvers run it (dwave-samplers runs
// every problem in spins too): h and J on a compressed sparse adjacency,
// each coupling in both its variables' rows, and the constant that a
// QUBO's change of variables leaves.
type ising struct {
	h      []float64
	start  []int32 // row i is nbr[start[i]:start[i+1]], j alike
	nbr    []int32
	j      []float64
	offset float64
}

// isingBytes is what the ising form of n variables and m couplings holds.
func isingBytes(n, m int64) int64 { return 8*n + 4*(n+1) + 2*m*(4+8) }

// toIsing is p in spins: a QUBO's x = (1 + s)/2 makes a·x into a/2 + a/2·s
// and b·x_u·x_v into b/4·(1 + s_u + s_v + s_u·s_v).
func (p *Problem) toIsing() *ising {
	n := len(p.Names)
	m := &ising{h: make([]float64, n), start: make([]int32, n+1)}
	copy(m.h, p.Linear)
	scale := 1.0
	if p.Kind == QUBO {
		scale = 0.25
		for i, a := range p.Linear {
			m.h[i] = a / 2
			m.offset += a / 2
		}
		for _, c := range p.Couplings {
			m.h[c.U] += c.C / 4
			m.h[c.V] += c.C / 4
			m.offset += c.C / 4
		}
	}
	for _, c := range p.Couplings {
		m.start[c.U+1]++
		m.start[c.V+1]++
	}
	for i := range n {
		m.start[i+1] += m.start[i]
	}
	m.nbr = make([]int32, 2*len(p.Couplings))
	m.j = make([]float64, 2*len(p.Couplings))
	next := make([]int32, n)
	copy(next, m.start[:n])
	for _, c := range p.Couplings {
		w := c.C * scale
		m.nbr[next[c.U]], m.j[next[c.U]] = c.V, w
		next[c.U]++
		m.nbr[next[c.V]], m.j[next[c.V]] = c.U, w
		next[c.V]++
	}
	return m
}

// fields sets field[i] to spin i's local field in state, h_i + Σ_j J_ij·s_j:
// flipping spin i changes the energy by −2·s_i·field[i].
func (m *ising) fields(state []int8, field []float64) {
	for i := range m.h {
		f := m.h[i]
		for k := m.start[i]; k < m.start[i+1]; k++ {
			f += m.j[k] * float64(state[m.nbr[k]])
		}
		field[i] = f
	}
}

// energy is the energy of a state of spins, the offset included.
func (m *ising) energy(state []int8) float64 {
	e := m.offset
	for i, h := range m.h {
		e += h * float64(state[i])
		for k := m.start[i]; k < m.start[i+1]; k++ {
			if j := m.nbr[k]; j > int32(i) {
				e += m.j[k] * float64(state[i]) * float64(state[j])
			}
		}
	}
	return e
}
