package devices

import (
	"strings"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/sim"
)

// CompiledCacheForTest is the cache of compiled programs, with programs
// of a given number of operations and text length put and got by a name.
type CompiledCacheForTest struct{ c *compiledCache }

func NewCompiledCacheForTest() CompiledCacheForTest { return CompiledCacheForTest{newCompiledCache()} }

func testKey(name string, text int) compileKey {
	return compileKey{format: "qasm2", data: name + strings.Repeat(" ", text), limit: 28}
}

// Put keeps a program of ops operations under name (its text padded to
// text bytes), tagged so that Get can tell which one it got.
func (t CompiledCacheForTest) Put(name string, text, ops, tag int) {
	c := &sim.Circuit{Ops: make([]sim.Op, ops)}
	t.c.put(testKey(name, text), &program{circuit: c, numQubits: tag})
}

// Get returns the tag of the program kept under name, or -1.
func (t CompiledCacheForTest) Get(name string, text int) int {
	if p := t.c.get(testKey(name, text)); p != nil {
		return p.numQubits
	}
	return -1
}

// Size is how many programs, operations and bytes of text the cache holds.
func (t CompiledCacheForTest) Size() (programs, ops, text int) {
	return t.c.order.Len(), t.c.ops, t.c.text
}

const (
	CacheMaxOps  = cacheMaxOps
	CacheEntries = cacheEntries
	CacheOps     = cacheOps
	CacheText    = cacheTextBytes
)

// EmulatedQPUsForTest is the emulated QPUs of the default catalogue, and
// BuiltinDevicesForTest its simulators.
var (
	EmulatedQPUsForTest   = emulatedQPUs
	BuiltinDevicesForTest = simulators
)

// TopologyCouplingsForTest is the coupling map of a topology of n qubits
// alone (no calibration): nil when every pair is coupled.
func TopologyCouplingsForTest(t *qtype.Topology, n int) map[[2]int]bool {
	d := qtype.Device{NumberQubits: n, Topology: t}
	return d.Couplings()
}

// QPUMedians are the published medians an emulated QPU's calibration is
// drawn around: one-qubit gate (RB) error, two-qubit gate error, readout
// error.
type QPUMedians struct{ RB, TwoQubit, Readout float64 }

// QPUMediansForTest are the cited medians of each emulated QPU, by QRN.
var QPUMediansForTest = map[string]QPUMedians{
	"aws:ionq:qpu:aria-1":       {ariaRB, aria2Q, ariaReadout},
	"aws:iqm:qpu:garnet":        {garnetRB, garnet2Q, garnetReadout},
	"aws:rigetti:qpu:ankaa-3":   {ankaaRB, ankaa2Q, ankaaReadout},
	"aws:aqt:qpu:ibex-q1":       {ibexRB, ibex2Q, ibexReadout},
	"azure:quantinuum:qpu:h1-1": {h1RB, h12Q, h1Readout},
}
