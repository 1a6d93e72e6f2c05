// Command versus times whole circuits on our simulator against
// github.com/itsubaki/q (Go) and, when given its binary, Google's qsim (C++,
// float32, AVX-512), in one run, repetition by repetition interleaved, so
// that the ratios hold on a noisy machine.
//
//	cd bench/versus && go run . -qubits 22,24
//	cd bench/versus && go run . -qubits 22,24 -qsim /tmp/qsim_base
//
// Circuits: qft (h on each qubit j from the top, cp(π/2^(j−k)) from every
// lower qubit k, then the swaps that reverse the order) and hcx (10 layers,
// each an h on every qubit then cx q,q+1 down the chain).
//
// Ours is sim.SimulateWith with the default options, in double and in
// single precision: state allocation, fusion and every gate, timed in
// process. itsubaki/q runs the same gates from q.New(), its qubit i being
// our qubit n−1−i (it keeps qubit 0 in the most significant bit), so that
// the final states compare index by index; -check-qubits checks that they
// agree before anything is timed. qsim_base runs each circuit written in
// its text format with -t 2 (threads) and -f 3 (the widest fused gate, as
// -qsim-fuse sets); its time is what it reports with -v 2 (init + fuse +
// gates), which leaves out reading the file and starting the process.
//
// qsim_base is built from github.com/quantumlib/qsim (C++17, OpenMP):
//
//	g++ -O3 -march=native -fopenmp -std=c++17 apps/qsim_base.cc -o qsim_base
//
// from the repository's root. Without -qsim (or with a path that does not
// run) the qsim columns print "-".
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/itsubaki/q"
	"github.com/qjobs/quantum/sim"
)

// op is one gate of a benchmark circuit, in a form every simulator takes.
type op struct {
	name   string // h, cx, cp, swap
	qubits []int
	theta  float64 // cp
}

func qft(n int) []op {
	var ops []op
	for j := n - 1; j >= 0; j-- {
		ops = append(ops, op{name: "h", qubits: []int{j}})
		for k := j - 1; k >= 0; k-- {
			ops = append(ops, op{name: "cp", qubits: []int{k, j}, theta: math.Pi / float64(int(1)<<(j-k))})
		}
	}
	for i := range n / 2 {
		ops = append(ops, op{name: "swap", qubits: []int{i, n - 1 - i}})
	}
	return ops
}

func hcx(n int) []op {
	var ops []op
	for range 10 {
		for i := range n {
			ops = append(ops, op{name: "h", qubits: []int{i}})
		}
		for i := range n - 1 {
			ops = append(ops, op{name: "cx", qubits: []int{i, i + 1}})
		}
	}
	return ops
}

var circuits = map[string]func(int) []op{"qft": qft, "hcx": hcx}

// ours builds the circuit for package sim.
func ours(n int, ops []op) *sim.Circuit {
	c := &sim.Circuit{NumQubits: n}
	for _, o := range ops {
		g, ok := sim.LookupGate(o.name)
		if !ok {
			panic(o.name)
		}
		var params []float64
		if o.name == "cp" {
			params = []float64{o.theta}
		}
		gt, err := g.Gate(params, o.qubits...)
		if err != nil {
			panic(err)
		}
		c.Apply(gt)
	}
	return c
}

func runOurs(n int, ops []op, p sim.Precision) (time.Duration, []complex128) {
	c := ours(n, ops)
	runtime.GC()
	start := time.Now()
	s, err := sim.SimulateWith(context.Background(), c, sim.Options{Precision: p})
	d := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return d, s.Amplitudes()
}

// runItsubaki applies ops with itsubaki/q, its qubit n−1−i for our i.
func runItsubaki(n int, ops []op) (time.Duration, []complex128) {
	runtime.GC()
	start := time.Now()
	qs := q.New()
	reg := qs.Zeros(n)
	at := func(i int) q.Qubit { return reg[n-1-i] }
	for _, o := range ops {
		switch o.name {
		case "h":
			qs.H(at(o.qubits[0]))
		case "cx":
			qs.CNOT(at(o.qubits[0]), at(o.qubits[1]))
		case "cp":
			qs.CR(o.theta, at(o.qubits[0]), at(o.qubits[1]))
		case "swap":
			qs.Swap(at(o.qubits[0]), at(o.qubits[1]))
		}
	}
	d := time.Since(start)
	return d, qs.Amplitude()
}

