package devices_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/devices"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
)

// The emulated QPUs: what each must be, and the native two-qubit gate its
// calibration's edges name.
var emulatedQPUCases = []struct {
	qrn, name, vendor, provider, gate, modality, topology string
	qubits                                                int
}{
	{"aws:ionq:qpu:aria-1", "Aria-1", "aws", "ionq", "ms", "trapped_ion", qtype.TopologyFullyConnected, 25},
	{"aws:iqm:qpu:garnet", "Garnet", "aws", "iqm", "cz", "superconducting", qtype.TopologyClipped, 20},
	{"aws:rigetti:qpu:ankaa-3", "Ankaa-3", "aws", "rigetti", "iswap", "superconducting", qtype.TopologySquareLattice, 84},
	{"aws:aqt:qpu:ibex-q1", "IBEX-Q1", "aws", "aqt", "ms", "trapped_ion", qtype.TopologyFullyConnected, 12},
	{"azure:quantinuum:qpu:h1-1", "H1-1", "azure", "quantinuum", "zz", "trapped_ion", qtype.TopologyFullyConnected, 20},
}

// emulatedQPU returns the emulated QPU of the given QRN.
func emulatedQPU(t *testing.T, qrn string) quantum.Device {
	t.Helper()
	for _, d := range devices.EmulatedQPUsForTest(time.Now()) {
		if d.QRN == qrn {
			return d
		}
	}
	t.Fatalf("no emulated QPU %s", qrn)
	return quantum.Device{}
}

// ownFormats are the formats an emulated QPU takes beside the
// simulators' (decisions.md, "Devices"): its vendor's own.
var ownFormats = map[string][]string{"Aria-1": {"ionq"}, "Ankaa-3": {"pyquil"}}

// Every emulated QPU is a QPU of the catalogue's conventions: a QRN of its
// vendor and provider, the simulators' input types (and its vendor's), its own noise model
// after "ideal", a calibration, and pricing of the public service's kind.
func TestEmulatedQPUsAreQPUs(t *testing.T) {
	qpus := devices.EmulatedQPUsForTest(time.Now())
	if len(qpus) != len(emulatedQPUCases) {
		t.Fatalf("%d emulated QPUs, want %d", len(qpus), len(emulatedQPUCases))
	}
	sim := devices.BuiltinDevicesForTest(time.Now())[0]
	for _, tc := range emulatedQPUCases {
		t.Run(tc.name, func(t *testing.T) {
			d := emulatedQPU(t, tc.qrn)
			if want := tc.vendor + ":" + tc.provider + ":qpu:"; !strings.HasPrefix(d.QRN, want) {
				t.Errorf("QRN %s, want it to start %s", d.QRN, want)
			}
			if !slices.Contains(qtype.Vendors, d.Vendor) {
				t.Errorf("vendor %q is not one of %v", d.Vendor, qtype.Vendors)
			}
			for _, c := range []struct {
				field     string
				got, want any
			}{
				{"name", d.Name, tc.name},
				{"vendor", d.Vendor, tc.vendor},
				{"provider", d.Provider, tc.provider},
				{"deviceType", d.DeviceType, quantum.DeviceQPU},
				{"status", d.Status, quantum.DeviceOnline},
				{"paradigm", d.Paradigm, "gate_model"},
				{"modality", *d.Modality, tc.modality},
				{"numberQubits", d.NumberQubits, tc.qubits},
				{"topology", d.Topology.Type, tc.topology},
				{"runInputTypes", d.RunInputTypes, append(slices.Clone(sim.RunInputTypes), ownFormats[tc.name]...)},
				{"noiseModels", d.NoiseModels, []string{"ideal", tc.name}},
				{"pricingModel", d.PricingModel, "fixed"},
				{"directAccess", d.DirectAccess, true},
				{"verified", d.Verified, true},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s = %v, want %v", c.field, c.got, c.want)
				}
			}
			if d.Description == "" || d.About == "" {
				t.Errorf("description %q, about %q: both are required", d.Description, d.About)
			}
			if d.MinShots < 1 || d.MaxShots < d.MinShots {
				t.Errorf("shots [%d, %d], want 1 ≤ minShots ≤ maxShots", d.MinShots, d.MaxShots)
			}
			if p := d.Pricing; p.PerTask <= 0 || p.PerShot <= 0 || p.PerMinute != 0 {
				t.Errorf("pricing %+v, want a task and a shot price and none by the minute", p)
			}
			if d.MinRunTime < 0 || d.MinRunTime > time.Second {
				t.Errorf("minRunTime %v, want a small one", d.MinRunTime)
			}
			if c := d.Calibration; c == nil || c.LastCalibrated.IsZero() {
				t.Errorf("calibration %+v, want one with its date", c)
			}
		})
	}
}

