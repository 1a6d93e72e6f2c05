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
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/itsubaki/q"
	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/sim"
	"github.com/qjobs/quantum/store"
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
	cpu0, start := cpuTime(false), time.Now()
	s, err := sim.SimulateWith(context.Background(), c, sim.Options{Precision: p})
	d := time.Since(start)
	lastCPU = cpuTime(false) - cpu0
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return d, s.Amplitudes()
}

// qasmOf writes ops as an OpenQASM 2 program that measures every qubit.
func qasmOf(n int, ops []op) string {
	var b strings.Builder
	fmt.Fprintf(&b, "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[%d];\ncreg c[%d];\n", n, n)
	for _, o := range ops {
		switch o.name {
		case "cp":
			fmt.Fprintf(&b, "cu1(%.17g) q[%d],q[%d];\n", o.theta, o.qubits[0], o.qubits[1])
		case "h":
			fmt.Fprintf(&b, "h q[%d];\n", o.qubits[0])
		default:
			fmt.Fprintf(&b, "%s q[%d],q[%d];\n", o.name, o.qubits[0], o.qubits[1])
		}
	}
	b.WriteString("measure q -> c;\n")
	return b.String()
}

// jobRunner is a Service with the memory store behind its HTTP API on a
// loopback port, and a client of it: a job there goes through
// everything a user's job does (JSON, the QASM compiler, the queue, the
// runner, the store).
type jobRunner struct {
	svc *quantum.Service
	srv *httptest.Server
	cl  *client.Client
}

func newJobRunner() (*jobRunner, error) {
	svc, err := quantum.New(store.NewMemory(), quantum.WithMemoryBudget(8<<30))
	if err != nil {
		return nil, err
	}
	const key = "versus-key"
	if _, err := svc.AddAPIKey(key, "versus"); err != nil {
		return nil, err
	}
	srv := httptest.NewServer(httpadapter.New(svc))
	cl, err := client.New(srv.URL, key)
	if err != nil {
		return nil, err
	}
	return &jobRunner{svc, srv, cl}, nil
}

// run times one job of the circuit, 1 shot, from create to COMPLETED, on
// the state vector: left to choose, the service runs hcx (H and CX only)
// on the stabilizer tableau in milliseconds.
func (r *jobRunner) run(n int, ops []op, p sim.Precision) (time.Duration, error) {
	src := qasmOf(n, ops)
	prec := "double"
	if p == sim.Single {
		prec = "single"
	}
	runtime.GC()
	ctx := context.Background()
	cpu0, start := cpuTime(false), time.Now()
	j, err := r.cl.CreateJob(ctx, quantum.JobRequest{Program: &quantum.Program{Format: "qasm2", Data: src}, Shots: 1,
		DeviceQRN: "qbraid:qbraid:sim:qir-sv", RuntimeOptions: map[string]any{"precision": prec, "method": "statevector"}})
	if err != nil {
		return 0, err
	}
	done, err := r.cl.Wait(ctx, j.JobQRN)
	d := time.Since(start)
	lastCPU = cpuTime(false) - cpu0
	if err != nil {
		return 0, err
	}
	if done.Status != quantum.StatusCompleted {
		msg := ""
		if done.StatusMsg != nil {
			msg = *done.StatusMsg
		}
		return 0, fmt.Errorf("job %s: %s", done.Status, msg)
	}
	return d, nil
}

func (r *jobRunner) close() {
	r.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.svc.Close(ctx)
}

// lastCPU is the CPU time (user and system, all threads) of the last run
// of any simulator: on a shared machine wall times move with the others'
// load, CPU times far less.
var lastCPU time.Duration

