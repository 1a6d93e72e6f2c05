package ionq_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum/ionq"
)

// Every bad program is an *Error naming the JSON path and the rule.
func TestErrors(t *testing.T) {
	cases := []struct{ src, path, want string }{
		{`{"qubits": 2, "circuit": [{"gate": "x", "target": 0, "targets": [1]}]}`, "circuit[0]", `has both "target" and "targets"`},
		{`{"qubits": 3, "circuit": [{"gate": "x", "target": 2, "control": 0, "controls": [1]}]}`, "circuit[0]", `has both "control" and "controls"`},
		{`{"qubits": 2, "circuit": [{"gate": "h", "target": 0}, {"gate": "gpi", "target": 0, "phase": 0.1}]}`, "circuit[1].gate", "native and QIS gates do not mix"},
		{`{"qubits": 2, "gateset": "native", "circuit": [{"gate": "h", "target": 0}]}`, "circuit[0].gate", "native and QIS gates do not mix"},
		{`{"qubits": 2, "circuit": [{"gate": "rx", "target": 0, "rotation": "1.5"}]}`, "circuit[0].rotation", "must be a number"},
		{`{"qubits": 2, "circuit": [{"gate": "rx", "target": 0}]}`, "circuit[0].rotation", "is required"},
		{`{"qubits": 2, "circuit": [{"gate": "h", "target": 0, "rotation": 1}]}`, "circuit[0].rotation", "h takes no rotation"},
		{`{"qubits": 2, "circuit": [{"gate": "x", "target": 2}]}`, "circuit[0].target", "qubit 2 is past the circuit's 2 qubits"},
		{`{"qubits": 2, "circuit": [{"gate": "x", "target": -1}]}`, "circuit[0].target", "non-negative integer"},
		{`{"qubits": 2, "circuit": [{"gate": "swap", "targets": [0, 5]}]}`, "circuit[0].targets[1]", "qubit 5 is past"},
		{`{"qubits": 100, "circuit": []}`, "qubits", "more than the device's 64 qubits"},
		{`{"qubits": 0, "circuit": []}`, "qubits", "positive integer"},
		{`{"qubits": "2", "circuit": []}`, "qubits", "positive integer"},
		{`{"circuit": []}`, "qubits", "is required"},
		{`{"qubits": 2}`, "circuit", "is required"},
		{`{"qubits": 2, "circuit": {}}`, "circuit", "must be a list of gates"},
		{`{"qubits": 2, "circuits": [{"circuit": []}]}`, "circuits", "submit each as a program of a batch"},
		{`{"qubits": 2, "circuit": [], "gateset": "clifford"}`, "gateset", `must be "qis" or "native"`},
		{`{"qubits": 2, "circuit": [], "format": "ionq.circuit.v1"}`, "format", `must be "ionq.circuit.v0"`},
		{`{"qubits": 2, "circuit": [], "noise": {}}`, "noise", "is not a key of an IonQ circuit"},
		{`{"qubits": 2, "circuit": [{"gate": "foo", "target": 0}]}`, "circuit[0].gate", `unknown gate "foo"`},
		{`{"qubits": 2, "circuit": [{"target": 0}]}`, "circuit[0].gate", "is required"},
		{`{"qubits": 2, "circuit": [3]}`, "circuit[0]", "must be a gate"},
		{`{"qubits": 2, "circuit": [{"gate": "x", "target": 0, "targt": 1}]}`, "circuit[0].targt", `x takes no "targt"`},
		{`{"qubits": 2, "circuit": [{"gate": "cnot", "target": 0}]}`, "circuit[0]", "cnot takes 1 control(s)"},
		{`{"qubits": 3, "circuit": [{"gate": "ccnot", "control": 1, "target": 0}]}`, "circuit[0]", "ccnot takes 2 control(s)"},
		{`{"qubits": 2, "circuit": [{"gate": "cnot", "control": 0, "target": 0}]}`, "circuit[0]", "uses qubit 0 twice"},
		{`{"qubits": 9, "circuit": [{"gate": "x", "controls": [1,2,3,4,5,6,7,8], "target": 0}]}`, "circuit[0].controls", "at most 7"},
		{`{"qubits": 2, "circuit": [{"gate": "swap", "targets": [0]}]}`, "circuit[0].targets", "acts on 2"},
		{`{"qubits": 2, "gateset": "native", "circuit": [{"gate": "ms", "targets": [0, 1], "phases": [0, 0], "angle": 0.3}]}`, "circuit[0].angle", "from 0 to 0.25"},
		{`{"qubits": 2, "gateset": "native", "circuit": [{"gate": "ms", "targets": [0, 1], "phases": [0]}]}`, "circuit[0].phases", "two numbers"},
		{`{"qubits": 2, "gateset": "native", "circuit": [{"gate": "ms", "targets": [0, 1], "phases": [0, "x"]}]}`, "circuit[0].phases[1]", "must be a number"},
		{`{"qubits": 2, "gateset": "native", "circuit": [{"gate": "gpi", "target": 0}]}`, "circuit[0].phase", "is required"},
		{`{"qubits": 2, "gateset": "native", "circuit": [{"gate": "zz", "targets": [0, 1], "rotation": 1}]}`, "circuit[0].rotation", `zz takes no "rotation"`},
		{`{"qubits": 2, "circuit": [{"gate": "h", "target": 0}`, "", "not valid JSON"},
		{`[1, 2]`, "", "must be a JSON object"},
	}
	for _, tc := range cases {
		_, err := ionq.Compile(context.Background(), tc.src, ionq.Options{})
		var e *ionq.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: err %v, want an *ionq.Error", tc.src, err)
			continue
		}
		if e.Path != tc.path || !strings.Contains(e.Msg, tc.want) {
			t.Errorf("%s:\n got %q: %s\nwant %q: …%s…", tc.src, e.Path, e.Msg, tc.path, tc.want)
		}
	}
}

// A program may arrive as the JSON string of the object (the public
// client's json.dumps).
func TestStringEncodedProgram(t *testing.T) {
	p := compile(t, `"{\"qubits\": 2, \"circuit\": [{\"gate\": \"h\", \"target\": 0}]}"`)
	if p.Qubits != 2 || len(p.Circuit.Ops) != 3 {
		t.Fatalf("qubits %d, %d ops", p.Qubits, len(p.Circuit.Ops))
	}
}

// A syntax error says where, by line and column.
func TestSyntaxErrorPosition(t *testing.T) {
	_, err := ionq.Compile(context.Background(), "{\"qubits\": 2,\n \"circuit\": [}", ionq.Options{})
	if err == nil || !strings.Contains(err.Error(), "line 2, column 14") {
		t.Fatalf("err %v, want line 2, column 14", err)
	}
}

func TestCompileStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := `{"qubits": 1, "circuit": [` + strings.Repeat(`{"gate": "h", "target": 0},`, 5000) + `{"gate": "h", "target": 0}]}`
	if _, err := ionq.Compile(ctx, src, ionq.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if _, err := ionq.Compile(context.Background(), src, ionq.Options{MaxOps: 100}); err == nil || !strings.Contains(err.Error(), "more than 100 gates") {
		t.Fatalf("err %v, want MaxOps", err)
	}
}
