// Command sim times the simulator on whole circuits against the memory
// floor: a streaming read+write pass over a state of the same size on every
// core, the least any gate that touches the whole state can cost.
//
//	cd bench && go run ./sim                 # 16, 20 and 24 qubits
//	cd bench && go run ./sim -qubits 20 -reps 5
//
// For each circuit it prints the best time of -reps runs, gates per second,
// and the time per gate over the floor pass. It also checks that the fused
// run (the default) ends in the same state as an unfused one (fidelity
// > 1 − 1e-9), so fusion is compared on equal work.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/qjobs/quantum/sim"
)

func main() {
	qubits := flag.String("qubits", "16,20,24", "comma-separated qubit counts")
	reps := flag.Int("reps", 3, "runs per figure; the best is kept")
	check := flag.Bool("check", true, "compare each fused run with an unfused one")
	precs := flag.String("precision", "double", "comma-separated precisions: double, single")
	flag.Parse()

	fmt.Printf("# %s, %d CPUs, GOMAXPROCS %d, %s\n", runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), time.Now().UTC().Format(time.DateOnly))
	fmt.Printf("%-8s %6s %6s %12s %14s %12s %10s\n", "circuit", "qubits", "gates", "seconds", "gates/s", "gate/floor", "fidelity")
	for _, f := range strings.Split(*qubits, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 || n > 28 {
			fmt.Fprintf(os.Stderr, "bad qubit count %q\n", f)
			os.Exit(2)
		}
		for _, ps := range strings.Split(*precs, ",") {
			p := sim.Double
			switch strings.TrimSpace(ps) {
			case "double":
			case "single":
				p = sim.Single
			default:
				fmt.Fprintf(os.Stderr, "bad precision %q\n", ps)
				os.Exit(2)
			}
			runPrecision(n, p, *reps, *check)
		}
	}
}

func runPrecision(n int, p sim.Precision, reps int, check bool) {
	{
		var floor time.Duration
		if p == sim.Single {
			floor = floorPass[complex64](n, reps)
		} else {
			floor = floorPass[complex128](n, reps)
		}
		fmt.Printf("%-8s %6d %6s %12.6f %14s %12s %10s  %s\n", "floor", n, "1", floor.Seconds(), "", "1.00", "", p)
		one := oneGate(n, p, reps, gate("h", nil, n/2))
		phase := oneGate(n, p, reps, sim.Gate{Name: "gphase", Matrix: []complex128{complex(0, 1)}})
		fmt.Printf("%-8s %6d %6s %12.6f %14s %12.2f %10s  %s\n", "gphase", n, "1", phase.Seconds(), "", phase.Seconds()/floor.Seconds(), "", p)
		fmt.Printf("%-8s %6d %6s %12.6f %14s %12.2f %10s  %s\n", "h1", n, "1", one.Seconds(), "", one.Seconds()/floor.Seconds(), "", p)
		for _, c := range circuits(n) {
			best := time.Duration(math.MaxInt64)
			var st *sim.State
			for range reps {
				start := time.Now()
				s, err := sim.SimulateWith(context.Background(), c.circuit, sim.Options{Precision: p})
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				best = min(best, time.Since(start))
				st = s
			}
			gates := len(c.circuit.Ops)
			fid := "-"
			if check {
				ref, err := sim.SimulateWith(context.Background(), c.circuit, sim.Options{FusionWidth: -1, Precision: p})
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				f := fidelity(st.Amplitudes(), ref.Amplitudes())
				fid = fmt.Sprintf("%.12f", f)
				tol := 1e-9
				if p == sim.Single {
					tol = 1e-5 // float32 rounding over hundreds of gates
				}
				if f < 1-tol {
					fmt.Fprintf(os.Stderr, "%s on %d qubits: fused and unfused states differ (fidelity %v)\n", c.name, n, f)
					os.Exit(1)
				}
				st, ref = nil, nil
			}
			perGate := best.Seconds() / float64(gates)
			fmt.Printf("%-8s %6d %6d %12.6f %14.0f %12.2f %10s  %s\n", c.name, n, gates, best.Seconds(), float64(gates)/best.Seconds(), perGate/floor.Seconds(), fid, p)
			runtime.GC()
		}
	}
}

// oneGate is the best time of g on an n-qubit state, applied with
// State.ApplyGate: one pass of a single gate.
func oneGate(n int, p sim.Precision, reps int, h sim.Gate) time.Duration {
	s, err := sim.NewStatePrecision(n, p, sim.Limits{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := s.ApplyGate(h); err != nil { // touch every page first
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	best := time.Duration(math.MaxInt64)
	for range max(reps, 3) {
		start := time.Now()
		if err := s.ApplyGate(h); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		best = min(best, time.Since(start))
	}
	return best
}

type namedCircuit struct {
	name    string
	circuit *sim.Circuit
}

func gate(name string, params []float64, qubits ...int) sim.Gate {
	g, _ := sim.LookupGate(name)
	out, err := g.Gate(params, qubits...)
	if err != nil {
		panic(err)
	}
	return out
}

func circuits(n int) []namedCircuit {
	h := &sim.Circuit{NumQubits: n}
	for q := range n {
		h.Apply(gate("h", nil, q))
	}
	cx := &sim.Circuit{NumQubits: n}
	for q := range n - 1 {
		cx.Apply(gate("cx", nil, q, q+1))
	}
	qft := &sim.Circuit{NumQubits: n}
	for j := n - 1; j >= 0; j-- {
		qft.Apply(gate("h", nil, j))
		for k := j - 1; k >= 0; k-- {
			qft.Apply(gate("cp", []float64{math.Pi / float64(int(1)<<(j-k))}, k, j))
		}
	}
	for q := range n / 2 {
		qft.Apply(gate("swap", nil, q, n-1-q))
	}
	ghz := &sim.Circuit{NumQubits: n}
	ghz.Apply(gate("h", nil, 0))
	for q := 1; q < n; q++ {
		ghz.Apply(gate("cx", nil, q-1, q))
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	random := &sim.Circuit{NumQubits: n}
	for l := range 10 {
		for q := range n {
			random.Apply(gate("u3", []float64{rng.Float64() * 3, rng.Float64() * 3, rng.Float64() * 3}, q))
		}
		for q := l % 2; q+1 < n; q += 2 {
			random.Apply(gate("cx", nil, q, q+1))
		}
	}
	return []namedCircuit{{"hlayer", h}, {"cxchain", cx}, {"qft", qft}, {"ghz", ghz}, {"random", random}}
}

// floorPass is the best time of a read+write pass over 2^n amplitudes
// (each scaled by a real constant), split across every CPU.
func floorPass[T complex64 | complex128](n, reps int) time.Duration {
	s := make([]T, 1<<n)
	workers := runtime.GOMAXPROCS(0)
	pass := func() {
		var wg sync.WaitGroup
		chunk := len(s) / workers
		for w := range workers {
			part := s[w*chunk : (w+1)*chunk]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, a := range part {
					part[i] = a * 0.5
				}
			}()
		}
		wg.Wait()
	}
	pass() // touch every page first
	best := time.Duration(math.MaxInt64)
	for range max(reps, 3) {
		start := time.Now()
		pass()
		best = min(best, time.Since(start))
	}
	return best
}

func fidelity(a, b []complex128) float64 {
	var inner complex128
	for i := range a {
		inner += cmplx.Conj(a[i]) * b[i]
	}
	return real(inner)*real(inner) + imag(inner)*imag(inner)
}
