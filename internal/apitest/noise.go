package apitest

import (
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/noiseref"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/sim"
)

// The noise tests compare a noisy job's counts with the distribution a
// reference density-matrix simulator (internal/noiseref, written apart
// from sim) computes for the same program and model: seeded, 20,000
// shots, a chi-squared bound at the 0.9999 quantile.

const noiseShots = 20_000

// noiseSeed is the seed of every noisy job: a seed that passes passes
// always.
var noiseSeed = map[string]any{"seed": 7}

// echoProgram is h, then pairs of x and cx that cancel, then h: ideally
// always 00, and each gate's noise shows in the counts.
const echoProgram = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\n" +
	"x q[0];\nx q[0];\ncx q[0],q[1];\ncx q[0],q[1];\nx q[1];\nx q[1];\ncx q[0],q[1];\ncx q[0],q[1];\n" +
	"h q[0];\nmeasure q -> c;\n"

// echoReference is echoProgram with a channel after each gate: one (on
// each qubit of the gate, one at a time) and, when two is not nil, two on
// the pair after a two-qubit gate instead.
func echoReference(one, two [][]complex128) map[string]float64 {
	r := noiseref.New(2)
	g1 := func(m []complex128, q int) { r.Gate(m, q).Channel(one, q) }
	g2 := func(m []complex128, a, b int) {
		r.Gate(m, a, b)
		if two != nil {
			r.Channel(two, a, b)
			return
		}
		r.Channel(one, a).Channel(one, b)
	}
	g1(noiseref.H, 0)
	g1(noiseref.X, 0)
	g1(noiseref.X, 0)
	g2(noiseref.CX, 0, 1)
	g2(noiseref.CX, 0, 1)
	g1(noiseref.X, 1)
	g1(noiseref.X, 1)
	g2(noiseref.CX, 0, 1)
	g2(noiseref.CX, 0, 1)
	g1(noiseref.H, 0)
	return r.Measure(0, 0, 0).Measure(1, 1, 0).Probabilities(2)
}

