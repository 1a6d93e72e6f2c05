package quantum

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/qjobs/quantum/sim"
)

// Device is a device as the API shows it. Marshalled to JSON it is the wire
// object of the contract; Description is left out of list items.
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
	return roundCost(d.Pricing.PerTask + float64(n)*float64(shots)*d.Pricing.PerShot + d.Pricing.PerMinute)
}

// cost is what a completed job pays for its execution time.
func (d *Device) cost(shots int, execution time.Duration) float64 {
	return roundCost(d.Pricing.PerTask + float64(shots)*d.Pricing.PerShot + d.Pricing.PerMinute*execution.Minutes())
}

func (d *Device) maxShots() int {
	if d.MaxShots > 0 {
		return d.MaxShots
	}
	return DefaultMaxShots
}

func (d *Device) visibleTo(u User) bool {
	return !d.Private || slices.Contains(d.AllowedUsers, u.ID)
}

// DeviceQuery selects a page of devices. Zero Page and Limit mean the
// defaults (1 and 20).
type DeviceQuery struct {
	QRN, Vendor, ProviderID, DeviceType, Status string
	Retired, Private, Verified, DirectAccess    *bool
	Search, SortBy, SortOrder                   string
	Page, Limit                                 int
}

// DevicePage is a page of devices.
type DevicePage struct {
	Devices    []*Device
	Pagination Pagination
}

var deviceSorts = []string{"name", "vendor", "deviceType", "status", "numberQubits", "createdAt", "updatedAt"}

// ListDevices returns the devices the user may see, filtered, sorted
// (default: name ascending) and paged.
func (s *Service) ListDevices(ctx context.Context, u User, q DeviceQuery) (*DevicePage, error) {
	var v validation
	page, limit := pageAndLimit(&v, q.Page, q.Limit, 20)
	if q.Vendor != "" && !slices.Contains(Vendors, q.Vendor) {
		v.add("vendor", "must be one of %s", strings.Join(Vendors, ", "))
	}
	if q.DeviceType != "" && q.DeviceType != DeviceQPU && q.DeviceType != DeviceSimulator {
		v.add("deviceType", "must be QPU or SIMULATOR")
	}
	if q.Status != "" && !slices.Contains([]string{DeviceOnline, DeviceOffline, DeviceRetired, DeviceUnavailable}, q.Status) {
		v.add("status", "must be one of ONLINE, OFFLINE, RETIRED, UNAVAILABLE")
	}
	checkSearch(&v, q.Search)
	checkText(&v, "qrn", q.QRN)
	checkText(&v, "providerId", q.ProviderID)
	if q.SortBy != "" && !slices.Contains(deviceSorts, q.SortBy) {
		v.add("sortBy", "must be one of %s", strings.Join(deviceSorts, ", "))
	}
	if q.SortOrder != "" && q.SortOrder != "asc" && q.SortOrder != "desc" {
		v.add("sortOrder", "must be asc or desc")
	}
	if err := v.err(); err != nil {
		return nil, err
	}

	var out []*Device
	for _, d := range s.devices.all() {
		if !d.visibleTo(u) || !deviceMatches(d, q) {
			continue
		}
		out = append(out, d)
	}
	sortDevices(out, q.SortBy, q.SortOrder == "desc")
	total := len(out)
	out = pageOf(out, page, limit)
	for i, d := range out {
		live, err := s.liveDevice(ctx, d)
		if err != nil {
			return nil, err
		}
		live.Description = ""
		out[i] = live
	}
	return &DevicePage{Devices: out, Pagination: newPagination(page, limit, total)}, nil
}

func deviceMatches(d *Device, q DeviceQuery) bool {
	switch {
	case q.QRN != "" && d.QRN != q.QRN,
		q.Vendor != "" && d.Vendor != q.Vendor,
		q.ProviderID != "" && d.Provider != q.ProviderID,
		q.DeviceType != "" && d.DeviceType != q.DeviceType,
		q.Status != "" && d.Status != q.Status,
		q.Private != nil && d.Private != *q.Private,
		q.Verified != nil && d.Verified != *q.Verified,
		q.DirectAccess != nil && d.DirectAccess != *q.DirectAccess,
		q.Search != "" && !matchesSearch(q.Search, d.Name, d.Description, d.About):
		return false
	}
	// Retired devices are left out unless asked for.
	retired := d.Status == DeviceRetired
	switch {
	case q.Retired != nil:
		return *q.Retired || !retired
	case q.Status == DeviceRetired:
		return true
	default:
		return !retired
	}
}

func sortDevices(ds []*Device, by string, desc bool) {
	key := func(a, b *Device) int {
		switch by {
		case "vendor":
			return cmp.Compare(a.Vendor, b.Vendor)
		case "deviceType":
			return cmp.Compare(a.DeviceType, b.DeviceType)
		case "status":
			return cmp.Compare(a.Status, b.Status)
		case "numberQubits":
			return cmp.Compare(a.NumberQubits, b.NumberQubits)
		case "createdAt":
			return a.CreatedAt.Compare(b.CreatedAt)
		case "updatedAt":
			return a.UpdatedAt.Compare(b.UpdatedAt)
		}
		return cmp.Compare(a.Name, b.Name)
	}
	slices.SortStableFunc(ds, func(a, b *Device) int {
		c := key(a, b)
		if desc {
			c = -c
		}
		if c == 0 { // a stable order across pages
			c = cmp.Compare(a.QRN, b.QRN)
		}
		return c
	})
}

// GetDevice returns one device with its description. A private device the
// user may not use does not exist for them.
func (s *Service) GetDevice(ctx context.Context, u User, qrn string) (*Device, error) {
	if err := CheckDeviceQRN(qrn); err != nil {
		return nil, err
	}
	d, ok := s.devices.get(qrn)
	if !ok || !d.visibleTo(u) {
		return nil, Errorf(ENOTFOUND, "device %s not found", qrn)
	}
	return s.liveDevice(ctx, d)
}

// liveDevice is a copy of d with its live fields filled in.
func (s *Service) liveDevice(ctx context.Context, d *Device) (*Device, error) {
	c := *d
	c.RunInputTypes = slices.Clone(d.RunInputTypes)
	c.NoiseModels = slices.Clone(d.NoiseModels)
	n, err := s.store.CountQueued(ctx, d.QRN)
	if err != nil {
		return nil, s.internal(ctx, err, "count queued jobs")
	}
	c.QueueDepth = n
	return &c, nil
}

func pageAndLimit(v *validation, page, limit, defLimit int) (int, int) {
	if page == 0 {
		page = 1
	}
	if limit == 0 {
		limit = defLimit
	}
	if page < 1 {
		v.add("page", "must be at least 1")
	}
	if limit < 1 || limit > 100 {
		v.add("limit", "must be between 1 and 100")
	}
	return page, limit
}

func checkSearch(v *validation, search string) {
	if !checkText(v, "search", search) {
		return
	}
	if n := utf8.RuneCountInString(search); n > 255 {
		v.add("search", "must be 1 to 255 characters")
	}
}

func pageOf[T any](items []T, page, limit int) []T {
	start, end := JobFilter{Offset: pageOffset(page, limit), Limit: limit}.PageBounds(len(items))
	return items[start:end:end]
}
