// Command anneal measures the annealer (package anneal, the device
// qbraid:nec:sim:vector-annealer):
//
//   - flips: attempted flips a second on one core, on a sparse spin glass
//     of 10,000 spins (±1 couplings, 15,000 of them), one read of the
//     default 1,000 sweeps (the same problem as anneal's
//     BenchmarkFlips10k);
//
//   - planted: frustrated-loop instances of 1,000 spins with a known ground
//     energy, each submitted -seeds times as a job at the default settings
//     (one read, 1,000 sweeps, the default schedule; only the seed
//     changes): whether the job's lowest energy is the ground energy, and
//     the job's time from its create to COMPLETED;
//
//   - big: the largest problem a job may send (100,000 variables,
//     1,000,000 couplings) as the public client encodes it: the create's
//     time (decoding and checking it) and a job of -big-sweeps sweeps.
//
//     cd bench && go run ./anneal
//     cd bench && go run ./anneal -seeds 20 -loops 300,600
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/anneal"
	"github.com/qjobs/quantum/store"
)

const device = "qbraid:nec:sim:vector-annealer"

var (
	maxLoopFlag = flag.Int("max-loop", 1000, "longest loop of the planted instances, in edges (1000: any the walk closes)")
	sweepsFlag  = flag.Int("sweeps", 0, "num_sweeps of the planted jobs (0: the default)")
	readsFlag   = flag.Int("reads", 0, "num_reads of the planted jobs (0: the default, the shots: 1)")
)

