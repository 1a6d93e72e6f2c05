package devices

import (
	"cmp"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/qjobs/quantum/qtype"
)

// The emulated QPUs (decisions.md "QPU devices", ours): devices of the
// layout, pricing and error rates of real machines, run on this service's
// own simulator. Each one's published figures are named constants next to
// their source; docs/devices.md lists the sources with their dates and
// says which figures are ours. The per-qubit and per-coupling values of a
// calibration are synthetic: drawn, from a fixed seed, around the
// published medians (see calibrate), so that they vary as a real
// calibration's do and stay the same from run to run.

// IonQ Aria-1, trapped ions, every pair coupled. Source: Microsoft Azure
// Quantum documentation, "IonQ provider" (ms.date 2025-09-17),
// https://learn.microsoft.com/azure/quantum/provider-ionq, "System
// fidelity": single-qubit gate 99.95% (SPAM corrected), two-qubit gate
// 99.6% (not SPAM corrected), SPAM 99.61%. These are averages; we use
// them as medians. Price: Amazon Braket's, $0.30 a task and $0.03 a shot
// (https://aws.amazon.com/braket/pricing/). At most 10,000 shots a job, as
// a third-party IonQ price estimator states; the minimum of 1 is ours.
const (
	ariaQubits  = 25
	ariaRB      = 1 - 0.9995 // one-qubit gate error
	aria2Q      = 1 - 0.996  // two-qubit (MS) gate error
	ariaReadout = 1 - 0.9961 // SPAM error, taken as readout error
)

// IQM Garnet, superconducting, 20 qubits on a square lattice with its
// corners cut. Sources: IQM's 20-qubit benchmark announcement (reported
// 2024-02-23): median two-qubit gate fidelity 99.51% over its 30 pairs;
// IQM's own model of Garnet in Qiskit on IQM
// (https://github.com/iqm-finland/qiskit-on-iqm,
// src/iqm/qiskit_iqm/fake_backends/fake_garnet.py): median one-qubit
// (prx) depolarizing error 0.0010 and median readout error 0.025 over its
// 20 qubits, and its 30 couplings, which rowSpans below reproduce. Price:
// Amazon Braket's, $0.30 a task and $0.00145 a shot.
const (
	garnetQubits  = 20
	garnetRB      = 0.0010
	garnet2Q      = 1 - 0.9951 // CZ
	garnetReadout = 0.025
)

// Rigetti Ankaa-3, superconducting, 84 qubits (Azure Quantum's Rigetti
// provider page lists 84) on a square lattice. The 7×12 arrangement, the
// one-qubit and readout medians are ours, of the order Rigetti reports for
// its Ankaa systems, not checked against a stored source; the two-qubit
// median is the 99.0% median iSWAP fidelity of Rigetti's Ankaa-3 launch
// announcement (2024-12-23), likewise not checked. Price: Amazon Braket's,
// $0.30 a task and $0.0009 a shot. The shot range is ours.
const (
	ankaaRows    = 7
	ankaaCols    = 12
	ankaaRB      = 0.001     // ours
	ankaa2Q      = 1 - 0.990 // iSWAP
	ankaaReadout = 0.04      // ours
)

// AQT IBEX-Q1, trapped ions, every pair coupled. Source: Scaleway's
// documentation of AQT's QPUs (scaleway/docs-content, pull request 5902,
// pages/quantum-computing/additional-content/aqt-qpus.mdx): 12 qubits,
// all-to-all, average fidelities 99.97% (one-qubit) and 98.7% (two-qubit).
// The readout median is ours, of the order of trapped-ion SPAM errors,
// as are the shot range and the calibration date.
// Price: qBraid's documented estimate for aws:aqt:qpu:ibex-q1, 2,380
// credits for 1,000 shots, that is 30 credits a task and 2.35 a shot.
const (
	ibexQubits  = 12
	ibexRB      = 1 - 0.9997
	ibex2Q      = 1 - 0.987 // MS
	ibexReadout = 0.004     // ours
)

