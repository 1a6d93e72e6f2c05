package devices

import (
	"time"

	"github.com/qjobs/quantum/qtype"
)

// annealers are the annealing devices (decisions.md, "Devices"): NEC's
// Vector Annealer as the public service lists it, free and ONLINE here (the
// public one is often OFFLINE), running on package anneal. It counts
// variables, not qubits: NumberQubits 0, written as null.
func annealers(now time.Time) []qtype.Device {
	return []qtype.Device{{
		Name:     "NEC Vector Annealer",
		QRN:      "qbraid:nec:sim:vector-annealer",
		Vendor:   "qbraid",
		Provider: "nec",
		Description: "QUBO and Ising problems solved by simulated annealing in the manner of NEC's Vector Annealer, " +
			"running in-process on this service's own annealer: dwave-samplers' defaults (1,000 sweeps, a geometric β " +
			"schedule from the biases), up to 100,000 variables and 1,000,000 couplings, and an exact method that returns " +
			"every ground state of up to 30 variables.",
		About:         "simulated annealing, QUBO, Ising, combinatorial optimization",
		DeviceType:    qtype.DeviceSimulator,
		RunInputTypes: []string{"qubo"},
		Status:        qtype.DeviceOnline,
		Paradigm:      "annealing",
		PricingModel:  "fixed",
		DirectAccess:  true,
		Verified:      true,
		CreatedAt:     now,
		UpdatedAt:     now,
	}}
}
