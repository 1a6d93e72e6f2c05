package qtype

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// Topology is how a QPU's qubits are laid out. Its JSON is one of
// {"type": "fully-connected", "qubits": N}, {"type": "square-lattice",
// "rows": R, "cols": C} (qubit ids cols·row + col), or {"type":
// "square-lattice-clipped", "gridCols": N, "rowSpans": [[start, end], …]}
// (one span of populated columns per row, both ends included, ids
// numbered row by row).
type Topology struct {
	Type     string   `json:"type"`
	Qubits   int      `json:"qubits,omitempty"`
	Rows     int      `json:"rows,omitempty"`
	Cols     int      `json:"cols,omitempty"`
	GridCols int      `json:"gridCols,omitempty"`
	RowSpans [][2]int `json:"rowSpans,omitempty"`
}

// The topology types.
const (
	TopologyFullyConnected = "fully-connected"
	TopologySquareLattice  = "square-lattice"
	TopologyClipped        = "square-lattice-clipped"
)

// Calibration is what a QPU's calibration document says of its qubits and
// couplings (GET /api/v1/devices/{qrn}/calibrations).
type Calibration struct {
	LastCalibrated time.Time
	// Qubits maps a qubit's id to its errors.
	Qubits map[int]QubitCalibration
	// Edges are the couplings and their two-qubit gates' errors; their
	// union, direction ignored, is the device's coupling map.
	Edges []EdgeCalibration
}

// QubitCalibration is one qubit's errors: its one-qubit gate error by
// randomized benchmarking, and its readout error (nil when not measured).
type QubitCalibration struct {
	GateErrorRB  float64
	ReadoutError *float64
}

// EdgeCalibration is the error of one two-qubit gate on one coupling.
type EdgeCalibration struct {
	Gate           string // "cz", "ecr", "ms", …
	Source, Target int
	Value          float64
}

// couplings is the device's coupling map: the calibration's edges when it
// has them, else its topology's neighbours; nil when every pair is
// coupled (no topology, or a fully connected one without edges).
func (d *Device) Couplings() map[[2]int]bool {
	if !d.HasCouplings() {
		return nil
	}
	pair := func(a, b int) [2]int { return [2]int{min(a, b), max(a, b)} }
	if d.Calibration != nil && len(d.Calibration.Edges) > 0 {
		m := map[[2]int]bool{}
		for _, e := range d.Calibration.Edges {
			m[pair(e.Source, e.Target)] = true
		}
		return m
	}
	t := d.Topology
	if t == nil {
		return nil
	}
	m := map[[2]int]bool{}
	switch t.Type {
	case TopologySquareLattice:
		for r := range t.Rows {
			for c := range t.Cols {
				q := t.Cols*r + c
				if c+1 < t.Cols {
					m[pair(q, q+1)] = true
				}
				if r+1 < t.Rows {
					m[pair(q, q+t.Cols)] = true
				}
			}
		}
	case TopologyClipped:
		// ids row by row over the populated columns; a qubit's neighbours
		// are the next column in its row and the same column in the next
		// row, when populated.
		id := map[[2]int]int{}
		n := 0
		for r, s := range t.RowSpans {
			for c := s[0]; c <= s[1]; c++ {
				id[[2]int{r, c}] = n
				n++
			}
		}
		for rc, q := range id {
			if right, ok := id[[2]int{rc[0], rc[1] + 1}]; ok {
				m[pair(q, right)] = true
			}
			if down, ok := id[[2]int{rc[0] + 1, rc[1]}]; ok {
				m[pair(q, down)] = true
			}
		}
	}
	return m
}

// hasCouplings reports whether couplings is not nil, without building it:
// calibration edges, or a topology that does not couple every pair.
func (d *Device) HasCouplings() bool {
	if d.Calibration != nil && len(d.Calibration.Edges) > 0 {
		return true
	}
	return d.Topology != nil && (d.Topology.Type == TopologySquareLattice || d.Topology.Type == TopologyClipped)
}