func checkCounts(t *testing.T, what string, counts map[string]int, probs map[string]float64) {
	t.Helper()
	if err := noiseref.CheckCounts(counts, probs, noiseShots); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// noisyJob runs req with the seed and noiseShots shots and returns the
// finished job and its counts.
func (e *env) noisyJob(req quantum.JobRequest) (*quantum.Job, map[string]int) {
	e.t.Helper()
	req.Shots = noiseShots
	opts := map[string]any{"seed": noiseSeed["seed"]}
	for k, v := range req.RuntimeOptions {
		opts[k] = v
	}
	req.RuntimeOptions = opts
	done := e.wait(e.alice, e.create(e.alice, req).JobQRN)
	if done.Status != quantum.StatusCompleted {
		e.t.Fatalf("job ended %s: %s", done.Status, quantumtest.StatusMsg(done))
	}
	res, err := e.alice.GetJobResult(ctx, done.JobQRN)
	if err != nil {
		e.t.Fatal(err)
	}
	return done, res.ResultData.MeasurementCounts
}

// testNoiseModels: every model of the built-in simulators, named in
// runtimeOptions.noiseModel of a QASM 2 program, gives counts of the
// exact distribution of its channel after every gate (decisions.md), on
// the method auto picks (the stabilizer for the Pauli channels on this
// Clifford program, the density matrix for amplitude damping) and on
// trajectories; the job's metadata says the model and the method.
// "ideal" is no noise.
func testNoiseModels(t *testing.T, target Target) {
	e := open(t, target)
	models := []struct {
		name     string
		one, two [][]complex128
	}{
		{"depolarizing", noiseref.Depolarizing(0.01), noiseref.TwoQubitDepolarizing(0.02)},
		{"amplitude_damping", noiseref.AmplitudeDamping(0.01), nil},
		{"phase_damping", noiseref.PhaseDamping(0.01), nil},
		{"bit_flip", noiseref.BitFlip(0.01), nil},
		{"phase_flip", noiseref.PhaseFlip(0.01), nil},
	}
	for _, m := range models {
		for _, method := range []string{"auto", "statevector"} {
			t.Run(m.name+"/"+method, func(t *testing.T) {
				e := e.with(t)
				done, counts := e.noisyJob(quantum.JobRequest{DeviceQRN: flagship, Program: &quantum.Program{Format: "qasm2", Data: echoProgram},
					RuntimeOptions: map[string]any{"noiseModel": m.name, "method": method}})
				checkCounts(t, m.name, counts, echoReference(m.one, m.two))
				want := map[string]any{"noiseModel": m.name, "method": "stabilizer"}
				if m.name == "amplitude_damping" {
					want["method"] = "densitymatrix"
				}
				if method == "statevector" {
					want["method"] = "statevector"
				}
				for k, v := range want {
					if done.Metadata[k] != v {
						t.Fatalf("metadata.%s = %v, want %v (metadata %v)", k, done.Metadata[k], v, done.Metadata)
					}
				}
				if reason, _ := done.Metadata["methodReason"].(string); (method == "auto") != (reason != "") {
					t.Fatalf("methodReason %q with method %s", reason, method)
				}
			})
		}
	}
	t.Run("ideal", func(t *testing.T) {
		e := e.with(t)
		done, counts := e.noisyJob(quantum.JobRequest{DeviceQRN: flagship, Program: &quantum.Program{Format: "qasm2", Data: echoProgram},
			RuntimeOptions: map[string]any{"noiseModel": "ideal"}})
		wantEqual(t, "ideal counts", counts, map[string]int{"00": noiseShots})
		if _, ok := done.Metadata["noiseModel"]; ok || done.Metadata["method"] != "stabilizer" {
			t.Fatalf("metadata %v: want no noiseModel, method stabilizer", done.Metadata)
		}
	})
}

// strongNoise is a device of one's own with a model of its own, strong
// enough that every channel and readout error shows: built through the Go
// API as a test suite builds its mock QPU.
func (e *env) strongNoise() string {
	e.t.Helper()
	must := func(ch *sim.Channel, err error) *sim.Channel {
		if err != nil {
			e.t.Fatal(err)
		}
		return ch
	}
	model := &sim.NoiseModel{
		Rules: []sim.NoiseRule{
			{Qubits: 2, Channel: must(sim.TwoQubitDepolarizing(0.1))},
			{Gates: []string{"rx"}, Channel: must(sim.AmplitudeDamping(0.2))},
			{Channel: must(sim.Depolarizing(0.08))},
		},
		ReadoutError: map[int]float64{0: 0.05, 1: 0.1},
	}
	d := quantum.Device{
		Name: "Strong Noise", QRN: "qbraid:qbraid:sim:strong-noise", Vendor: "qbraid", Provider: "qbraid",
		DeviceType: quantum.DeviceSimulator, RunInputTypes: []string{"qasm2", "qasm3", "qir.ll"}, NumberQubits: 4,
		Noise: map[string]*sim.NoiseModel{"strong": model}, DefaultNoiseModel: "strong",
	}
	if err := e.svc.RegisterDevice(d, e.svc.Simulator()); err != nil {
		e.t.Fatal(err)
	}
	return d.QRN
}

// adaptiveQIR is feedbackQASM3 in adaptive QIR.
const adaptiveQIR = `define void @main() #0 {
entry:
  call void @__quantum__qis__h__body(ptr null)
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  %r = call i1 @__quantum__qis__read_result__body(ptr null)
  br i1 %r, label %then, label %cont
then:
  call void @__quantum__qis__x__body(ptr inttoptr (i64 1 to ptr))
  br label %cont
cont:
  call void @__quantum__qis__rx__body(double 0.7, ptr inttoptr (i64 1 to ptr))
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 1 to ptr), ptr inttoptr (i64 1 to ptr))
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 1 to ptr), ptr null)
  ret void
}

declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__x__body(ptr)
declare void @__quantum__qis__rx__body(double, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare i1 @__quantum__qis__read_result__body(ptr)
declare void @__quantum__rt__result_record_output(ptr, ptr)

attributes #0 = { "entry_point" "qir_profiles"="adaptive_profile" "required_num_qubits"="2" "required_num_results"="2" }
attributes #1 = { "irreversible" }
`

// feedbackQASM3 measures qubit 0 mid-circuit and flips qubit 1 when it
// read 1.
const feedbackQASM3 = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\n" +
	"h q[0];\nc[0] = measure q[0];\nif (c[0]) { x q[1]; }\nrx(0.7) q[1];\nc[1] = measure q[1];\n"

// testNoiseFeedback: a device's own model on a program with a mid-circuit
// measurement and classical control, in OpenQASM 3 and in adaptive QIR:
// the channels follow the gates that run, the readout errors reach the
// bit the control reads, the counts are the reference's.
func testNoiseFeedback(t *testing.T, target Target) {
	e := open(t, target)
	dev := e.strongNoise()
	dep, amp := noiseref.Depolarizing(0.08), noiseref.AmplitudeDamping(0.2)
	want := noiseref.New(2).Gate(noiseref.H, 0).Channel(dep, 0).Measure(0, 0, 0.05).
		GateIf(0, true, noiseref.X, 1).ChannelIf(0, true, dep, 1).
		Gate(noiseref.RX(0.7), 1).Channel(amp, 1).Measure(1, 1, 0.1).Probabilities(2)
	for _, p := range []quantum.Program{{Format: "qasm3", Data: feedbackQASM3}, {Format: "qir.ll", Data: adaptiveQIR}} {
		t.Run(p.Format, func(t *testing.T) {
			e := e.with(t)
			done, counts := e.noisyJob(quantum.JobRequest{DeviceQRN: dev, Program: &p})
			checkCounts(t, p.Format, counts, want)
			if done.Metadata["noiseModel"] != "strong" || done.Metadata["method"] != "statevector" {
				t.Fatalf("metadata %v", done.Metadata)
			}
		})
	}
}

// testNoiseQPU: a QPU's own model comes from its calibration
// (decisions.md, "QPU devices"): depolarizing(rb) after a qubit's
// one-qubit gates, two_qubit_depolarizing of the pair's worst edge after
// a two-qubit gate, the mean rb for qubits the document leaves out,
// readout errors on the measured bits; it is the default, on programs
// that address a few of the device's qubits, in QASM and QIR.
func testNoiseQPU(t *testing.T, target Target) {
	e := open(t, target)
	r0, r4 := 0.08, 0.1
	qpu := e.mockQPU(func(d *quantum.Device) {
		d.MaxShots = noiseShots
		d.RunInputTypes = []string{"qasm2", "qasm3", "qir.ll"}
		d.Calibration.Qubits = map[int]qtype.QubitCalibration{
			0: {GateErrorRB: 0.05, ReadoutError: &r0}, 1: {GateErrorRB: 0.03}, 4: {GateErrorRB: 0.04, ReadoutError: &r4},
		}
		d.Calibration.Edges = []qtype.EdgeCalibration{
			{Gate: "cz", Source: 0, Target: 1, Value: 0.1}, {Gate: "cz", Source: 4, Target: 1, Value: 0.15}, {Gate: "iswap", Source: 1, Target: 4, Value: 0.2},
		}
	})
	dev, err := e.alice.GetDevice(ctx, qpu)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "noise models", dev.NoiseModels, []string{"ideal", "Mock Grid"})
	// On device qubits 0, 1, 4 and 2 (2 has no calibration: mean rb 0.04).
	ref := noiseref.New(4) // reference qubits 0, 1, 2, 3 are device qubits 0, 1, 4, 2
	dep := noiseref.Depolarizing
	ref.Gate(noiseref.X, 0).Channel(dep(0.05), 0)
	ref.Gate(noiseref.CX, 0, 1).Channel(noiseref.TwoQubitDepolarizing(0.1), 0, 1)
	ref.Gate(noiseref.H, 2).Channel(dep(0.04), 2)
	ref.Gate(noiseref.CZ, 1, 2).Channel(noiseref.TwoQubitDepolarizing(0.2), 1, 2)
	ref.Gate(noiseref.H, 3).Channel(dep(0.04), 3)
	want := ref.Measure(0, 0, r0).Measure(1, 1, 0).Measure(2, 2, r4).Measure(3, 3, 0).Probabilities(4)
	qasm := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[6];\ncreg c[4];\nx q[0];\ncx q[0],q[1];\nh q[4];\ncz q[1],q[4];\nh q[2];\n" +
		"measure q[0] -> c[0];\nmeasure q[1] -> c[1];\nmeasure q[4] -> c[2];\nmeasure q[2] -> c[3];\n"
	qir := `define void @main() #0 {
  call void @__quantum__qis__x__body(ptr null)
  call void @__quantum__qis__cnot__body(ptr null, ptr inttoptr (i64 1 to ptr))
  call void @__quantum__qis__h__body(ptr inttoptr (i64 4 to ptr))
  call void @__quantum__qis__cz__body(ptr inttoptr (i64 1 to ptr), ptr inttoptr (i64 4 to ptr))
  call void @__quantum__qis__h__body(ptr inttoptr (i64 2 to ptr))
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 1 to ptr), ptr inttoptr (i64 1 to ptr))
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 4 to ptr), ptr inttoptr (i64 2 to ptr))
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 2 to ptr), ptr inttoptr (i64 3 to ptr))
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 1 to ptr), ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 2 to ptr), ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 3 to ptr), ptr null)
  ret void
}

declare void @__quantum__qis__x__body(ptr)
declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__cnot__body(ptr, ptr)
declare void @__quantum__qis__cz__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__rt__result_record_output(ptr, ptr)

attributes #0 = { "entry_point" "qir_profiles"="base_profile" "required_num_qubits"="6" "required_num_results"="4" }
attributes #1 = { "irreversible" }
`
	for _, p := range []quantum.Program{{Format: "qasm2", Data: qasm}, {Format: "qir.ll", Data: qir}} {
		t.Run(p.Format, func(t *testing.T) {
			e := e.with(t)
			done, counts := e.noisyJob(quantum.JobRequest{DeviceQRN: qpu, Program: &p})
			checkCounts(t, p.Format, counts, want)
			if done.Metadata["noiseModel"] != "Mock Grid" {
				t.Fatalf("metadata %v", done.Metadata)
			}
		})
	}
	t.Run("ideal", func(t *testing.T) {
		e := e.with(t)
		_, counts := e.noisyJob(quantum.JobRequest{DeviceQRN: qpu, Program: &quantum.Program{Format: "qasm2", Data: qasm},
			RuntimeOptions: map[string]any{"noiseModel": "ideal"}})
		for k := range counts {
			if !strings.HasSuffix(k, "11") {
				t.Fatalf("ideal counts %v: qubits 0 and 1 always read 1 without noise", counts)
			}
		}
	})
}