// The default catalogue, every family of it, stays within a page of 20
// with no QRN twice, so that a client that never pages sees all of it.
func TestEmulatedQPUsCatalogSize(t *testing.T) {
	var all []qtype.Device
	for _, f := range devices.Builtin(devices.NewSimulator(1<<30, 1), time.Now()) {
		all = append(all, f.Devices...)
	}
	if len(all) > 20 {
		t.Errorf("%d built-in devices, want at most 20", len(all))
	}
	seen := map[string]bool{}
	for _, d := range all {
		if seen[d.QRN] {
			t.Errorf("QRN %s twice", d.QRN)
		}
		seen[d.QRN] = true
		if err := qtype.CheckDeviceQRN(d.QRN); err != nil {
			t.Errorf("QRN %s: %v", d.QRN, err)
		}
	}
}

// A calibration has an entry for every qubit, an edge of the native gate
// for every coupling of the topology and none other, and every value
// within the range of the channel the noise model makes of it.
func TestEmulatedQPUCalibrationsCoverTheTopology(t *testing.T) {
	for _, tc := range emulatedQPUCases {
		t.Run(tc.name, func(t *testing.T) {
			d := emulatedQPU(t, tc.qrn)
			c := d.Calibration
			for q := range d.NumberQubits {
				qc, ok := c.Qubits[q]
				switch {
				case !ok:
					t.Errorf("qubit %d has no calibration", q)
				case qc.GateErrorRB <= 0 || qc.GateErrorRB > 0.75:
					t.Errorf("qubit %d: rb %v, want it in (0, 3/4]", q, qc.GateErrorRB)
				case qc.ReadoutError == nil || *qc.ReadoutError <= 0 || *qc.ReadoutError > 1:
					t.Errorf("qubit %d: readout error %v, want one in (0, 1]", q, qc.ReadoutError)
				}
			}
			if len(c.Qubits) != d.NumberQubits {
				t.Errorf("%d qubits calibrated, want %d", len(c.Qubits), d.NumberQubits)
			}
			coupled := devices.TopologyCouplingsForTest(d.Topology, d.NumberQubits)
			if coupled == nil { // fully connected: every pair
				coupled = map[[2]int]bool{}
				for a := range d.NumberQubits {
					for b := a + 1; b < d.NumberQubits; b++ {
						coupled[[2]int{a, b}] = true
					}
				}
			}
			edges := map[[2]int]bool{}
			for _, e := range c.Edges {
				p := [2]int{min(e.Source, e.Target), max(e.Source, e.Target)}
				switch {
				case e.Gate != tc.gate:
					t.Errorf("edge %v: gate %q, want %q", p, e.Gate, tc.gate)
				case !coupled[p]:
					t.Errorf("edge %v joins qubits the topology does not couple", p)
				case edges[p]:
					t.Errorf("edge %v twice", p)
				case e.Value <= 0 || e.Value > 15.0/16:
					t.Errorf("edge %v: error %v, want it in (0, 15/16]", p, e.Value)
				}
				edges[p] = true
			}
			for p := range coupled {
				if !edges[p] {
					t.Errorf("coupling %v has no edge", p)
				}
			}
		})
	}
}

// The topologies are the machines' own: Garnet's rows hold 2, 5, 5, 5 and
// 3 qubits with 30 couplings, Ankaa-3 is a 7×12 lattice with 149.
func TestEmulatedQPUTopologies(t *testing.T) {
	for _, tc := range []struct {
		qrn       string
		couplings int
	}{
		{"aws:iqm:qpu:garnet", 30},
		{"aws:rigetti:qpu:ankaa-3", 7*11 + 6*12},
		{"aws:ionq:qpu:aria-1", 25 * 24 / 2},
		{"aws:aqt:qpu:ibex-q1", 12 * 11 / 2},
		{"azure:quantinuum:qpu:h1-1", 20 * 19 / 2},
	} {
		t.Run(tc.qrn, func(t *testing.T) {
			d := emulatedQPU(t, tc.qrn)
			if got := len(d.Calibration.Edges); got != tc.couplings {
				t.Errorf("%d edges, want %d", got, tc.couplings)
			}
		})
	}
}

