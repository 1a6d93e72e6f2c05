package ionq_test

import (
	"context"
	"encoding/json"
	"math/cmplx"
	"testing"

	"github.com/qjobs/quantum/ionq"
	"github.com/qjobs/quantum/sim"
)

func compile(t *testing.T, src string) *ionq.Program {
	t.Helper()
	p, err := ionq.Compile(context.Background(), src, ionq.Options{})
	if err != nil {
		t.Fatalf("compile %s: %v", src, err)
	}
	return p
}

// withoutMeasurements is the circuit's gates: the measurements every
// program ends with left out, so its state can be read.
func withoutMeasurements(c *sim.Circuit) *sim.Circuit {
	out := &sim.Circuit{NumQubits: c.NumQubits, NumClbits: c.NumClbits}
	for _, op := range c.Ops {
		if op.Kind != sim.OpMeasure {
			out.Ops = append(out.Ops, op)
		}
	}
	return out
}

// unitaryOf is the unitary of the ops on n qubits, column j the state the
// ops leave from basis state j (qubit 0 its lowest bit), prepared by x
// gates.
func unitaryOf(t *testing.T, ops []map[string]any, n int) []complex128 {
	t.Helper()
	dim := 1 << n
	u := make([]complex128, dim*dim)
	for j := range dim {
		circuit := []map[string]any{}
		for q := range n {
			if j>>q&1 == 1 {
				circuit = append(circuit, map[string]any{"gate": "x", "target": q})
			}
		}
		gateset := "qis"
		for _, op := range ops {
			if g := op["gate"]; g == "gpi" || g == "gpi2" || g == "ms" || g == "zz" && op["angle"] != nil {
				gateset = "native"
			}
		}
		if gateset == "native" {
			// prepare with gpi(0), which is x
			for i := range circuit {
				circuit[i] = map[string]any{"gate": "gpi", "phase": 0, "target": circuit[i]["target"]}
			}
		}
		circuit = append(circuit, ops...)
		src, _ := json.Marshal(map[string]any{"qubits": n, "gateset": gateset, "circuit": circuit})
		p := compile(t, string(src))
		s, err := sim.Simulate(context.Background(), withoutMeasurements(p.Circuit), sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range s.Amplitudes() {
			u[i*dim+j] = a
		}
	}
	return u
}

// lift is m, in little-endian order on qs (qs[0] the lowest bit of m's
// index), as a unitary on n qubits.
func lift(m []complex128, qs []int, n int) []complex128 {
	dim, k := 1<<n, len(qs)
	local := func(s int) (idx, rest int) {
		rest = s
		for i, q := range qs {
			idx |= (s >> q & 1) << i
			rest &^= 1 << q
		}
		return idx, rest
	}
	u := make([]complex128, dim*dim)
	for col := range dim {
		mc, rc := local(col)
		for row := range dim {
			if mr, rr := local(row); rr == rc {
				u[row*dim+col] = m[mr*(1<<k)+mc]
			}
		}
	}
	return u
}

func assertClose(t *testing.T, what string, got, want []complex128) {
	t.Helper()
	for i := range want {
		if cmplx.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("%s: entry %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}
