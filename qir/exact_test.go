package qir

import (
	"context"
	"errors"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// errBranch stops a run at a measurement the path has not decided yet.
var errBranch = errors.New("branch")

// exact is the exact distribution of a program's count keys: every
// measurement's outcomes are followed, each with its probability, by
// running the program again along each path (the programs in tests are
// small). It is the reference the sampled runs are checked against.
func exact(t *testing.T, p *Program) map[string]float64 {
	t.Helper()
	ctx := context.Background()
	type path struct {
		script []bool
		w      float64
	}
	out := map[string]float64{}
	stack := []path{{w: 1}}
	for runs := 0; len(stack) > 0; runs++ {
		if runs > 1<<18 {
			t.Fatal("more than 262,144 measurement paths")
		}
		pa := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		st, err := sim.NewState(p.NumQubits, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var p1 float64
		i := 0
		dev := &live{ctx: ctx, st: st}
		dev.force = func(q int) (bool, error) {
			if i < len(pa.script) {
				one := pa.script[i]
				i++
				_, err := st.Collapse(ctx, q, one)
				return one, err
			}
			p1 = st.QubitProbability(q)
			return false, errBranch
		}
		mc := newMachine(p.c, p.NumQubits, p.maxSteps)
		err = mc.shot(ctx, dev)
		var key string
		if err == nil {
			key, err = dev.key()
		}
		switch {
		case errors.Is(err, errBranch):
			for _, c := range []struct {
				one bool
				p   float64
			}{{false, 1 - p1}, {true, p1}} {
				// Paths below 1e-13 are dropped: a repeat-until-success loop
				// has paths of every length.
				if pa.w*c.p > 1e-13 {
					stack = append(stack, path{script: append(append([]bool(nil), pa.script...), c.one), w: pa.w * c.p})
				}
			}
		case err != nil:
			t.Fatalf("path %v: %v", pa.script, err)
		default:
			out[key] += pa.w
		}
	}
	return out
}