// median is the median of vs.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// The synthetic values vary from qubit to qubit and pair to pair, around
// the published medians: their medians are within a factor of 1.5 of the
// cited ones.
func TestEmulatedQPUMediansFollowTheSources(t *testing.T) {
	for _, tc := range emulatedQPUCases {
		t.Run(tc.name, func(t *testing.T) {
			want, ok := devices.QPUMediansForTest[tc.qrn]
			if !ok {
				t.Fatalf("no cited medians for %s", tc.qrn)
			}
			c := emulatedQPU(t, tc.qrn).Calibration
			var rb, ro, two []float64
			for _, q := range c.Qubits {
				rb = append(rb, q.GateErrorRB)
				ro = append(ro, *q.ReadoutError)
			}
			for _, e := range c.Edges {
				two = append(two, e.Value)
			}
			for _, m := range []struct {
				what   string
				values []float64
				cited  float64
			}{
				{"one-qubit rb error", rb, want.RB},
				{"two-qubit gate error", two, want.TwoQubit},
				{"readout error", ro, want.Readout},
			} {
				got := median(m.values)
				if r := got / m.cited; r < 1/1.5 || r > 1.5 {
					t.Errorf("median %s %.3g, cited %.3g: off by a factor of %.2f", m.what, got, m.cited, r)
				}
				if slices.Min(m.values) == slices.Max(m.values) {
					t.Errorf("every %s is %v: want them to vary as a calibration's do", m.what, m.values[0])
				}
			}
		})
	}
}

// The catalogue is the same at every start: the calibrations are drawn
// from fixed seeds.
func TestEmulatedQPUsAreDeterministic(t *testing.T) {
	a := devices.EmulatedQPUsForTest(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b := devices.EmulatedQPUsForTest(time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC))
	for i := range a {
		if !reflect.DeepEqual(a[i].Calibration, b[i].Calibration) {
			t.Errorf("%s: two calls made two calibrations", a[i].QRN)
		}
		if !reflect.DeepEqual(a[i].Topology, b[i].Topology) || a[i].Pricing != b[i].Pricing {
			t.Errorf("%s: two calls made two devices", a[i].QRN)
		}
	}
}

