package ionq_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/qjobs/quantum/ionq"
	"github.com/qjobs/quantum/sim"
)

// FuzzCompile: no input makes Compile panic, return an error that is not
// an *Error, or lower a circuit sim refuses.
func FuzzCompile(f *testing.F) {
	f.Add(`{"qubits": 2, "circuit": [{"gate": "h", "target": 0}, {"gate": "cnot", "control": 0, "target": 1}]}`)
	f.Add(`{"qubits": 3, "gateset": "native", "circuit": [{"gate": "ms", "targets": [0, 2], "phases": [0.1, 0.2], "angle": 0.1}, {"gate": "zz", "targets": [1, 2], "angle": 0.3}]}`)
	f.Add(`"{\"qubits\": 1, \"circuit\": [{\"gate\": \"rx\", \"target\": 0, \"rotation\": 1e3}]}"`)
	files, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 4096 {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ionq.Compile(context.Background(), src, ionq.Options{MaxQubits: 10, MaxOps: 1000})
		if err != nil {
			var e *ionq.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *ionq.Error", err)
			}
			return
		}
		seed := uint64(1)
		if _, err := sim.Run(context.Background(), p.Circuit, sim.Options{Shots: 2, Seed: &seed, ResultBits: p.Qubits}); err != nil {
			t.Fatalf("sim refuses the compiled circuit: %v\n%s", err, src)
		}
	})
}