// testNoiseInvalid: a noise model or method a device or program cannot
// take is a 422 naming the field, and stores nothing.
func testNoiseInvalid(t *testing.T, target Target) {
	e := open(t, target)
	plain := e.device("plain", &quantumtest.FakeBackend{})
	strong := e.strongNoise()
	bell := &quantum.Program{Format: "qasm2", Data: bell2}
	cases := []struct {
		name string
		req  quantum.JobRequest
		want *quantum.Error
	}{
		{"a model the device lacks", quantum.JobRequest{DeviceQRN: strong, Shots: 10, Program: bell, RuntimeOptions: map[string]any{"noiseModel": "depolarizing"}},
			invalid(field("runtimeOptions.noiseModel", "must be one of ideal, strong"))},
		{"a device without models", quantum.JobRequest{DeviceQRN: plain, Shots: 10, Program: bell, RuntimeOptions: map[string]any{"noiseModel": "ideal"}},
			invalid(field("runtimeOptions.noiseModel", "device "+plain+" has no noise models"))},
		{"densitymatrix with classical control", quantum.JobRequest{DeviceQRN: strong, Shots: 10,
			Program: &quantum.Program{Format: "qasm3", Data: feedbackQASM3}, RuntimeOptions: map[string]any{"method": "densitymatrix"}},
			invalid(field("runtimeOptions.method", "densitymatrix runs circuits whose measurements are all terminal, without classical control: the gate x at 7:13 is classical control; statevector runs it (with quantum trajectories for its noise)"))},
		{"densitymatrix on adaptive QIR", quantum.JobRequest{DeviceQRN: strong, Shots: 10,
			Program: &quantum.Program{Format: "qir.ll", Data: adaptiveQIR}, RuntimeOptions: map[string]any{"method": "densitymatrix"}},
			invalid(field("runtimeOptions.method", "a program that reads its measurements runs shot by shot, not as densitymatrix"))},
		{"stabilizer", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ncreg c[1];\nt q[0];\nmeasure q -> c;\n"},
			RuntimeOptions: map[string]any{"method": "stabilizer"}},
			invalid(field("runtimeOptions.method", "stabilizer runs Clifford gates and Pauli channels only: gate t at 5:1 is not a Clifford gate"))},
		{"method not a string", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: bell, RuntimeOptions: map[string]any{"method": 3}},
			invalid(field("runtimeOptions.method", "must be one of auto, statevector, densitymatrix, stabilizer, sparse (got 3)"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.alice.CreateJob(ctx, tc.req)
			wantErr(t, tc.name, err, tc.want)
		})
	}
	if p := e.list(e.alice, quantum.JobQuery{}); p.Pagination.Total != 0 {
		t.Fatalf("%d jobs stored by invalid creates", p.Pagination.Total)
	}
}

