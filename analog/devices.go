package analog

import (
	"time"

	"github.com/qjobs/quantum/qtype"
)

// The analog devices of the default catalogue (decisions.md, "Devices").
const (
	AquilaQRN = "aws:quera:qpu:aquila"
	EmuTNQRN  = "azure:pasqal:sim:emu-tn"
)

// aquilaNoise is the name of Aquila's own noise model, its default.
const aquilaNoise = "Aquila"

// Devices are the analog devices, made at now: QuEra's Aquila as Amazon
// Braket offers it, emulated, and Pasqal's tensor-network emulator as
// Azure Quantum offers it, both simulated exactly on package rydberg.
func Devices(now time.Time) []qtype.Device {
	modality := "neutral atom"
	common := func(d qtype.Device) qtype.Device {
		d.Status = qtype.DeviceOnline
		d.Paradigm = "analog"
		d.Modality = &modality
		d.PricingModel = "fixed"
		d.DirectAccess = true
		d.Verified = true
		d.CreatedAt, d.UpdatedAt = now, now
		return d
	}
	return []qtype.Device{
		common(qtype.Device{
			Name: "Aquila", QRN: AquilaQRN, Vendor: "aws", Provider: "quera", DeviceType: qtype.DeviceQPU,
			RunInputTypes: []string{"braket_ahs"}, NumberQubits: aquilaSites,
			Description: "An emulation of QuEra's 256-site Aquila analog neutral-atom QPU as Amazon Braket offers it: " +
				"analog Hamiltonian simulation programs within Aquila's limits, evolved exactly on this service's own " +
				"Rydberg simulator, with Aquila's typical filling error and atom loss; priced as on Braket.",
			About:             "QuEra Aquila neutral atom analog QPU emulator, Braket AHS, Rydberg blockade, 256 qubits",
			NoiseModels:       []string{"ideal", aquilaNoise},
			Pricing:           qtype.Pricing{PerTask: 30, PerShot: 1},
			MinShots:          1,
			MaxShots:          1000,
			DefaultNoiseModel: aquilaNoise,
		}),
		common(qtype.Device{
			Name: "Emulator", QRN: EmuTNQRN, Vendor: "azure", Provider: "pasqal", DeviceType: qtype.DeviceSimulator,
			RunInputTypes: []string{"pulser"}, NumberQubits: 100,
			Description: "Pasqal's emulator as Azure Quantum offers it (its tensor-network EMU-TN): Pulser sequences " +
				"evolved exactly on this service's own Rydberg simulator, within the memory budget; 25 credits a minute.",
			About:   "Pasqal EMU-TN neutral atom emulator, Pulser sequences, Rydberg atoms, analog",
			Pricing: qtype.Pricing{PerMinute: 25},
		}),
	}
}
