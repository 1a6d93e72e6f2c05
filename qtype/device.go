package qtype

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/qjobs/quantum/sim"
)

// Device is a device as the API shows it. Marshalled to JSON it is the wire
// object of the contract; Description is left out of list items.
// NumberQubits 0 is a device that does not count qubits (an annealer
// counts variables): numberQubits null.
type Device struct {
	Name          string   `json:"name"`
	QRN           string   `json:"qrn"`
	Vendor        string   `json:"vendor"`
	DeviceType    string   `json:"deviceType"`
	RunInputTypes []string `json:"runInputTypes"`
	Status        string   `json:"status"`
	StatusMsg     *string  `json:"statusMsg"`
	NextAvailable *string  `json:"nextAvailable"`
	QueueDepth    int      `json:"queueDepth"`
	AvgQueueTime  *int     `json:"avgQueueTime"`
	NumberQubits  int      `json:"numberQubits"`
	Paradigm      string   `json:"paradigm"`
	Modality      *string  `json:"modality"`
	// NoiseModels are the names runtimeOptions.noiseModel may take, nil
	// for a device without noise models (then a job that names one is
	// refused). "ideal" is no noise; the others are Noise's, or the
	// built-in simulators' (SimulatorNoiseModels).
	NoiseModels []string `json:"noiseModels"`
	// Precisions are the values runtimeOptions.precision may take, the
	// default first, so that a client can offer them; nil (and absent from
	// the JSON) for a device whose backend reads no precision.
	// RegisterDevice gives a device on the built-in simulator
	// SimulatorPrecisions.
	Precisions   []string `json:"precisions,omitempty"`
	PricingModel string   `json:"pricingModel"`
	Pricing      Pricing  `json:"pricing"`
	DirectAccess bool     `json:"directAccess"`
	// BatchJobSupport says whether the device takes batch jobs
	// (JobRequest.Batch).
	BatchJobSupport bool     `json:"batchJobSupport"`
	Description     string   `json:"description,omitempty"`
	Provider        string   `json:"-"` // provider name and ID
	About           string   `json:"-"` // searched with name and description
	Private         bool     `json:"-"` // private devices are visible only to AllowedUsers
	AllowedUsers    []string `json:"-"` // user IDs that may use a private device
	Verified        bool     `json:"-"`
	MaxShots        int      `json:"maxShots,omitempty"` // 0 means DefaultMaxShots
	// MinShots, when above 0, is the fewest shots a job may ask for.
	MinShots int `json:"minShots,omitempty"`
	// Topology says how a QPU's qubits are laid out, Calibration how good
	// they and their couplings are: a device with either refuses programs
	// whose gates join qubits it does not couple (qpu.go).
	Topology *Topology `json:"topology,omitempty"`
	// A QPU with a Calibration and neither NoiseModels nor Noise gets its
	// calibration's noise model, named as the device, as its default
	// (decisions.md, "QPU devices").
	Calibration *Calibration `json:"-"`
	// Noise defines the device's own noise models by name: a test suite's
	// mock QPU. A model is shared, not copied, and must not change once the
	// device is registered. Names not in NoiseModels are added to it.
	Noise map[string]*sim.NoiseModel `json:"-"`
	// DefaultNoiseModel is the model of a job that names none; "" is ideal.
	DefaultNoiseModel string `json:"-"`
	// Method, when not "", is the one simulation method the device runs
	// (a runtimeOptions.method name, e.g. "stabilizer" for a Clifford
	// simulator): a program that method cannot run is refused at create
	// on program.data, saying why, and a job may ask for no other method.
	Method string `json:"-"`
	// MinRunTime is the least a job takes on the device, as a QPU's
	// shortest task does (its cancel still stops it at once): a job that
	// ran faster is held until then. Its cost counts the time held.
	MinRunTime time.Duration `json:"-"`
	CreatedAt  time.Time     `json:"-"`
	UpdatedAt  time.Time     `json:"-"`
}

// MarshalJSON writes the wire object, numberQubits null for a device
// without qubits (NumberQubits 0), as the public service lists its
// annealer.
func (d Device) MarshalJSON() ([]byte, error) {
	type plain Device // without this method
	if d.NumberQubits != 0 {
		return json.Marshal(plain(d))
	}
	return json.Marshal(struct {
		plain
		NumberQubits *int `json:"numberQubits"` // shallower: it wins over plain's
	}{plain: plain(d)})
}

