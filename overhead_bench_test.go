package quantum_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/sim"
)

// qftQASM is the QFT on n qubits as exporters write it (h and cu1), then
// measured.
func qftQASM(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[%d];\ncreg c[%d];\n", n, n)
	for i := range n {
		fmt.Fprintf(&b, "h q[%d];\n", i)
		for j := i + 1; j < n; j++ {
			fmt.Fprintf(&b, "cu1(%v) q[%d],q[%d];\n", math.Pi/float64(int(1)<<(j-i)), j, i)
		}
	}
	b.WriteString("measure q -> c;\n")
	return b.String()
}

// BenchmarkServiceOverhead compares one 24-qubit QFT run by sim.Run on
// the circuit qasm compiles with the same program as a job of the
// Service, from create to its end: what the service adds to a large
// simulation.
func BenchmarkServiceOverhead(b *testing.B) {
	const qubits, shots = 24, 1000
	src := qftQASM(qubits)
	b.Run("sim.Run", func(b *testing.B) {
		p, err := qasm.CompileProgram(src, qasm.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			seed := uint64(1)
			if _, err := sim.Run(context.Background(), p.Circuit, sim.Options{Shots: shots, Seed: &seed,
				Limits: sim.Limits{MaxQubits: 28, MemoryBudget: quantumtest.MemoryBudget}, ResultBits: p.OutputBits}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("job", func(b *testing.B) {
		svc, u := quantumtest.NewService(b)
		for b.Loop() {
			j, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{Program: &quantum.Program{Format: "qasm2", Data: src},
				Shots: shots, DeviceQRN: "qbraid:qbraid:sim:qir-sv", RuntimeOptions: map[string]any{"seed": 1}})
			if err != nil {
				b.Fatal(err)
			}
			if done := quantumtest.WaitForJob(b, svc, u, j.JobQRN); done.Status != quantum.StatusCompleted {
				b.Fatalf("job %s", done.Status)
			}
		}
	})
}