// checkTopology validates a device's topology and calibration when it is
// registered.
func (d *Device) CheckTopology() error {
	if t := d.Topology; t != nil {
		switch t.Type {
		case TopologyFullyConnected:
			if t.Qubits != d.NumberQubits {
				return fmt.Errorf("topology: a fully-connected topology of %d qubits on a device of %d", t.Qubits, d.NumberQubits)
			}
		case TopologySquareLattice:
			if t.Rows < 1 || t.Cols < 1 || t.Rows*t.Cols != d.NumberQubits {
				return fmt.Errorf("topology: a square lattice of %d×%d on a device of %d qubits", t.Rows, t.Cols, d.NumberQubits)
			}
		case TopologyClipped:
			n := 0
			for r, s := range t.RowSpans {
				if s[0] < 0 || s[1] < s[0] || s[1] >= t.GridCols {
					return fmt.Errorf("topology: row %d spans columns %d to %d of a grid of %d", r, s[0], s[1], t.GridCols)
				}
				n += s[1] - s[0] + 1
			}
			if n != d.NumberQubits {
				return fmt.Errorf("topology: the row spans hold %d qubits on a device of %d", n, d.NumberQubits)
			}
		default:
			return fmt.Errorf("topology: type %q is not one of %s, %s, %s", t.Type, TopologyFullyConnected, TopologySquareLattice, TopologyClipped)
		}
	}
	if c := d.Calibration; c != nil {
		for q := range c.Qubits {
			if q < 0 || q >= d.NumberQubits {
				return fmt.Errorf("calibration: qubit %d is not one of the device's %d", q, d.NumberQubits)
			}
		}
		for _, e := range c.Edges {
			if e.Source < 0 || e.Source >= d.NumberQubits || e.Target < 0 || e.Target >= d.NumberQubits || e.Source == e.Target {
				return fmt.Errorf("calibration: edge %d-%d is not between two of the device's %d qubits", e.Source, e.Target, d.NumberQubits)
			}
		}
	}
	if d.MinShots < 0 || d.MaxShots > 0 && d.MinShots > d.MaxShots {
		return fmt.Errorf("minShots %d: must be between 0 and maxShots", d.MinShots)
	}
	return nil
}

// uncoupled returns the first pair of qubits of qubits that the device
// does not couple, ok false when every pair is coupled.
func Uncoupled(cm map[[2]int]bool, qubits []int) (a, b int, ok bool) {
	for i, x := range qubits {
		for _, y := range qubits[i+1:] {
			if !cm[[2]int{min(x, y), max(x, y)}] {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

// CalibrationDocument is a calibration as GET /devices/{qrn}/calibrations
// answers it.
type CalibrationDocument struct {
	DeviceQRNs     []string                   `json:"deviceQRNs"`
	Provider       string                     `json:"provider"`
	LastCalibrated string                     `json:"lastCalibrated"`
	FetchedAt      string                     `json:"fetchedAt"`
	Qubits         map[string]CalibratedQubit `json:"qubits"`
	Edges          CalibratedEdges            `json:"edges"`
}

// CalibratedQubit is a qubit's entry of a CalibrationDocument.
type CalibratedQubit struct {
	GateError    map[string]float64 `json:"gateError"`
	ReadoutError *float64           `json:"readoutError,omitempty"`
}

// CalibratedEdges is the edges of a CalibrationDocument, by gate.
type CalibratedEdges struct {
	GateError map[string][]CalibratedEdge `json:"gateError"`
}

// CalibratedEdge is one edge of a CalibrationDocument.
type CalibratedEdge struct {
	Source int     `json:"source"`
	Target int     `json:"target"`
	Value  float64 `json:"value"`
}

// document is the calibration as its route answers it.
func (c *Calibration) Document(d *Device, now time.Time) *CalibrationDocument {
	doc := &CalibrationDocument{
		DeviceQRNs: []string{d.QRN}, Provider: d.Provider,
		LastCalibrated: c.LastCalibrated.UTC().Format(TimestampLayout), FetchedAt: now.UTC().Format(TimestampLayout),
		Qubits: map[string]CalibratedQubit{}, Edges: CalibratedEdges{GateError: map[string][]CalibratedEdge{}},
	}
	for _, q := range slices.Sorted(maps.Keys(c.Qubits)) {
		qc := c.Qubits[q]
		doc.Qubits[strconv.Itoa(q)] = CalibratedQubit{GateError: map[string]float64{"rb": qc.GateErrorRB}, ReadoutError: ClonePtr(qc.ReadoutError)}
	}
	for _, e := range c.Edges {
		doc.Edges.GateError[e.Gate] = append(doc.Edges.GateError[e.Gate], CalibratedEdge{Source: e.Source, Target: e.Target, Value: e.Value})
	}
	return doc
}