// Pricing is in credits (1 credit = $0.01).
type Pricing struct {
	PerTask   float64 `json:"perTask"`
	PerShot   float64 `json:"perShot"`
	PerMinute float64 `json:"perMinute"`
}

// Device statuses and types.
const (
	DeviceOnline      = "ONLINE"
	DeviceOffline     = "OFFLINE"
	DeviceRetired     = "RETIRED"
	DeviceUnavailable = "UNAVAILABLE"
	DeviceQPU         = "QPU"
	DeviceSimulator   = "SIMULATOR"
)

// DefaultMaxShots bounds a job's shots on a device that sets no MaxShots.
const DefaultMaxShots = 1_000_000

// SimulatorPrecisions are the values of runtimeOptions.precision that the
// built-in simulator takes, its default first.
var SimulatorPrecisions = []string{"double", "single"}

// Vendors are the five vendor identifiers.
var Vendors = []string{"aws", "azure", "ibm", "ionq", "qbraid"}

// EstimatedCost is perTask + shots×perShot + perMinute×1: one minute is
// assumed for a device that charges by the minute.
func (d *Device) EstimatedCost(shots int) float64 { return d.EstimatedBatchCost(1, shots) }

// EstimatedBatchCost is what a batch of n circuits is expected to cost:
// perTask + n×shots×perShot + perMinute×1.
func (d *Device) EstimatedBatchCost(n, shots int) float64 {
	return RoundCost(d.Pricing.PerTask + float64(n)*float64(shots)*d.Pricing.PerShot + d.Pricing.PerMinute)
}

// cost is what a completed job pays for its execution time.
func (d *Device) Cost(shots int, execution time.Duration) float64 {
	return RoundCost(d.Pricing.PerTask + float64(shots)*d.Pricing.PerShot + d.Pricing.PerMinute*execution.Minutes())
}

func (d *Device) ShotLimit() int {
	if d.MaxShots > 0 {
		return d.MaxShots
	}
	return DefaultMaxShots
}

// VisibleTo reports whether the user of that ID may see and use the
// device: every user a public one, those it allows a private one.
func (d *Device) VisibleTo(userID string) bool {
	return !d.Private || slices.Contains(d.AllowedUsers, userID)
}

// batchCost is what a completed batch pays: perTask once, and each
// circuit's part (its shots, its minutes), as each is shown.
func (d *Device) BatchCost(outcomes []CircuitOutcome) float64 {
	total := d.Pricing.PerTask
	for _, o := range outcomes {
		total += o.Cost
	}
	return RoundCost(total)
}

// circuitCost is one circuit's part of a batch's cost: without perTask.
func (d *Device) CircuitCost(shots int, execution time.Duration) float64 {
	return RoundCost(float64(shots)*d.Pricing.PerShot + d.Pricing.PerMinute*execution.Minutes())
}

// Clone copies the device and the slices it holds.
func (d *Device) Clone() Device {
	c := *d
	c.RunInputTypes = slices.Clone(d.RunInputTypes)
	c.NoiseModels = slices.Clone(d.NoiseModels)
	c.Precisions = slices.Clone(d.Precisions)
	c.Noise = maps.Clone(d.Noise)
	c.AllowedUsers = slices.Clone(d.AllowedUsers)
	c.StatusMsg = ClonePtr(d.StatusMsg)
	c.NextAvailable = ClonePtr(d.NextAvailable)
	c.AvgQueueTime = ClonePtr(d.AvgQueueTime)
	if d.Topology != nil {
		t := *d.Topology
		t.RowSpans = slices.Clone(t.RowSpans)
		c.Topology = &t
	}
	if d.Calibration != nil {
		k := *d.Calibration
		k.Qubits = maps.Clone(k.Qubits)
		for q, qc := range k.Qubits {
			qc.ReadoutError = ClonePtr(qc.ReadoutError)
			k.Qubits[q] = qc
		}
		k.Edges = slices.Clone(k.Edges)
		c.Calibration = &k
	}
	return c
}

// TakesJobs reports whether workers claim the device's queued jobs: not
// while it is OFFLINE or UNAVAILABLE (they wait), and a RETIRED device's
// are claimed to be failed.
func (d *Device) TakesJobs() bool { return d.Status != DeviceOffline && d.Status != DeviceUnavailable }