// testNoiseEmulatedQPU: a QIR program on an emulated QPU of the catalogue
// (IQM Garnet) runs with the model its calibration document says, as a
// client reads that document from the API: the counts are the
// reference's for the document's errors.
func testNoiseEmulatedQPU(t *testing.T, target Target) {
	e := open(t, target)
	const garnet = "aws:iqm:qpu:garnet"
	doc, err := e.alice.GetDeviceCalibrations(ctx, garnet)
	if err != nil {
		t.Fatal(err)
	}
	rb := func(q string) float64 { return doc.Qubits[q].GateError["rb"] }
	readout := func(q string) float64 { return *doc.Qubits[q].ReadoutError }
	edge := func(a, b int) float64 {
		var worst float64
		for _, edges := range doc.Edges.GateError {
			for _, x := range edges {
				if x.Source == a && x.Target == b || x.Source == b && x.Target == a {
					worst = max(worst, x.Value)
				}
			}
		}
		if worst == 0 {
			t.Fatalf("no edge %d-%d in the calibration", a, b)
		}
		return worst
	}
	// Garnet's qubits 0 and 1 are row 0 of its lattice, 3 is below 0.
	want := noiseref.New(3).Gate(noiseref.H, 0).Channel(noiseref.Depolarizing(rb("0")), 0).
		Gate(noiseref.CX, 0, 1).Channel(noiseref.TwoQubitDepolarizing(edge(0, 1)), 0, 1).
		Gate(noiseref.CX, 0, 2).Channel(noiseref.TwoQubitDepolarizing(edge(0, 3)), 0, 2).
		Measure(0, 0, readout("0")).Measure(1, 1, readout("1")).Measure(2, 2, readout("3")).Probabilities(3)
	qir := `define void @main() #0 {
  call void @__quantum__qis__h__body(ptr null)
  call void @__quantum__qis__cnot__body(ptr null, ptr inttoptr (i64 1 to ptr))
  call void @__quantum__qis__cnot__body(ptr null, ptr inttoptr (i64 3 to ptr))
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 1 to ptr), ptr inttoptr (i64 1 to ptr))
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 3 to ptr), ptr inttoptr (i64 2 to ptr))
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 1 to ptr), ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 2 to ptr), ptr null)
  ret void
}

declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__cnot__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__rt__result_record_output(ptr, ptr)

attributes #0 = { "entry_point" "qir_profiles"="base_profile" "required_num_qubits"="4" "required_num_results"="3" }
attributes #1 = { "irreversible" }
`
	done, counts := e.noisyJob(quantum.JobRequest{DeviceQRN: garnet, Program: &quantum.Program{Format: "qir.ll", Data: qir}})
	checkCounts(t, "Garnet", counts, want)
	if done.Metadata["noiseModel"] != "Garnet" {
		t.Fatalf("metadata %v", done.Metadata)
	}
	if done.Cost != 30+0.145*noiseShots {
		t.Fatalf("cost %v, want Braket's 30 credits a task and 0.145 a shot", done.Cost)
	}
}