// Each emulated QPU registers on the Service's simulator, serves a
// calibration document that parses, runs a program on coupled qubits and
// refuses one on qubits it does not couple.
func TestEmulatedQPUsRegisterAndServeCalibrations(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithBuiltinDevices(false))
	ctx := context.Background()
	for _, tc := range emulatedQPUCases {
		t.Run(tc.name, func(t *testing.T) {
			d := emulatedQPU(t, tc.qrn)
			if err := svc.RegisterDevice(d, svc.Simulator()); err != nil {
				t.Fatalf("RegisterDevice: %v", err)
			}
			doc, err := svc.GetDeviceCalibrations(ctx, u, d.QRN)
			if err != nil {
				t.Fatalf("GetDeviceCalibrations: %v", err)
			}
			raw, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			var back struct {
				DeviceQRNs     []string `json:"deviceQRNs"`
				Provider       string   `json:"provider"`
				LastCalibrated string   `json:"lastCalibrated"`
				Qubits         map[string]struct {
					GateError    map[string]float64 `json:"gateError"`
					ReadoutError *float64           `json:"readoutError"`
				} `json:"qubits"`
				Edges struct {
					GateError map[string][]struct {
						Source, Target int
						Value          float64
					} `json:"gateError"`
				} `json:"edges"`
			}
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatalf("the calibration document does not parse: %v\n%s", err, raw)
			}
			if !slices.Equal(back.DeviceQRNs, []string{d.QRN}) || back.Provider != tc.provider {
				t.Errorf("deviceQRNs %v, provider %q, want [%s] and %q", back.DeviceQRNs, back.Provider, d.QRN, tc.provider)
			}
			if _, err := time.Parse(time.RFC3339, back.LastCalibrated); err != nil {
				t.Errorf("lastCalibrated %q: %v", back.LastCalibrated, err)
			}
			if len(back.Qubits) != d.NumberQubits {
				t.Errorf("%d qubits in the document, want %d", len(back.Qubits), d.NumberQubits)
			}
			for id, q := range back.Qubits {
				if n, err := strconv.Atoi(id); err != nil || n < 0 || n >= d.NumberQubits {
					t.Errorf("qubit key %q is not a qubit id", id)
				}
				if _, ok := q.GateError["rb"]; !ok || q.ReadoutError == nil {
					t.Errorf("qubit %s: %+v, want an rb error and a readout error", id, q)
				}
			}
			if gates := slices.Sorted(maps.Keys(back.Edges.GateError)); !slices.Equal(gates, []string{tc.gate}) {
				t.Errorf("edge gates %v, want [%s]", gates, tc.gate)
			}
			if n := len(back.Edges.GateError[tc.gate]); n != len(d.Calibration.Edges) {
				t.Errorf("%d edges in the document, want %d", n, len(d.Calibration.Edges))
			}

			a, b := firstEdge(d)
			j, err := svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: d.QRN, Shots: d.MinShots,
				Program: &quantum.Program{Format: "qasm3", Data: bellOn(d.NumberQubits, a, b)}})
			if err != nil {
				t.Fatalf("a Bell pair on coupled qubits %d and %d: %v", a, b, err)
			}
			if done := quantumtest.WaitForJob(t, svc, u, j.JobQRN); done.Status != quantum.StatusCompleted {
				t.Errorf("a Bell pair on qubits %d and %d: %s, want COMPLETED", a, b, done.Status)
			}
			if a, b, ok := uncoupledPair(d); ok {
				_, err := svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: d.QRN, Shots: d.MinShots,
					Program: &quantum.Program{Format: "qasm3", Data: bellOn(d.NumberQubits, a, b)}})
				if err == nil || !strings.Contains(err.Error(), "not coupled") {
					t.Errorf("a Bell pair on uncoupled qubits %d and %d: %v, want a refusal", a, b, err)
				}
			}
		})
	}
}

// firstEdge is a pair of qubits d couples.
func firstEdge(d quantum.Device) (a, b int) {
	e := d.Calibration.Edges[0]
	return e.Source, e.Target
}

// uncoupledPair is a pair of qubits d does not couple, ok false when it
// couples every pair.
func uncoupledPair(d quantum.Device) (a, b int, ok bool) {
	coupled := map[[2]int]bool{}
	for _, e := range d.Calibration.Edges {
		coupled[[2]int{min(e.Source, e.Target), max(e.Source, e.Target)}] = true
	}
	var pairs [][2]int
	for a := range d.NumberQubits {
		for b := a + 1; b < d.NumberQubits; b++ {
			if !coupled[[2]int{a, b}] {
				pairs = append(pairs, [2]int{a, b})
			}
		}
	}
	if len(pairs) == 0 {
		return 0, 0, false
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][1]-pairs[i][0] < pairs[j][1]-pairs[j][0] })
	return pairs[0][0], pairs[0][1], true
}

// bellOn is an OpenQASM 3 program on n qubits that entangles qubits a and
// b and measures them.
func bellOn(n, a, b int) string {
	return fmt.Sprintf("OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[%d] q;\nbit[2] c;\nh q[%d];\ncx q[%d], q[%d];\nc[0] = measure q[%d];\nc[1] = measure q[%d];\n",
		n, a, a, b, a, b)
}

// The values are rounded, as a calibration document's are, and none is
// NaN or infinite.
func TestEmulatedQPUCalibrationValuesAreFinite(t *testing.T) {
	for _, d := range devices.EmulatedQPUsForTest(time.Now()) {
		for q, qc := range d.Calibration.Qubits {
			for _, v := range []float64{qc.GateErrorRB, *qc.ReadoutError} {
				if math.IsNaN(v) || math.IsInf(v, 0) || strconv.FormatFloat(v, 'g', -1, 64) != strconv.FormatFloat(v, 'g', 3, 64) {
					t.Errorf("%s qubit %d: %v is not a 3-digit value", d.QRN, q, v)
				}
			}
		}
	}
}