// Quantinuum H1-1, trapped ions moved into gate zones, every pair coupled.
// Source: Quantinuum's hardware specification data
// (https://github.com/CQCL/quantinuum-hardware-specifications,
// notebooks/Spec sheet parameters.csv), H1-1 on 2024-04-10: 1Q error
// 2.4e-5, 2Q error 9.3e-4, SPAM error 2.5e-3; 20 qubits (Azure Quantum's
// Quantinuum provider page until mid-2025). Azure prices Quantinuum in
// HQCs (5 + shots·(N1q + 10·N2q + 5·Nm)/5000 per job) by subscription,
// USD 125,000 a month for 10,000 HQCs, so USD 12.50 an HQC; our fixed
// price, which cannot follow a circuit, is ours: the 5-HQC base as the
// task (6,250 credits) and, a shot, the HQCs of a shot of 20 one-qubit
// gates, 10 two-qubit gates and 20 measurements, 0.044 HQC (55 credits).
// The shot range is ours.
const (
	h1Qubits  = 20
	h1RB      = 2.4e-5
	h12Q      = 9.3e-4 // ZZ
	h1Readout = 2.5e-3
)

// emulatedQPUMinRunTime is the least a job takes on an emulated QPU
// (ours): none, so that tests stay fast; a deployment may set more.
const emulatedQPUMinRunTime = 0 * time.Millisecond

// qpuSpec is what calibrate needs to make a device's calibration.
type qpuSpec struct {
	seed                                uint64
	gate                                string  // the native two-qubit gate's name
	rb, twoQ, readout                   float64 // published medians
	rbSpread, twoQSpread, readoutSpread float64 // log-normal σ of the synthetic values (ours)
	calibrated                          time.Time
}

