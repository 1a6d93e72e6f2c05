package quil_test

import (
	"context"
	"fmt"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/qjobs/quantum/quil"
	"github.com/qjobs/quantum/sim"
)

// compile compiles src with default options, failing the test on an
// error.
func compile(t *testing.T, src string) *quil.Program {
	t.Helper()
	p, err := quil.Compile(context.Background(), src, quil.Options{})
	if err != nil {
		t.Fatalf("compile:\n%s\nerror: %v", src, err)
	}
	return p
}

// unitaryOf is the unitary src applies to n qubits, column by column:
// column j is the state src leaves from basis state j (qubit 0 the
// lowest bit of j), prepared with X gates.
func unitaryOf(t *testing.T, src string, n int) []complex128 {
	t.Helper()
	dim := 1 << n
	u := make([]complex128, dim*dim)
	for j := range dim {
		var prep strings.Builder
		for q := range n {
			if j>>q&1 == 1 {
				fmt.Fprintf(&prep, "X %d\n", q)
			}
		}
		p := compile(t, prep.String()+src)
		p.Circuit.NumQubits = n
		s, err := sim.Simulate(context.Background(), p.Circuit, sim.Limits{})
		if err != nil {
			t.Fatalf("simulate %q: %v", src, err)
		}
		for i, a := range s.Amplitudes() {
			u[i*dim+j] = a
		}
	}
	return u
}

// lift is the unitary on n qubits of m, a matrix in Quil's order on qs:
// qs[0] the most significant bit of m's index.
func lift(m []complex128, qs []int, n int) []complex128 {
	dim, k := 1<<n, len(qs)
	local := func(s int) (idx, rest int) {
		rest = s
		for i, q := range qs {
			b := s >> q & 1
			idx |= b << (k - 1 - i)
			rest &^= 1 << q
		}
		return idx, rest
	}
	u := make([]complex128, dim*dim)
	mdim := 1 << k
	for col := range dim {
		mc, rc := local(col)
		for row := range dim {
			mr, rr := local(row)
			if rr == rc {
				u[row*dim+col] = m[mr*mdim+mc]
			}
		}
	}
	return u
}

// assertClose fails unless got and want agree entry by entry within
// 1e-9; global says they may differ by a global phase.
func assertClose(t *testing.T, what string, got, want []complex128, global bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries, want %d", what, len(got), len(want))
	}
	phase := complex(1, 0)
	if global {
		for i := range want {
			if cmplx.Abs(want[i]) > 1e-6 {
				phase = got[i] / want[i]
				break
			}
		}
		if d := cmplx.Abs(phase) - 1; d > 1e-9 || d < -1e-9 {
			t.Fatalf("%s: not equal up to a global phase (ratio %v)", what, phase)
		}
	}
	for i := range want {
		if cmplx.Abs(got[i]-phase*want[i]) > 1e-9 {
			t.Fatalf("%s: entry %d is %v, want %v (×%v)\ngot  %v\nwant %v", what, i, got[i], want[i], phase, got, want)
		}
	}
}
