package quantum_test

import (
	"context"
	"fmt"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/sim"
	"github.com/qjobs/quantum/store"
)

// A mock QPU of one's own, with a noise model of its own: a channel after
// the gates each rule matches (the first rule that matches a gate), and
// readout errors. Its jobs run with the model by default; metadata says
// which model and which simulation method.
func ExampleDevice_noise() {
	ctx := context.Background()
	st := store.NewMemory()
	defer st.Close()
	svc, err := quantum.New(st, quantum.WithBuiltinDevices(false))
	if err != nil {
		panic(err)
	}
	defer svc.Close(ctx)
	user, _ := svc.AddAPIKey("my-secret-key", "me")

	dep, _ := sim.Depolarizing(0.02)
	cz, _ := sim.TwoQubitDepolarizing(0.05)
	err = svc.RegisterDevice(quantum.Device{
		Name: "My QPU", QRN: "qbraid:qbraid:qpu:mine", Vendor: "qbraid", DeviceType: quantum.DeviceQPU,
		RunInputTypes: []string{"qasm3"}, NumberQubits: 6,
		Topology: &qtype.Topology{Type: qtype.TopologySquareLattice, Rows: 2, Cols: 3},
		Noise: map[string]*sim.NoiseModel{"noisy": {
			Rules:        []sim.NoiseRule{{Qubits: 2, Channel: cz}, {Channel: dep}},
			ReadoutError: map[int]float64{0: 0.03, 1: 0.05},
		}},
		DefaultNoiseModel: "noisy",
	}, svc.Simulator())
	if err != nil {
		panic(err)
	}
	dev, _ := svc.GetDevice(ctx, user, "qbraid:qbraid:qpu:mine")
	fmt.Println("noise models:", dev.NoiseModels)

	job, err := svc.CreateJob(ctx, user, quantum.JobRequest{
		DeviceQRN: dev.QRN, Shots: 1000, RuntimeOptions: map[string]any{"seed": 42},
		Program: &quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\ninclude \"stdgates.inc\";\n" +
			"qubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;\n"},
	})
	if err != nil {
		panic(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if job, err = svc.Wait(waitCtx, user, job.JobQRN); err != nil {
		panic(err)
	}
	res, _ := svc.GetJobResult(ctx, user, job.JobQRN)
	fmt.Println("model:", job.Metadata["noiseModel"], "method:", job.Metadata["method"])
	fmt.Println("counts:", res.ResultData.MeasurementCounts)
	// Output:
	// noise models: [ideal noisy]
	// model: noisy method: stabilizer
	// counts: map[00:451 01:65 10:60 11:424]
}
