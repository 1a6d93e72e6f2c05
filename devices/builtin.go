// Package devices is the catalogue of built-in devices: the simulators
// and the emulated QPUs, their noise models and calibrations, and the
// backend they run on (Simulator). A kind of device joins the catalogue as
// a Family: its devices and the backend that runs their jobs, listed by
// Builtin; the Service registers each, and its engine runs them as it runs
// any device, knowing nothing of the family.
package devices

import (
	"slices"
	"time"

	"github.com/qjobs/quantum/analog"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/sim"
)

// A Family is a kind of device: its devices, and the backend that runs
// their jobs.
type Family struct {
	Name    string
	Devices []qtype.Device
	Backend qtype.Backend
}

// Builtin returns the families of the default catalogue, made at now: the
// simulators and the emulated QPUs, running on sim; the annealers, on
// package anneal within sim's budget and work bound; and the analog
// devices (package analog), running on rydberg.
func Builtin(sim *Simulator, now time.Time) []Family {
	return []Family{
		{Name: "simulators", Devices: simulators(now), Backend: sim},
		{Name: "emulated QPUs", Devices: emulatedQPUs(now), Backend: sim},
		{Name: "annealers", Devices: annealers(now), Backend: NewAnnealer(sim.budget, sim.maxWork)},
		{Name: "analog devices", Devices: analog.Devices(now), Backend: analog.NewBackend(sim.budget, sim.maxWork)},
	}
}

// qvmQubits are the QVM's qubits (decisions.md: qubits 0 to 29).
const qvmQubits = 30

// simulators are the built-in simulators (decisions.md, "Devices").
func simulators(now time.Time) []qtype.Device {
	modality := "state_vector"
	qubits := 28 // a 28-qubit state is 4 GiB; the memory budget may allow fewer
	common := func(d qtype.Device) qtype.Device {
		d.DeviceType = qtype.DeviceSimulator
		d.RunInputTypes = []string{"qasm2", "qasm3", "qir.ll", "qir.bc", "pyqir"}
		d.Status = qtype.DeviceOnline
		d.NumberQubits = qubits
		d.Paradigm = "gate_model"
		d.Modality = &modality
		d.PricingModel = "fixed"
		d.DirectAccess = true
		d.BatchJobSupport = true
		d.NoiseModels = slices.Clone(SimulatorNoiseModels)
		d.Verified = true
		d.CreatedAt, d.UpdatedAt = now, now
		return d
	}
	// The flagship has the 64 qubits the public docs list: programs whose
	// state vector does not fit run on the sparse method (decisions.md).
	sparseModality := "sparse_simulator"
	sparse := func(d qtype.Device) qtype.Device {
		d.NumberQubits = sim.MaxSparseQubits
		d.Modality = &sparseModality
		return d
	}
	clifford := "stabilizer_simulator"
	return []qtype.Device{
		sparse(common(qtype.Device{
			Name: "QIR Simulator", QRN: "qbraid:qbraid:sim:qir-sv", Vendor: "qbraid", Provider: "qbraid",
			Description: "qBraid's free simulator, running in-process on this service's own simulator: a state vector " +
				"up to 28 qubits, a sparse state (nonzero amplitudes only) past it up to 64, exact amplitudes, seeded sampling.",
			About: "state vector and sparse simulator, OpenQASM 2 and 3, QIR (base and adaptive profiles)",
		})),
		common(qtype.Device{
			Name: "SV1", QRN: "aws:aws:sim:sv1", Vendor: "aws", Provider: "aws",
			Description: "A state-vector simulator priced like Amazon Braket's SV1 (7.5 credits per minute), " +
				"running in-process on this service's own simulator.",
			About:   "Amazon Braket state vector simulator",
			Pricing: qtype.Pricing{PerMinute: 7.5},
		}),
		func() qtype.Device {
			d := common(qtype.Device{
				Name: "Clifford Simulator", QRN: "qbraid:qbraid:sim:stabilizer", Vendor: "qbraid", Provider: "qbraid",
				Description: "A free Clifford simulator (ours), running in-process on this service's own stabilizer " +
					"tableau: up to 10,000 qubits, Clifford gates and Pauli noise only, a million shots in about a second.",
				About:  "stabilizer tableau simulator, Clifford circuits, error correction, randomized benchmarking",
				Method: "stabilizer",
			})
			d.NumberQubits = sim.MaxStabilizerQubits
			d.Modality = &clifford
			// The Pauli channels among the simulators' models.
			d.NoiseModels = []string{NoiseIdeal, "depolarizing", "phase_damping", "bit_flip", "phase_flip"}
			return d
		}(),
		func() qtype.Device {
			d := common(qtype.Device{
				Name: "IonQ Simulator", QRN: "ionq:ionq:sim:simulator", Vendor: "ionq", Provider: "ionq",
				Description: "A free ideal simulator in the manner of IonQ's cloud simulator, running in-process on " +
					"this service's own simulator; it takes IonQ's JSON circuits beside OpenQASM.",
				About: "IonQ ideal simulator, OpenQASM 2 and 3, QIR, IonQ JSON circuits (QIS and native gates)",
			})
			d.RunInputTypes = append(d.RunInputTypes, "ionq")
			return d
		}(),
		func() qtype.Device {
			d := common(qtype.Device{
				Name: "Quantum Virtual Machine", QRN: "azure:rigetti:sim:qvm", Vendor: "azure", Provider: "rigetti",
				Description: "A free simulator in the manner of Rigetti's Quantum Virtual Machine as Azure Quantum offers " +
					"it: Quil programs as pyquil writes them, running in-process on this service's own simulator.",
				About: "Rigetti QVM, Quil (pyquil), classical memory and control flow",
			})
			d.RunInputTypes = []string{"pyquil"}
			d.NumberQubits = qvmQubits
			return d
		}(),
	}
}