// pragmaProgram applies channels where it says, as Braket's simulators
// read OpenQASM 3: one-qubit, two-qubit and a kraus written as
// decisions.md writes it.
const pragmaProgram = `OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit[2] c;
h q[0];
#pragma braket noise depolarizing(0.1) q[0]
cx q[0], q[1];
#pragma braket noise two_qubit_depolarizing(0.05) q[0], q[1]
#pragma braket noise kraus([[0.9486832980505138, 0], [0, 0.9486832980505138]], [[0, 0.31622776601683794], [0.31622776601683794, 0]]) q[1]
#pragma braket noise amplitude_damping(0.2) q[0]
c = measure q;
`

// testNoisePragmas: an OpenQASM 3 program's Braket noise pragmas give the
// counts of the reference on the flagship, without a model and under the
// depolarizing model (whose channels follow the gates, not the pragmas);
// a pragma that is wrong is a 422 at its line and column, and nothing is
// stored.
func testNoisePragmas(t *testing.T, target Target) {
	e := open(t, target)
	program := func(withModel bool) map[string]float64 {
		r := noiseref.New(2)
		after := func(qs ...int) {
			if !withModel {
				return
			}
			if len(qs) == 2 {
				r.Channel(noiseref.TwoQubitDepolarizing(0.02), qs...)
				return
			}
			r.Channel(noiseref.Depolarizing(0.01), qs...)
		}
		r.Gate(noiseref.H, 0)
		after(0)
		r.Channel(noiseref.Depolarizing(0.1), 0)
		r.Gate(noiseref.CX, 0, 1)
		after(0, 1)
		r.Channel(noiseref.TwoQubitDepolarizing(0.05), 0, 1).Channel(noiseref.BitFlip(0.1), 1).Channel(noiseref.AmplitudeDamping(0.2), 0)
		return r.Measure(0, 0, 0).Measure(1, 1, 0).Probabilities(2)
	}
	for _, model := range []string{"", "depolarizing"} {
		t.Run("model="+model, func(t *testing.T) {
			e := e.with(t)
			req := quantum.JobRequest{DeviceQRN: flagship, Program: &quantum.Program{Format: "qasm3", Data: pragmaProgram}}
			if model != "" {
				req.RuntimeOptions = map[string]any{"noiseModel": model}
			}
			done, counts := e.noisyJob(req)
			checkCounts(t, "pragmas", counts, program(model != ""))
			if done.Metadata["method"] != "densitymatrix" {
				t.Fatalf("metadata %v", done.Metadata)
			}
		})
	}
	line := func(pragma string) *quantum.Program {
		return &quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\nqubit[2] q;\n" + pragma + "\n"}
	}
	for _, tc := range []struct {
		name, pragma, want string
	}{
		{"unknown channel", "#pragma braket noise thermal(0.1) q[0]", `3:22: unknown noise channel "thermal"; the channels are bit_flip, phase_flip, pauli_channel, depolarizing, two_qubit_depolarizing, two_qubit_dephasing, amplitude_damping, phase_damping, generalized_amplitude_damping, kraus`},
		{"out of range", "#pragma braket noise bit_flip(0.7) q[0]", "3:31: bit_flip: p = 0.7 is outside [0, 0.5]"},
		{"one qubit for two", "#pragma braket noise two_qubit_depolarizing(0.1) q[0]", `3:50: noise channel "two_qubit_depolarizing" acts on 2 qubits, the pragma names 1`},
		{"not trace preserving", "#pragma braket noise kraus([[1, 0], [0, 0.5]]) q[0]", "3:22: invalid channel: kraus: Σ K†K is not the identity (largest entry of |Σ K†K − I| is 0.75, over 1e-09): the channel does not preserve the trace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.alice.CreateJob(ctx, quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: line(tc.pragma)})
			wantErr(t, tc.name, err, invalid(field("program.data", tc.want)))
		})
	}
	if p := e.list(e.alice, quantum.JobQuery{}); p.Pagination.Total != 2 {
		t.Fatalf("%d jobs stored, want the 2 that ran", p.Pagination.Total)
	}
}
