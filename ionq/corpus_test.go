package ionq_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjobs/quantum/ionq"
	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

const corpus = "../testdata/corpus/ionq/qiskit-ionq"

func readCorpus(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// qiskit-ionq's table of how it writes each qiskit gate in IonQ JSON:
// what this package makes of the IonQ ops is the qiskit gate, as package
// qasm compiles it (qiskit's names and its little-endian order).
func TestQiskitIonQSerializations(t *testing.T) {
	var table []struct {
		Qiskit string           `json:"qiskit"`
		Args   []any            `json:"args"`
		IonQ   []map[string]any `json:"ionq"`
	}
	if err := json.Unmarshal([]byte(readCorpus(t, "gate-serializations.json")), &table); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range table {
		if e.Qiskit == "measure" {
			continue // IonQ measures every qubit at the end
		}
		var params []string
		var qubits []int
		var controls int
		for _, a := range e.Args {
			switch a := a.(type) {
			case float64:
				if len(params) < paramsOf(e.Qiskit) {
					params = append(params, fmt.Sprint(a))
				} else {
					qubits = append(qubits, int(a))
				}
			case []any:
				for _, q := range a {
					qubits = append(qubits, int(q.(float64)))
				}
				controls = len(a)
			}
		}
		n := 0
		for _, q := range qubits {
			n = max(n, q+1)
		}
		stmt := e.Qiskit
		switch e.Qiskit {
		case "mcx":
			stmt = fmt.Sprintf("ctrl(%d) @ x", controls)
		case "mcp":
			stmt = fmt.Sprintf("ctrl(%d) @ p", controls)
		}
		if len(params) > 0 {
			stmt += "(" + strings.Join(params, ", ") + ")"
		}
		var qs []string
		for _, q := range qubits {
			qs = append(qs, fmt.Sprintf("q[%d]", q))
		}
		stmt += " " + strings.Join(qs, ", ") + ";"
		want := qasmUnitary(t, stmt, n)
		got := unitaryOf(t, e.IonQ, n)
		assertClose(t, e.Qiskit+" as "+stmt, got, want)
		checked++
	}
	if checked < 40 {
		t.Fatalf("checked %d serializations", checked)
	}
}

func paramsOf(gate string) int {
	switch gate {
	case "cp", "crx", "cry", "crz", "mcp", "p", "rx", "rxx", "ry", "ryy", "rz":
		return 1
	}
	return 0
}

// qasmUnitary is the unitary of an OpenQASM 3 statement on n qubits.
func qasmUnitary(t *testing.T, stmt string, n int) []complex128 {
	t.Helper()
	dim := 1 << n
	u := make([]complex128, dim*dim)
	for j := range dim {
		src := fmt.Sprintf("OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[%d] q;\n", n)
		for q := range n {
			if j>>q&1 == 1 {
				src += fmt.Sprintf("x q[%d];\n", q)
			}
		}
		c, err := qasm.Compile(src+stmt+"\n", qasm.Options{})
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		c.NumQubits = n
		s, err := sim.Simulate(context.Background(), c, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range s.Amplitudes() {
			u[i*dim+j] = a
		}
	}
	return u
}

// qiskit-ionq's whole circuits: the QIS one and the native one run to
// their exact distributions; its program of several circuits is refused,
// pointing to batches.
func TestQiskitIonQCircuits(t *testing.T) {
	// cx(1, 0) then h(1), from |00⟩: h on qubit 1 alone, ½ on 00 and 10.
	p := compile(t, readCorpus(t, "cx-h.json"))
	s, err := sim.Simulate(context.Background(), withoutMeasurements(p.Circuit), sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	probs := s.Probabilities()
	if abs(probs[0]-0.5) > 1e-12 || abs(probs[2]-0.5) > 1e-12 {
		t.Fatalf("cx-h: %v, want ½ on 00 and 10", probs)
	}

	// gpi(0.1) on 0, gpi2(0.2) on 1, ms on 1 2, zz(0.4) on 0 2: the state
	// the gates' physical definitions give, applied one by one.
	p = compile(t, readCorpus(t, "full-native.json"))
	s, err = sim.Simulate(context.Background(), withoutMeasurements(p.Circuit), sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []complex128{1, 0, 0, 0, 0, 0, 0, 0}
	for _, step := range []struct {
		m  []complex128
		qs []int
	}{
		{sigma(0.1), []int{0}},
		{expPauli(0.25*3.141592653589793, sigma(0.2)), []int{1}},
		{expPauli(0.25*3.141592653589793, sim.Kron(sigma(0.3), sigma(0.2))), []int{1, 2}},
		{expPauli(0.4*3.141592653589793, sim.Kron(zm, zm)), []int{0, 2}},
	} {
		want = matVec(lift(step.m, step.qs, 3), want)
	}
	assertClose(t, "full native circuit", s.Amplitudes(), want)

	_, err = ionq.Compile(context.Background(), readCorpus(t, "multicircuit.json"), ionq.Options{})
	var e *ionq.Error
	if !errors.As(err, &e) || e.Path != "circuits" {
		t.Fatalf("multicircuit: err %v, want circuits refused", err)
	}
}

func matVec(m, v []complex128) []complex128 {
	out := make([]complex128, len(v))
	for i := range v {
		for j := range v {
			out[i] += m[i*len(v)+j] * v[j]
		}
	}
	return out
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