// runQsim writes the circuit for qsim_base, runs it and returns the time
// it reports (init + fuse + gates).
func runQsim(bin string, fuse, n int, ops []op) (time.Duration, error) {
	f, err := os.CreateTemp("", "versus-*.qsim")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, n)
	for t, o := range ops {
		switch o.name {
		case "cp":
			fmt.Fprintf(w, "%d cp %d %d %.17g\n", t, o.qubits[0], o.qubits[1], o.theta)
		case "swap":
			fmt.Fprintf(w, "%d sw %d %d\n", t, o.qubits[0], o.qubits[1])
		default:
			fmt.Fprintf(w, "%d %s %s\n", t, o.name, strings.Trim(fmt.Sprint(o.qubits), "[]"))
		}
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	f.Close()
	runtime.GC()
	out, err := exec.Command(bin, "-c", f.Name(), "-d", strconv.Itoa(len(ops)), "-t", "2", "-f", strconv.Itoa(fuse), "-v", "2").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	var total float64
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		for _, prefix := range []string{"init time is ", "fuse time is ", "simu time is "} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				v, err := strconv.ParseFloat(strings.TrimSuffix(rest, " seconds."), 64)
				if err != nil {
					return 0, fmt.Errorf("qsim_base said %q", line)
				}
				total += v
				seen++
			}
		}
	}
	if seen != 3 {
		return 0, fmt.Errorf("qsim_base printed no times: %s", out)
	}
	return time.Duration(total * float64(time.Second)), nil
}

func fidelity(a, b []complex128) float64 {
	var inner complex128
	for i := range a {
		inner += cmplx.Conj(a[i]) * b[i]
	}
	return real(inner)*real(inner) + imag(inner)*imag(inner)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
		}
	}
	return runtime.GOARCH
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func main() {
	qubits := flag.String("qubits", "22,24", "comma-separated qubit counts")
	names := flag.String("circuits", "qft,hcx", "comma-separated circuits: qft, hcx")
	reps := flag.Int("reps", 3, "repetitions, interleaved across simulators")
	qsimBin := flag.String("qsim", "", "path to a qsim_base binary (optional)")
	qsimFuse := flag.Int("qsim-fuse", 3, "qsim_base -f: the widest fused gate")
	itsubaki := flag.Bool("itsubaki", true, "time github.com/itsubaki/q too")
	checkQubits := flag.Int("check-qubits", 12, "compare final states with itsubaki/q on this many qubits first (0: skip)")
	flag.Parse()

	if *qsimBin != "" {
		if p, err := filepath.Abs(*qsimBin); err == nil {
			*qsimBin = p
		}
		if _, err := os.Stat(*qsimBin); err != nil {
			fmt.Fprintf(os.Stderr, "qsim: %v; its columns are skipped\n", err)
			*qsimBin = ""
		}
	}
	if *checkQubits > 0 {
		for _, name := range strings.Split(*names, ",") {
			ops := circuits[name](*checkQubits)
			_, a := runOurs(*checkQubits, ops, sim.Double)
			_, b := runItsubaki(*checkQubits, ops)
			if f := fidelity(a, b); !(f > 1-1e-9) {
				fmt.Fprintf(os.Stderr, "%s on %d qubits: our state and itsubaki/q's differ (fidelity %v)\n", name, *checkQubits, f)
				os.Exit(1)
			}
		}
	}

	fmt.Printf("# %s, %d CPUs, GOMAXPROCS %d, vector kernels %s, %s, median (min–max) of %d interleaved runs\n\n",
		cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), sim.SIMD(), time.Now().UTC().Format(time.DateOnly), *reps)
	fmt.Println("| circuit | qubits | ours double (s) | ours single (s) | itsubaki/q (s) | qsim f" + strconv.Itoa(*qsimFuse) + " (s) | itsubaki ÷ ours double | ours double ÷ qsim | ours single ÷ qsim |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, f := range strings.Split(*qubits, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 || n > 30 {
			fmt.Fprintf(os.Stderr, "bad qubit count %q\n", f)
			os.Exit(2)
		}
		for _, name := range strings.Split(*names, ",") {
			build, ok := circuits[strings.TrimSpace(name)]
			if !ok {
				fmt.Fprintf(os.Stderr, "unknown circuit %q\n", name)
				os.Exit(2)
			}
			ops := build(n)
			var dbl, sgl, its, qs []time.Duration
			for range *reps {
				d, _ := runOurs(n, ops, sim.Double)
				dbl = append(dbl, d)
				d, _ = runOurs(n, ops, sim.Single)
				sgl = append(sgl, d)
				if *itsubaki {
					d, _ = runItsubaki(n, ops)
					its = append(its, d)
				}
				if *qsimBin != "" {
					d, err := runQsim(*qsimBin, *qsimFuse, n, ops)
					if err != nil {
						fmt.Fprintln(os.Stderr, "qsim:", err)
						os.Exit(1)
					}
					qs = append(qs, d)
				}
			}
			cell := func(ds []time.Duration) string {
				if len(ds) == 0 {
					return "-"
				}
				return fmt.Sprintf("%.3f (%.3f–%.3f)", median(ds).Seconds(), slices.Min(ds).Seconds(), slices.Max(ds).Seconds())
			}
			ratio := func(a, b []time.Duration) string {
				if len(a) == 0 || len(b) == 0 {
					return "-"
				}
				return fmt.Sprintf("%.2f", median(a).Seconds()/median(b).Seconds())
			}
			fmt.Printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", name, n, cell(dbl), cell(sgl), cell(its), cell(qs),
				ratio(its, dbl), ratio(dbl, qs), ratio(sgl, qs))
		}
	}
}