// emulatedQPUs are the emulated QPUs of the default catalogue, all ONLINE,
// with calibrations the noise model named after each device is built from.
func emulatedQPUs(now time.Time) []qtype.Device {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	trappedIon, superconducting := "trapped_ion", "superconducting"
	qpu := func(d qtype.Device, modality *string, s qpuSpec) qtype.Device {
		d.DeviceType = qtype.DeviceQPU
		d.RunInputTypes = []string{"qasm2", "qasm3", "qir.ll", "qir.bc", "pyqir"}
		d.Status = qtype.DeviceOnline
		d.Paradigm = "gate_model"
		d.Modality = modality
		d.NoiseModels = []string{"ideal", d.Name}
		d.PricingModel = "fixed"
		d.DirectAccess = true
		d.BatchJobSupport = true
		d.Verified = true
		d.MinRunTime = emulatedQPUMinRunTime
		d.CreatedAt, d.UpdatedAt = now, now
		d.Calibration = calibrate(&d, s)
		return d
	}
	takes := func(d qtype.Device, format string) qtype.Device {
		d.RunInputTypes = append(d.RunInputTypes, format)
		return d
	}
	return []qtype.Device{
		takes(qpu(qtype.Device{
			Name: "Aria-1", QRN: "aws:ionq:qpu:aria-1", Vendor: "aws", Provider: "ionq",
			Description: "An emulation of IonQ's 25-qubit Aria-1 trapped-ion QPU as Amazon Braket offered it: every " +
				"pair of qubits coupled, error rates of the order IonQ publishes, priced as on Braket.",
			About:        "IonQ Aria trapped ion QPU emulator, all-to-all connectivity, Molmer-Sorensen gate",
			NumberQubits: ariaQubits,
			Topology:     &qtype.Topology{Type: qtype.TopologyFullyConnected, Qubits: ariaQubits},
			MinShots:     1, MaxShots: 10_000,
			Pricing: qtype.Pricing{PerTask: 30, PerShot: 3},
		}, &trappedIon, qpuSpec{
			seed: 0xa51a, gate: "ms", rb: ariaRB, twoQ: aria2Q, readout: ariaReadout,
			rbSpread: 0.25, twoQSpread: 0.3, readoutSpread: 0.2, calibrated: day(2025, time.September, 17),
		}), "ionq"),
		qpu(qtype.Device{
			Name: "Garnet", QRN: "aws:iqm:qpu:garnet", Vendor: "aws", Provider: "iqm",
			Description: "An emulation of IQM's 20-qubit Garnet superconducting QPU as Amazon Braket offers it: " +
				"nearest-neighbour CZ couplings on a square lattice with its corners cut, priced as on Braket.",
			About:        "IQM Garnet superconducting transmon QPU emulator, square lattice, CZ gate",
			NumberQubits: garnetQubits,
			Topology: &qtype.Topology{Type: qtype.TopologyClipped, GridCols: 5,
				RowSpans: [][2]int{{1, 2}, {0, 4}, {0, 4}, {0, 4}, {1, 3}}},
			MinShots: 1, MaxShots: 20_000,
			Pricing: qtype.Pricing{PerTask: 30, PerShot: 0.145},
		}, &superconducting, qpuSpec{
			seed: 0x6a27e7, gate: "cz", rb: garnetRB, twoQ: garnet2Q, readout: garnetReadout,
			rbSpread: 0.5, twoQSpread: 0.35, readoutSpread: 0.1, calibrated: day(2024, time.February, 23),
		}),
		takes(qpu(qtype.Device{
			Name: "Ankaa-3", QRN: "aws:rigetti:qpu:ankaa-3", Vendor: "aws", Provider: "rigetti",
			Description: "An emulation of Rigetti's 84-qubit Ankaa-3 superconducting QPU as Amazon Braket offers it: " +
				"nearest-neighbour iSWAP couplings on a 7×12 square lattice, priced as on Braket.",
			About:        "Rigetti Ankaa superconducting QPU emulator, square lattice, iSWAP gate",
			NumberQubits: ankaaRows * ankaaCols,
			Topology:     &qtype.Topology{Type: qtype.TopologySquareLattice, Rows: ankaaRows, Cols: ankaaCols},
			MinShots:     10, MaxShots: 100_000,
			Pricing: qtype.Pricing{PerTask: 30, PerShot: 0.09},
		}, &superconducting, qpuSpec{
			seed: 0xa4aa3, gate: "iswap", rb: ankaaRB, twoQ: ankaa2Q, readout: ankaaReadout,
			rbSpread: 0.5, twoQSpread: 0.4, readoutSpread: 0.3, calibrated: day(2024, time.December, 23),
		}), "pyquil"),
		qpu(qtype.Device{
			Name: "IBEX-Q1", QRN: "aws:aqt:qpu:ibex-q1", Vendor: "aws", Provider: "aqt",
			Description: "An emulation of AQT's 12-qubit IBEX-Q1 trapped-ion QPU as Amazon Braket offers it: every " +
				"pair of qubits coupled, error rates of the order AQT publishes, priced as on qBraid.",
			About:        "AQT IBEX trapped ion QPU emulator, all-to-all connectivity, Molmer-Sorensen gate",
			NumberQubits: ibexQubits,
			Topology:     &qtype.Topology{Type: qtype.TopologyFullyConnected, Qubits: ibexQubits},
			MinShots:     1, MaxShots: 2_000, // ours, as is lastCalibrated below
			Pricing: qtype.Pricing{PerTask: 30, PerShot: 2.35},
		}, &trappedIon, qpuSpec{
			seed: 0x1bec, gate: "ms", rb: ibexRB, twoQ: ibex2Q, readout: ibexReadout,
			rbSpread: 0.25, twoQSpread: 0.25, readoutSpread: 0.2, calibrated: day(2025, time.November, 1),
		}),
		qpu(qtype.Device{
			Name: "H1-1", QRN: "azure:quantinuum:qpu:h1-1", Vendor: "azure", Provider: "quantinuum",
			Description: "An emulation of Quantinuum's 20-qubit H1-1 trapped-ion QPU as Azure Quantum offered it: " +
				"every pair of qubits coupled, error rates of Quantinuum's published specification.",
			About:        "Quantinuum System Model H1 trapped ion QPU emulator, QCCD, all-to-all connectivity, ZZ gate",
			NumberQubits: h1Qubits,
			Topology:     &qtype.Topology{Type: qtype.TopologyFullyConnected, Qubits: h1Qubits},
			MinShots:     1, MaxShots: 10_000,
			Pricing: qtype.Pricing{PerTask: 6250, PerShot: 55},
		}, &trappedIon, qpuSpec{
			seed: 0x41, gate: "zz", rb: h1RB, twoQ: h12Q, readout: h1Readout,
			rbSpread: 0.1, twoQSpread: 0.1, readoutSpread: 0.1, calibrated: day(2024, time.April, 10),
		}),
	}
}

