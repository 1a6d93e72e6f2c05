// Command bigjob measures what the service adds to a large simulation: a
// QFT on -qubits qubits, -shots shots, as a job through HTTP (create, then
// polls every -poll until COMPLETED) against sim.Run on the circuit qasm
// compiles from the same program, in the same process, repetition by
// repetition interleaved so that the ratio holds on a noisy machine.
//
//	cd bench && go run ./bigjob                 # 22 qubits, 1 shot, 5 repetitions
//	cd bench && go run ./bigjob -qubits 24 -reps 7
//
// The server is started in process on 127.0.0.1 with the memory store, as
// examples/server does. A job's time runs from the create's request to
// the poll that sees COMPLETED; a job's simulation reports its own time
// in metadata.simulationMs, which the last column shows.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
	"github.com/qjobs/quantum/store"
)

func main() {
	qubits := flag.Int("qubits", 22, "qubits of the QFT")
	shots := flag.Int("shots", 1, "shots")
	reps := flag.Int("reps", 5, "repetitions of each, interleaved")
	poll := flag.Duration("poll", time.Millisecond, "pause between polls of the job")
	flag.Parse()
	if err := run(*qubits, *shots, *reps, *poll); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// qft is the program: h on each qubit from the top, controlled phases from
// every lower one, then the swaps that reverse the order; measured.
func qft(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[%d];\ncreg c[%d];\n", n, n)
	for j := n - 1; j >= 0; j-- {
		fmt.Fprintf(&b, "h q[%d];\n", j)
		for k := j - 1; k >= 0; k-- {
			fmt.Fprintf(&b, "cu1(pi/%d) q[%d],q[%d];\n", 1<<(j-k), k, j)
		}
	}
	for i := range n / 2 {
		fmt.Fprintf(&b, "swap q[%d],q[%d];\n", i, n-1-i)
	}
	b.WriteString("measure q -> c;\n")
	return b.String()
}

func run(qubits, shots, reps int, poll time.Duration) error {
	src := qft(qubits)
	p, err := qasm.CompileProgram(src, qasm.Options{})
	if err != nil {
		return err
	}
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		return err
	}
	defer svc.Close(context.Background())
	const key = "bigjob-key"
	if _, err := svc.AddAPIKey(key, "bigjob"); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: httpadapter.New(svc)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "server:", err)
		}
	}()
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	body, _ := json.Marshal(map[string]any{
		"program":        map[string]any{"format": "qasm2", "data": src},
		"shots":          shots,
		"deviceQrn":      "qbraid:qbraid:sim:qir-sv",
		"runtimeOptions": map[string]any{"seed": 1},
	})

	fmt.Printf("# %s, %d CPUs, %s: QFT %d qubits, %d shot(s), %d repetitions\n",
		runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format(time.DateOnly), qubits, shots, reps)
	fmt.Printf("%-4s %12s %12s %8s %14s %12s\n", "rep", "sim.Run", "job (HTTP)", "ratio", "simulationMs", "job − sim")
	var ratios []float64
	for r := range reps {
		seed := uint64(1)
		t0 := time.Now()
		if _, err := sim.Run(context.Background(), p.Circuit, sim.Options{Shots: shots, Seed: &seed, ResultBits: p.OutputBits}); err != nil {
			return err
		}
		direct := time.Since(t0)
		job, simMs, err := oneJob(base, key, body, poll)
		if err != nil {
			return err
		}
		ratio := job.Seconds() / direct.Seconds()
		ratios = append(ratios, ratio)
		fmt.Printf("%-4d %12v %12v %8.3f %14.0f %12v\n", r+1, direct.Round(time.Millisecond), job.Round(time.Millisecond), ratio, simMs,
			(job - time.Duration(simMs*float64(time.Millisecond))).Round(time.Millisecond))
	}
	slices.Sort(ratios)
	fmt.Printf("median ratio job/sim.Run %.3f (min %.3f, max %.3f)\n", ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
	return nil
}

// oneJob creates the job and polls it until it is COMPLETED: its time and
// the simulation's own, as the job's metadata reports it.
func oneJob(base, key string, body []byte, poll time.Duration) (time.Duration, float64, error) {
	t0 := time.Now()
	var created struct {
		Data struct {
			JobQRN string `json:"jobQrn"`
		} `json:"data"`
	}
	if err := call("POST", base+"/api/v1/jobs", key, body, &created); err != nil {
		return 0, 0, err
	}
	for {
		var job struct {
			Data struct {
				Status   string         `json:"status"`
				Metadata map[string]any `json:"metadata"`
			} `json:"data"`
		}
		if err := call("GET", base+"/api/v1/jobs/"+created.Data.JobQRN, key, nil, &job); err != nil {
			return 0, 0, err
		}
		switch job.Data.Status {
		case "COMPLETED":
			ms, _ := job.Data.Metadata["simulationMs"].(float64)
			return time.Since(t0), ms, nil
		case "FAILED", "CANCELLED":
			return 0, 0, fmt.Errorf("the job ended %s", job.Data.Status)
		}
		time.Sleep(poll)
	}
}

func call(method, url, key string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}