func main() {
	seeds := flag.Int("seeds", 10, "jobs per planted instance, one seed each")
	loops := flag.String("loops", "200,300,400", "loops of each planted instance of 1,000 spins")
	reps := flag.Int("reps", 5, "repetitions of the flips measure")
	bigSweeps := flag.Int("big-sweeps", 10, "sweeps of the job on the largest problem (0: skip it)")
	exactVars := flag.String("exact", "24,30", "variables of the exact method's jobs, each a sparse and a dense problem (empty: skip them)")
	flag.Parse()
	if err := run(*seeds, *loops, *reps, *bigSweeps, *exactVars); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(seeds int, loopList string, reps, bigSweeps int, exactVars string) error {
	fmt.Printf("GOMAXPROCS %d, %s/%s\n\n", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	if err := flips(reps); err != nil {
		return err
	}
	svc, err := quantum.New(store.NewMemory(), quantum.WithMemoryBudget(4<<30))
	if err != nil {
		return err
	}
	defer svc.Close(context.Background())
	u, err := svc.AddAPIKey("bench-key", "bench")
	if err != nil {
		return err
	}
	for _, f := range strings.Split(loopList, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("-loops: %w", err)
		}
		if err := planted(svc, u, n, seeds); err != nil {
			return err
		}
	}
	if bigSweeps > 0 {
		if err := big(svc, u, bigSweeps); err != nil {
			return err
		}
	}
	for _, f := range strings.Split(exactVars, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("-exact: %w", err)
		}
		for _, m := range []int{2 * n, n * (n - 1) / 2} {
			if err := exact(svc, u, n, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// exact runs the exact method on n spins and m random ±1 couplings.
func exact(svc *quantum.Service, u quantum.User, n, m int) error {
	p, err := sparseGlass(n, m, 4)
	if err != nil {
		return err
	}
	_, work := anneal.Need(p, anneal.Options{Method: anneal.Exact})
	start := time.Now()
	j, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{DeviceQRN: device,
		Program: &quantum.Program{Format: "problem", Data: clientJSON(p)}, RuntimeOptions: map[string]any{"method": "exact"}})
	if err != nil {
		return err
	}
	if j, err = svc.Wait(context.Background(), u, j.JobQRN); err != nil {
		return err
	}
	took := time.Since(start)
	if j.Status != quantum.StatusCompleted {
		return fmt.Errorf("exact job %s: %s", j.JobQRN, j.Status)
	}
	res, err := svc.GetJobResult(context.Background(), u, j.JobQRN)
	if err != nil {
		return err
	}
	fmt.Printf("exact: %d spins, %d couplings: %d units of work, job %v (%.3g units a second), %v ground states\n",
		n, m, work, took.Round(time.Millisecond), float64(work)/took.Seconds(), res.ResultData.Data["numSolutions"])
	return nil
}

// flips times one read of the default sweeps on one worker.
func flips(reps int) error {
	p, err := sparseGlass(10_000, 15_000, 1)
	if err != nil {
		return err
	}
	fmt.Printf("flips: %d spins, %d couplings, 1 read of %d sweeps, 1 worker\n", len(p.Names), len(p.Couplings), anneal.DefaultSweeps)
	for r := range reps {
		start := time.Now()
		res, err := anneal.Solve(context.Background(), p, anneal.Options{Workers: 1, Seed: uint64(r)})
		if err != nil {
			return err
		}
		d := time.Since(start)
		fmt.Printf("  %v: %.3g attempted flips a second (lowest energy %v)\n", d.Round(time.Millisecond),
			float64(res.Sweeps*len(p.Names))/d.Seconds(), res.Solutions[0].Energy)
	}
	fmt.Println()
	return nil
}

// planted submits one planted instance seeds times.
func planted(svc *quantum.Service, u quantum.User, loops, seeds int) error {
	maxLoop := *maxLoopFlag
	p, ground, mean := plantedInstance(1000, loops, maxLoop, uint64(loops))
	data := clientJSON(p)
	fmt.Printf("planted: %d spins, %d loops of %.1f edges on average, %d couplings, ground energy %v, %d bytes of JSON\n",
		len(p.Names), loops, mean, len(p.Couplings), ground, len(data))
	reached := 0
	var slowest time.Duration
	for seed := range seeds {
		opts := map[string]any{"seed": seed}
		if *sweepsFlag > 0 {
			opts["num_sweeps"] = *sweepsFlag
		}
		if *readsFlag > 0 {
			opts["num_reads"] = *readsFlag
		}
		start := time.Now()
		j, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{DeviceQRN: device,
			Program: &quantum.Program{Format: "problem", Data: data}, RuntimeOptions: opts})
		if err != nil {
			return err
		}
		if j, err = svc.Wait(context.Background(), u, j.JobQRN); err != nil {
			return err
		}
		took := time.Since(start)
		slowest = max(slowest, took)
		if j.Status != quantum.StatusCompleted {
			return fmt.Errorf("job %s: %s", j.JobQRN, j.Status)
		}
		res, err := svc.GetJobResult(context.Background(), u, j.JobQRN)
		if err != nil {
			return err
		}
		e := res.ResultData.Data["solutions"].([]any)[0].(map[string]any)["energy"].(float64)
		hit := e <= ground+1e-9
		if hit {
			reached++
		}
		fmt.Printf("  seed %d: energy %v (ground: %v), job %v (execution %d ms)\n", seed, e, hit, took.Round(time.Millisecond), j.TimeStamps.ExecutionDuration)
	}
	fmt.Printf("  %d of %d seeds reached the ground energy; slowest job %v\n\n", reached, seeds, slowest.Round(time.Millisecond))
	return nil
}

// big creates the largest problem a job may send and runs it briefly.
func big(svc *quantum.Service, u quantum.User, sweeps int) error {
	p, err := sparseGlass(anneal.MaxVariables, anneal.MaxCouplings, 2)
	if err != nil {
		return err
	}
	data := clientJSON(p)
	memory, work := anneal.Need(p, anneal.Options{Sweeps: sweeps})
	fmt.Printf("big: %d variables, %d couplings, %.1f MB of JSON; the solver holds %.1f MiB, %d sweeps are %d units of work\n",
		len(p.Names), len(p.Couplings), float64(len(data))/1e6, float64(memory)/(1<<20), sweeps, work)
	start := time.Now()
	j, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{DeviceQRN: device,
		Program: &quantum.Program{Format: "problem", Data: data}, RuntimeOptions: map[string]any{"num_sweeps": sweeps, "seed": 1}})
	if err != nil {
		return err
	}
	created := time.Since(start)
	if j, err = svc.Wait(context.Background(), u, j.JobQRN); err != nil {
		return err
	}
	fmt.Printf("  create (decode and check) %v; job %v in all, execution %d ms, %s\n", created.Round(time.Millisecond),
		time.Since(start).Round(time.Millisecond), j.TimeStamps.ExecutionDuration, j.Status)
	return nil
}