// The largest values a synthetic calibration holds, within the ranges of
// the channels the noise model applies: depolarizing ≤ 3/4,
// two_qubit_depolarizing ≤ 15/16, and a readout flip ≤ 1/2 (a larger one
// would mean a relabelled, not a worse, readout).
const (
	maxCalibratedRB      = 0.75
	maxCalibrated2Q      = 15.0 / 16
	maxCalibratedReadout = 0.5
)

// calibrate draws d's calibration around s's medians: each value is the
// median times e^(σ·z), z standard normal from a PCG seeded with s.seed,
// kept within a factor of 5 of the median and the channel ranges, and
// rounded to 3 significant digits. Qubits are drawn in order (rb, then
// readout), then the couplings in ascending order, every pair for a fully
// connected device: the same device always gets the same calibration.
func calibrate(d *qtype.Device, s qpuSpec) *qtype.Calibration {
	r := rand.New(rand.NewPCG(s.seed, s.seed^0x9e3779b97f4a7c15))
	draw := func(median, sigma, ceiling float64) float64 {
		v := median * math.Exp(sigma*r.NormFloat64())
		v = min(max(v, median/5), median*5, ceiling)
		return roundSignificant(v, 3)
	}
	c := &qtype.Calibration{LastCalibrated: s.calibrated, Qubits: make(map[int]qtype.QubitCalibration, d.NumberQubits)}
	for q := range d.NumberQubits {
		rb := draw(s.rb, s.rbSpread, maxCalibratedRB)
		ro := draw(s.readout, s.readoutSpread, maxCalibratedReadout)
		c.Qubits[q] = qtype.QubitCalibration{GateErrorRB: rb, ReadoutError: &ro}
	}
	for _, p := range topologyPairs(d) {
		c.Edges = append(c.Edges, qtype.EdgeCalibration{Gate: s.gate, Source: p[0], Target: p[1],
			Value: draw(s.twoQ, s.twoQSpread, maxCalibrated2Q)})
	}
	return c
}

// topologyPairs are the pairs of qubits d's topology couples, lower id
// first, in ascending order: every pair when it is fully connected.
func topologyPairs(d *qtype.Device) [][2]int {
	var pairs [][2]int
	if d.Topology != nil && d.Topology.Type == qtype.TopologyFullyConnected {
		for a := range d.NumberQubits {
			for b := a + 1; b < d.NumberQubits; b++ {
				pairs = append(pairs, [2]int{a, b})
			}
		}
		return pairs
	}
	bare := qtype.Device{NumberQubits: d.NumberQubits, Topology: d.Topology} // no calibration: the topology's neighbours
	return slices.SortedFunc(maps.Keys(bare.Couplings()), func(x, y [2]int) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
}

// roundSignificant rounds v to n significant digits.
func roundSignificant(v float64, n int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	if err != nil {
		return v
	}
	return r
}
