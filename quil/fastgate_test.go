package quil_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/qjobs/quantum/quil"
)

// A program compiles to the same circuit, or fails with the same error,
// whether its gates take the fast paths or the general one: lines of
// every shape the fast paths read, and of shapes near them.
func TestFastPathsAsGeneral(t *testing.T) {
	type gate struct {
		name           string
		params, qubits int
	}
	gates := []gate{{"H", 0, 1}, {"X", 0, 1}, {"CNOT", 0, 2}, {"CZ", 0, 2}, {"RX", 1, 1}, {"RZ", 1, 1}, {"PHASE", 1, 1},
		{"CPHASE", 1, 2}, {"U", 3, 1}, {"CCNOT", 0, 3}, {"CSWAP", 0, 3}, {"SWAP", 0, 2}, {"ISWAP", 0, 2}, {"RZZ", 1, 2},
		{"XY", 1, 2}, {"FOO", 0, 1}, {"DAGGER H", 0, 1}}
	good := []string{"0.5", "-0.5", "1", "-0", "2e-3", "1.5E+2", "-12.25e-1", "3.14159265358979", "0",
		"pi", "-pi", "pi/2", "-pi/4", "3*pi/4", "-3*pi/4", "2*pi", "0.5*pi/3", "pi/7",
		"0.12345678901234567890", "123456789012345678", "9007199254740993", "0.1000000000000000000000001", "1.7976931348623157"}
	bad := []string{"1e999", "1.5.3", "2i", "0x1f", "1_000", ".5", "5.", "", " 0.25 ", "theta", "- 1", "1e", "--1",
		"pi/0", "pi*2", "pi/2/3", "pix", "3 * pi", "pi/-2", "1/2", "pi/2*3", "pi^2", "-pi/1e999"}
	goodQ := []string{"0", "1", "2", "7", "63"}
	badQ := []string{"64", "1000000000", "01", "-1", "a", "1 1", "2x"}
	tails := []string{"", " ", "  # comment", "#c", "\t", " 3", ";X 0"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	sometimes := func(ok, notOK []string) string {
		if rng.IntN(10) == 0 {
			return pick(notOK)
		}
		return pick(ok)
	}
	compiled := 0
	for range 20_000 {
		var b strings.Builder
		b.WriteString("DECLARE theta REAL\n")
		for range 1 + rng.IntN(3) {
			g := gates[rng.IntN(len(gates))]
			b.WriteString(g.name)
			np, nq := g.params, g.qubits
			if rng.IntN(10) == 0 {
				np, nq = rng.IntN(4), rng.IntN(4)
			}
			if np > 0 {
				ps := make([]string, np)
				for i := range ps {
					ps[i] = sometimes(good, bad)
				}
				b.WriteString("(" + strings.Join(ps, ",") + ")")
			}
			used := map[string]bool{}
			for range nq {
				q := sometimes(goodQ, badQ)
				for used[q] && rng.IntN(10) != 0 {
					q = sometimes(goodQ, badQ)
				}
				used[q] = true
				b.WriteString(" " + q)
			}
			b.WriteString(sometimes([]string{"", " ", "  # comment"}, tails) + "\n")
		}
		src := b.String()
		fast, errFast := quil.Compile(context.Background(), src, quil.Options{})
		slow, errSlow := quil.CompileGeneral(context.Background(), src, quil.Options{})
		if fmt.Sprint(errFast) != fmt.Sprint(errSlow) {
			t.Fatalf("%q:\nfast: %v\ngeneral: %v", src, errFast, errSlow)
		}
		if errFast == nil {
			compiled++
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q: the fast paths give\n%+v\nthe general one\n%+v", src, fast.Circuit.Ops, slow.Circuit.Ops)
			}
		}
	}
	t.Logf("%d compiled", compiled)
	if compiled < 1000 {
		t.Fatalf("only %d of the programs compiled: the test hardly reaches the fast paths", compiled)
	}
}

// The fast path's switch finds every gate of the table, and nothing else.
func TestSimGateOf(t *testing.T) {
	names := quil.SimGateNames()
	for _, n := range names {
		if !quil.SimGateOf(n) {
			t.Errorf("the switch does not find %s", n)
		}
	}
	if len(names) != 22 {
		t.Errorf("%d standard gates of sim's; the switch lists 22", len(names))
	}
	for _, n := range []string{"", "FOO", "h", "CPHASE00", "XY"} {
		if quil.SimGateOf(n) {
			t.Errorf("the switch finds %q", n)
		}
	}
}
