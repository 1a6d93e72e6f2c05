package apitest

import (
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
)

// mockQPU registers a 2×3 square-lattice QPU on the Service's simulator,
// qubit ids cols·row + col:
//
//	0 - 1 - 2
//	|   |   |
//	3 - 4 - 5
func (e *env) mockQPU(edit ...func(*quantum.Device)) string {
	e.t.Helper()
	readout := 0.02
	d := quantum.Device{
		Name: "Mock Grid", QRN: "qbraid:qbraid:qpu:grid", Vendor: "qbraid", Provider: "qbraid",
		DeviceType: quantum.DeviceQPU, RunInputTypes: []string{"qasm2", "qasm3"}, NumberQubits: 6,
		MinShots: 10, MaxShots: 5000, BatchJobSupport: true, Pricing: quantum.Pricing{PerTask: 0.3, PerShot: 0.0009},
		Topology: &qtype.Topology{Type: qtype.TopologySquareLattice, Rows: 2, Cols: 3},
		Calibration: &qtype.Calibration{
			LastCalibrated: time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC),
			Qubits:         map[int]qtype.QubitCalibration{0: {GateErrorRB: 0.001, ReadoutError: &readout}, 4: {GateErrorRB: 0.002}},
			Edges:          []qtype.EdgeCalibration{{Gate: "cz", Source: 0, Target: 1, Value: 0.01}, {Gate: "cz", Source: 4, Target: 1, Value: 0.02}},
		},
	}
	for _, f := range edit {
		f(&d)
	}
	if err := e.svc.RegisterDevice(d, e.svc.Simulator()); err != nil {
		e.t.Fatal(err)
	}
	return d.QRN
}

// testQPUCoupling: a QPU's coupling map is its calibration's edges
// (direction ignored), or its topology's neighbours without them; a gate
// between qubits it does not couple is refused naming them, its shot
// bounds hold, and a program on coupled qubits runs.
func testQPUCoupling(t *testing.T, target Target) {
	e := open(t, target)
	qpu := e.mockQPU()
	prog := func(body string) quantum.JobRequest {
		return quantum.JobRequest{DeviceQRN: qpu, Shots: 100, Program: &quantum.Program{Format: "qasm2",
			Data: "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[6];\ncreg c[6];\n" + body + "measure q -> c;\n"}}
	}
	done := e.wait(e.alice, e.create(e.alice, prog("x q[0];\ncx q[0],q[1];\ncz q[1],q[4];\n")).JobQRN)
	if done.Status != quantum.StatusCompleted {
		t.Fatalf("a program on coupled qubits: %s", done.Status)
	}
	_, err := e.alice.CreateJob(ctx, prog("h q[0];\ncx q[4],q[0];\n"))
	wantErr(t, "cx between 4 and 0", err, invalid(field("program.data",
		"6:1: qubits 0 and 4 are not coupled on qbraid:qbraid:qpu:grid: a gate may join only coupled qubits (its topology and calibration edges)")))
	// 1-2 are neighbours in the lattice but not an edge of the calibration.
	_, err = e.alice.CreateJob(ctx, prog("cx q[1],q[2];\n"))
	if quantum.ErrorCode(err) != quantum.EVALIDATION {
		t.Fatalf("cx 1-2, not a calibrated edge: %v", err)
	}
	few := prog("")
	few.Shots = 9
	_, err = e.alice.CreateJob(ctx, few)
	wantErr(t, "9 shots", err, invalid(field("shots", "must be at least 10 on qbraid:qbraid:qpu:grid")))

	// Without a calibration, the lattice's neighbours are coupled.
	lattice := e.mockQPU(func(d *quantum.Device) { d.QRN, d.Calibration = "qbraid:qbraid:qpu:lattice", nil })
	req := prog("cx q[1],q[2];\ncx q[2],q[5];\n")
	req.DeviceQRN = lattice
	if j := e.wait(e.alice, e.create(e.alice, req).JobQRN); j.Status != quantum.StatusCompleted {
		t.Fatalf("lattice neighbours: %s", j.Status)
	}
	req = prog("cx q[0],q[5];\n")
	req.DeviceQRN = lattice
	if _, err := e.alice.CreateJob(ctx, req); quantum.ErrorCode(err) != quantum.EVALIDATION {
		t.Fatalf("cx 0-5 on the lattice: %v", err)
	}

	// A clipped lattice of columns 1-2 over 0-2, ids row by row:
	//	    0 - 1
	//	    |   |
	//	2 - 3 - 4
	clipped := e.mockQPU(func(d *quantum.Device) {
		d.QRN, d.Calibration, d.NumberQubits = "qbraid:qbraid:qpu:clipped", nil, 5
		d.Topology = &qtype.Topology{Type: qtype.TopologyClipped, GridCols: 3, RowSpans: [][2]int{{1, 2}, {0, 2}}}
	})
	clippedProg := func(body string) quantum.JobRequest {
		return quantum.JobRequest{DeviceQRN: clipped, Shots: 100, Program: &quantum.Program{Format: "qasm2",
			Data: "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[5];\ncreg c[5];\n" + body + "measure q -> c;\n"}}
	}
	if j := e.wait(e.alice, e.create(e.alice, clippedProg("cx q[0],q[3];\ncx q[2],q[3];\ncx q[4],q[1];\n")).JobQRN); j.Status != quantum.StatusCompleted {
		t.Fatalf("clipped neighbours: %s", j.Status)
	}
	for _, body := range []string{"cx q[0],q[2];\n", "cx q[1],q[3];\n"} {
		if _, err := e.alice.CreateJob(ctx, clippedProg(body)); quantum.ErrorCode(err) != quantum.EVALIDATION {
			t.Fatalf("%q on the clipped lattice: %v", body, err)
		}
	}
}

