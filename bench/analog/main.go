// Command analog times analog jobs as a user sees them: a program of the
// public client's analog format created on the emulated Aquila, from
// create to COMPLETED, on a Service with a memory store.
//
//	go run ./analog [-runs 3] [-only name]
//
// The workloads: a chain of 12 atoms under a 4 µs adiabatic sweep with
// 1,000 shots (the full 2^12 space), 16 atoms in the full space (a 4×4
// lattice, a 2×8 ladder) under the same sweep, and a 5×5 lattice within
// the blockade radius; with QuEra's tutorial sweep (Δ from −2π·13 to
// 2π·11 MHz) and with Aquila's whole detuning range (±1.25e8 rad/s),
// which widens the Hamiltonian's spread and so the work. Each line gives
// the job's wall time from create to COMPLETED and the CPU time the
// process spent meanwhile (both cores: on a quiet machine the wall time
// is about half of it).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store"
)

type workload struct {
	name   string
	sites  [][2]float64 // metres
	delta  [2]float64   // the sweep's detuning from and to, rad/s
	radius float64      // blockade radius, metres (0: the full space)
	shots  int
}

func chain(n int, spacing float64) [][2]float64 {
	var s [][2]float64
	for i := range n {
		s = append(s, [2]float64{float64(i) * spacing, 0})
	}
	return s
}

func lattice(rows, cols int, spacing float64) [][2]float64 {
	var s [][2]float64
	for r := range rows {
		for c := range cols {
			s = append(s, [2]float64{float64(c) * spacing, float64(r) * spacing})
		}
	}
	return s
}

const (
	tutorialFrom = -2 * math.Pi * 13e6
	tutorialTo   = 2 * math.Pi * 11e6
	fullRange    = 1.25e8
)

func workloads() []workload {
	return []workload{
		{"chain12", chain(12, 6.1e-6), [2]float64{tutorialFrom, tutorialTo}, 0, 1000},
		{"chain12-full-range", chain(12, 6.1e-6), [2]float64{-fullRange, fullRange}, 0, 1000},
		{"lattice4x4", lattice(4, 4, 6.7e-6), [2]float64{tutorialFrom, tutorialTo}, 0, 1000},
		{"lattice4x4-full-range", lattice(4, 4, 6.7e-6), [2]float64{-fullRange, fullRange}, 0, 1000},
		{"ladder2x8", lattice(2, 8, 6.1e-6), [2]float64{tutorialFrom, tutorialTo}, 0, 1000},
		{"lattice5x5-blockade", lattice(5, 5, 5.5e-6), [2]float64{tutorialFrom, tutorialTo}, 8.4e-6, 1000},
		{"lattice5x5-blockade-nn", lattice(5, 5, 6.1e-6), [2]float64{tutorialFrom, tutorialTo}, 8.4e-6, 1000},
	}
}

func dec(x float64) string { return strconv.FormatFloat(x, 'E', -1, 64) }

// program is the sweep on the sites: Ω up to 2π·2.5 MHz in 0.25 µs,
// held, down in 0.25 µs; Δ held at its start while Ω rises, swept to its
// end, held while Ω falls; 4 µs in all.
func (w workload) program() string {
	times := []string{"0", "2.5E-7", "3.75E-6", "4E-6"}
	omega := 2 * math.Pi * 2.5e6
	field := func(values ...float64) map[string]any {
		v := make([]string, len(values))
		for i, x := range values {
			v[i] = dec(x)
		}
		return map[string]any{"time_series": map[string]any{"times": times, "values": v}, "pattern": "uniform"}
	}
	var sites []any
	var filling []int
	for _, s := range w.sites {
		sites = append(sites, []string{dec(s[0]), dec(s[1])})
		filling = append(filling, 1)
	}
	p := map[string]any{
		"register": map[string]any{"sites": sites, "filling": filling},
		"hamiltonian": map[string]any{"drivingFields": []any{map[string]any{
			"amplitude": field(0, omega, omega, 0),
			"phase":     field(0, 0, 0, 0),
			"detuning":  field(w.delta[0], w.delta[0], w.delta[1], w.delta[1]),
		}}, "localDetuning": []any{}},
	}
	b, _ := json.Marshal(p)
	return string(b)
}

func main() {
	runs := flag.Int("runs", 3, "runs of each workload")
	only := flag.String("only", "", "run only the workloads whose name contains this")
	flag.Parse()
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close(context.Background())
	u, err := svc.AddAPIKey("bench-key-0123456789", "bench")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("GOMAXPROCS=%d %s/%s %s\n", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	for _, w := range workloads() {
		if *only != "" && !strings.Contains(w.name, *only) {
			continue
		}
		var walls, cpus []time.Duration
		var last *quantum.Job
		for range *runs {
			opts := map[string]any{"seed": 1, "noiseModel": "ideal"}
			if w.radius > 0 {
				opts["blockadeRadius"] = w.radius
			}
			start, cpu0 := time.Now(), cpuTime()
			job, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{Name: w.name,
				Program: &quantum.Program{Format: "analog", Data: w.program()}, Shots: w.shots,
				DeviceQRN: "aws:quera:qpu:aquila", RuntimeOptions: opts})
			if err != nil {
				log.Fatalf("%s: %v", w.name, err)
			}
			job, err = svc.Wait(context.Background(), u, job.JobQRN)
			if err != nil {
				log.Fatalf("%s: %v", w.name, err)
			}
			if job.Status != quantum.StatusCompleted {
				log.Fatalf("%s: %s %v", w.name, job.Status, job.StatusMsg)
			}
			walls = append(walls, time.Since(start))
			cpus = append(cpus, cpuTime()-cpu0)
			last = job
		}
		sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
		sort.Slice(cpus, func(i, j int) bool { return cpus[i] < cpus[j] })
		md := last.Metadata
		fmt.Printf("%-23s atoms %2d  configurations %6v  steps %4v  passes %6v  error bound %.2g  wall median %v (min %v, max %v)  cpu median %v\n",
			w.name, len(w.sites), md["configurations"], md["steps"], md["terms"], md["errorBound"],
			walls[len(walls)/2].Round(time.Millisecond), walls[0].Round(time.Millisecond), walls[len(walls)-1].Round(time.Millisecond),
			cpus[len(cpus)/2].Round(time.Millisecond))
	}
	_ = os.Stdout.Sync()
}