// runItsubaki applies ops with itsubaki/q, its qubit n−1−i for our i.
func runItsubaki(n int, ops []op) (time.Duration, []complex128) {
	runtime.GC()
	cpu0, start := cpuTime(false), time.Now()
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
	lastCPU = cpuTime(false) - cpu0
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
	cpu0 := cpuTime(true)
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
	lastCPU = cpuTime(true) - cpu0 // the whole qsim_base process
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
	job := flag.Bool("job", true, "time ours as a job too: create to COMPLETED over HTTP, 1 shot, double precision, the state vector")
	only := flag.String("only", "", "run just one simulator (double, single, job, job-single, itsubaki) -reps times for each circuit and qubit count, print nothing but errors: for timing whole processes")
	flag.Parse()

	var jobs *jobRunner
	if *job || strings.HasPrefix(*only, "job") {
		var err error
		if jobs, err = newJobRunner(); err != nil {
			fmt.Fprintln(os.Stderr, "job:", err)
			os.Exit(1)
		}
		defer jobs.close()
	}
	if *only != "" {
		os.Exit(runOnly(*only, *qubits, *names, *reps, jobs))
	}

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
	header := "| circuit | qubits | ours double (s) | ours single (s) | ours as a job (s) | itsubaki/q (s) | qsim f" + strconv.Itoa(*qsimFuse) + " (s) | itsubaki ÷ ours double | itsubaki ÷ job | ours double ÷ qsim | ours single ÷ qsim |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
	fmt.Print(header)
	// The same runs' CPU time (user and system, every thread; qsim_base's
	// whole process), printed after: a shared machine moves wall times
	// with its other work far more than CPU times.
	var cpuRows strings.Builder
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
			var dbl, sgl, jb, its, qs times
			for range *reps {
				d, _ := runOurs(n, ops, sim.Double)
				dbl.add(d)
				d, _ = runOurs(n, ops, sim.Single)
				sgl.add(d)
				if jobs != nil {
					d, err := jobs.run(n, ops, sim.Double)
					if err != nil {
						fmt.Fprintln(os.Stderr, "job:", err)
						os.Exit(1)
					}
					jb.add(d)
				}
				if *itsubaki {
					d, _ = runItsubaki(n, ops)
					its.add(d)
				}
				if *qsimBin != "" {
					d, err := runQsim(*qsimBin, *qsimFuse, n, ops)
					if err != nil {
						fmt.Fprintln(os.Stderr, "qsim:", err)
						os.Exit(1)
					}
					qs.add(d)
				}
			}
			fmt.Print(row(name, n, dbl.wall, sgl.wall, jb.wall, its.wall, qs.wall))
			cpuRows.WriteString(row(name, n, dbl.cpu, sgl.cpu, jb.cpu, its.cpu, qs.cpu))
		}
	}
	fmt.Printf("\nCPU seconds of the same runs (user + system, all threads; qsim_base's whole process):\n\n%s%s", header, cpuRows.String())
}

// times are a simulator's runs: wall times, and CPU times (lastCPU).
type times struct{ wall, cpu []time.Duration }

func (t *times) add(d time.Duration) {
	t.wall = append(t.wall, d)
	t.cpu = append(t.cpu, lastCPU)
}

// row is a table row: each simulator's median (min–max), then the ratios
// of medians.
func row(name string, n int, dbl, sgl, jb, its, qs []time.Duration) string {
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
	return fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, n, cell(dbl), cell(sgl), cell(jb), cell(its), cell(qs),
		ratio(its, dbl), ratio(its, jb), ratio(dbl, qs), ratio(sgl, qs))
}

// runOnly runs one simulator reps times on each circuit and qubit count,
// for timing the whole process from outside (paired runs of two
// processes, one per simulator).
func runOnly(which, qubits, names string, reps int, jobs *jobRunner) int {
	for _, f := range strings.Split(qubits, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 || n > 30 {
			fmt.Fprintf(os.Stderr, "bad qubit count %q\n", f)
			return 2
		}
		for _, name := range strings.Split(names, ",") {
			build, ok := circuits[strings.TrimSpace(name)]
			if !ok {
				fmt.Fprintf(os.Stderr, "unknown circuit %q\n", name)
				return 2
			}
			ops := build(n)
			for range reps {
				switch which {
				case "double":
					runOurs(n, ops, sim.Double)
				case "single":
					runOurs(n, ops, sim.Single)
				case "job", "job-single":
					p := sim.Double
					if which == "job-single" {
						p = sim.Single
					}
					if _, err := jobs.run(n, ops, p); err != nil {
						fmt.Fprintln(os.Stderr, "job:", err)
						return 1
					}
				case "itsubaki":
					runItsubaki(n, ops)
				default:
					fmt.Fprintf(os.Stderr, "-only %q: want double, single, job, job-single or itsubaki\n", which)
					return 2
				}
			}
		}
	}
	return 0
}