// testQPUDocuments: the device document carries its topology and shot
// bounds; its calibration route answers the calibration, and a simulator's
// a 404.
func testQPUDocuments(t *testing.T, target Target) {
	e := open(t, target)
	qpu := e.mockQPU()
	d, err := e.alice.GetDevice(ctx, qpu)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "topology", d.Topology, &qtype.Topology{Type: qtype.TopologySquareLattice, Rows: 2, Cols: 3})
	if d.MinShots != 10 || d.MaxShots != 5000 || d.DeviceType != quantum.DeviceQPU {
		t.Fatalf("minShots %d, maxShots %d, type %s", d.MinShots, d.MaxShots, d.DeviceType)
	}
	cal, err := e.alice.GetDeviceCalibrations(ctx, qpu)
	if err != nil {
		t.Fatal(err)
	}
	readout := 0.02
	wantEqual(t, "calibration", &qtype.CalibrationDocument{DeviceQRNs: cal.DeviceQRNs, Provider: cal.Provider,
		LastCalibrated: cal.LastCalibrated, FetchedAt: cal.FetchedAt, Qubits: cal.Qubits, Edges: cal.Edges}, &qtype.CalibrationDocument{
		DeviceQRNs: []string{qpu}, Provider: "qbraid", LastCalibrated: "2026-11-25T06:00:00.000Z", FetchedAt: cal.FetchedAt,
		Qubits: map[string]qtype.CalibratedQubit{
			"0": {GateError: map[string]float64{"rb": 0.001}, ReadoutError: &readout},
			"4": {GateError: map[string]float64{"rb": 0.002}},
		},
		Edges: qtype.CalibratedEdges{GateError: map[string][]qtype.CalibratedEdge{"cz": {{Source: 0, Target: 1, Value: 0.01}, {Source: 4, Target: 1, Value: 0.02}}}},
	})
	_, err = e.alice.GetDeviceCalibrations(ctx, flagship)
	wantErr(t, "a simulator's calibration", err, errorf(quantum.ENOTFOUND, "Calibration data not found for this device"))
	for _, bad := range []func(*quantum.Device){
		func(d *quantum.Device) { d.Topology.Rows = 3 },
		func(d *quantum.Device) { d.Topology.Type = "ring" },
		func(d *quantum.Device) { d.Calibration.Edges[0].Target = 6 },
		func(d *quantum.Device) { d.MinShots = 6000 },
	} {
		if err := e.svc.UpdateDevice(qpu, bad); err == nil {
			t.Error("a bad topology, calibration or shot bound was accepted")
		}
	}
}

// testQPUMinRunTime: a job on a device with a MinRunTime takes at least
// that long, and a cancel still ends it at once.
func testQPUMinRunTime(t *testing.T, target Target) {
	e := open(t, target)
	const hold = 300 * time.Millisecond
	qpu := e.mockQPU(func(d *quantum.Device) { d.MinRunTime = hold })
	req := quantum.JobRequest{DeviceQRN: qpu, Shots: 100, Program: &quantum.Program{Format: "qasm2",
		Data: "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"}}
	done := e.wait(e.alice, e.create(e.alice, req).JobQRN)
	if done.Status != quantum.StatusCompleted || done.TimeStamps.ExecutionDuration < hold.Milliseconds() {
		t.Fatalf("%s after %d ms, want COMPLETED after at least %v", done.Status, done.TimeStamps.ExecutionDuration, hold)
	}
	long := e.mockQPU(func(d *quantum.Device) { d.QRN, d.MinRunTime = "qbraid:qbraid:qpu:slow", time.Hour })
	req.DeviceQRN = long
	j := e.create(e.alice, req)
	e.running(j.JobQRN)
	if err := e.alice.CancelJob(ctx, j.JobQRN); err != nil {
		t.Fatal(err)
	}
	if done := e.wait(e.alice, j.JobQRN); done.Status != quantum.StatusCancelled {
		t.Fatalf("a cancelled job held for an hour: %s", done.Status)
	}
}

// testQPUWide: a QPU with more qubits than a state vector holds (Ankaa-3,
// 84) runs programs that use few of them, in OpenQASM and in QIR that is
// the same circuit every shot: only the qubits used are simulated. A QIR
// program that reads its measurements runs on every qubit up to the
// highest it uses: on the stabilizer when it is Clifford, and is refused
// saying why when no method holds them.
func testQPUWide(t *testing.T, target Target) {
	e := open(t, target)
	const ankaa = "aws:rigetti:qpu:ankaa-3"
	// 70 and 71 are neighbours on row 5 of the 7×12 lattice.
	qasm := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[84];\ncreg c[2];\nx q[70];\ncx q[70],q[71];\nmeasure q[70] -> c[0];\nmeasure q[71] -> c[1];\n"
	qir := `define void @main() #0 {
  call void @__quantum__qis__x__body(ptr inttoptr (i64 70 to ptr))
  call void @__quantum__qis__cnot__body(ptr inttoptr (i64 70 to ptr), ptr inttoptr (i64 71 to ptr))
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 70 to ptr), ptr null)
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 71 to ptr), ptr inttoptr (i64 1 to ptr))
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 1 to ptr), ptr null)
  ret void
}

declare void @__quantum__qis__x__body(ptr)
declare void @__quantum__qis__cnot__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__rt__result_record_output(ptr, ptr)

attributes #0 = { "entry_point" "qir_profiles"="base_profile" "required_num_qubits"="84" "required_num_results"="2" }
attributes #1 = { "irreversible" }
`
	for _, p := range []quantum.Program{{Format: "qasm2", Data: qasm}, {Format: "qir.ll", Data: qir}} {
		t.Run(p.Format, func(t *testing.T) {
			e := e.with(t)
			done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: ankaa, Shots: 100, Program: &p,
				RuntimeOptions: map[string]any{"noiseModel": "ideal"}}).JobQRN)
			if done.Status != quantum.StatusCompleted {
				t.Fatalf("%s: %s", done.Status, quantumtest.StatusMsg(done))
			}
			if done.Metadata["numQubits"] != 2 && done.Metadata["numQubits"] != int64(2) && done.Metadata["numQubits"] != float64(2) {
				t.Fatalf("metadata %v: want numQubits 2", done.Metadata)
			}
			res, err := e.alice.GetJobResult(ctx, done.JobQRN)
			if err != nil {
				t.Fatal(err)
			}
			wantEqual(t, "counts", res.ResultData.MeasurementCounts, map[string]int{"11": 100})
		})
	}
	adaptive := strings.Replace(qir, "  call void @__quantum__rt__result_record_output(ptr null, ptr null)",
		"  %r = call i1 @__quantum__qis__read_result__body(ptr null)\n  call void @__quantum__rt__result_record_output(ptr null, ptr null)", 1)
	adaptive = strings.Replace(adaptive, "declare void @__quantum__rt__result_record_output(ptr, ptr)",
		"declare void @__quantum__rt__result_record_output(ptr, ptr)\ndeclare i1 @__quantum__qis__read_result__body(ptr)", 1)
	adaptive = strings.Replace(adaptive, "base_profile", "adaptive_profile", 1)
	// Clifford: the stabilizer runs it shot by shot, on all 72 qubits.
	done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: ankaa, Shots: 100, Program: &quantum.Program{Format: "qir.ll", Data: adaptive},
		RuntimeOptions: map[string]any{"noiseModel": "ideal"}}).JobQRN)
	if done.Status != quantum.StatusCompleted || done.Metadata["method"] != "stabilizer" {
		t.Fatalf("an adaptive Clifford program on qubit 71: %s %s %v", done.Status, quantumtest.StatusMsg(done), done.Metadata)
	}
	// With a t, no method holds 72 qubits.
	withT := strings.Replace(adaptive, "  call void @__quantum__qis__mz__body(ptr inttoptr (i64 70 to ptr), ptr null)",
		"  call void @__quantum__qis__t__body(ptr inttoptr (i64 70 to ptr))\n  call void @__quantum__qis__mz__body(ptr inttoptr (i64 70 to ptr), ptr null)", 1)
	withT = strings.Replace(withT, "declare void @__quantum__qis__x__body(ptr)", "declare void @__quantum__qis__x__body(ptr)\ndeclare void @__quantum__qis__t__body(ptr)", 1)
	_, err := e.alice.CreateJob(ctx, quantum.JobRequest{DeviceQRN: ankaa, Shots: 100, Program: &quantum.Program{Format: "qir.ll", Data: withT}})
	if quantum.ErrorCode(err) != quantum.EVALIDATION || !strings.Contains(err.Error(), "runs shot by shot on a state of all its 72 qubits (its qubit ids from 0 up, and those it allocates); a state vector within the memory budget holds 28, the sparse method 64, and the stabilizer runs Clifford programs only (it calls @__quantum__qis__t__body)") {
		t.Fatalf("an adaptive program with a t on qubit 71: %v", err)
	}
}
