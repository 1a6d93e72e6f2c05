package analog

import (
	"math"
	"slices"
	"strings"
)

// A Pulser device, as a sequence names it ("DigitalAnalogDevice") or
// describes it (an object of Pulser's device schema): what it lets a
// sequence do, and the Rydberg level its C6 comes from.

// pulserChannel is one of a device's channels. A limit of 0 (or NaN for
// the amplitudes) is none.
type pulserChannel struct {
	id, basis, addressing  string
	maxAmp, maxAbsDetuning float64 // rad/µs; NaN: none
	minAvgAmp              float64
	clock, minDuration     int // ns
	maxDuration            int
	maxTargets             int
	minRetarget, fixedRet  int
}

type pulserDevice struct {
	name         string
	dimensions   int
	rydbergLevel int
	maxAtoms     int     // 0: none
	minDistance  float64 // µm
	maxRadial    float64 // µm; 0: none
	maxDuration  int     // ns, the sequence's; 0: none
	reusable     bool
	channels     []pulserChannel
}

// c6ByLevel is C6 for each Rydberg level this service knows, in
// rad·µm⁶/µs (Pulser's table, decisions.md).
var c6ByLevel = map[int]float64{60: 865723.02, 70: 5420158.53, 75: 12241414.53}

func twoPi(mhz float64) float64 { return 2 * math.Pi * mhz }

// The devices a sequence may name, as Pulser defines them
// (pulser/devices/_devices.py, _mock_device.py): only what a Rydberg
// sequence on them uses.
var namedDevices = map[string]pulserDevice{
	"DigitalAnalogDevice": {name: "DigitalAnalogDevice", dimensions: 2, rydbergLevel: 70, maxAtoms: 100, minDistance: 4, maxRadial: 50,
		channels: []pulserChannel{
			{id: "rydberg_global", basis: "ground-rydberg", addressing: "Global", maxAmp: twoPi(2.5), maxAbsDetuning: twoPi(20), clock: 4, minDuration: 16, maxDuration: 1 << 26},
			{id: "rydberg_local", basis: "ground-rydberg", addressing: "Local", maxAmp: twoPi(10), maxAbsDetuning: twoPi(20), clock: 4, minDuration: 16, maxDuration: 1 << 26, maxTargets: 1, minRetarget: 220},
			{id: "raman_local", basis: "digital", addressing: "Local", maxAmp: twoPi(10), maxAbsDetuning: twoPi(20), clock: 4, minDuration: 16, maxDuration: 1 << 26, maxTargets: 1, minRetarget: 220},
		}},
	"AnalogDevice": {name: "AnalogDevice", dimensions: 2, rydbergLevel: 60, maxAtoms: 80, minDistance: 5, maxRadial: 38, maxDuration: 6000,
		channels: []pulserChannel{
			{id: "rydberg_global", basis: "ground-rydberg", addressing: "Global", maxAmp: twoPi(2), maxAbsDetuning: twoPi(20), clock: 4, minDuration: 16},
		}},
	"WeightedAnalogDevice": {name: "WeightedAnalogDevice", dimensions: 2, rydbergLevel: 75, maxAtoms: 256, minDistance: 5, maxRadial: 80, maxDuration: 6000,
		channels: []pulserChannel{
			{id: "rydberg_global", basis: "ground-rydberg", addressing: "Global", maxAmp: twoPi(2), maxAbsDetuning: twoPi(10), minAvgAmp: twoPi(0.3), clock: 4, minDuration: 16},
		}},
	"MockDevice": {name: "MockDevice", dimensions: 3, rydbergLevel: 70, reusable: true,
		channels: []pulserChannel{
			{id: "rydberg_global", basis: "ground-rydberg", addressing: "Global", maxAmp: math.NaN(), maxAbsDetuning: math.NaN(), clock: 1, minDuration: 1},
			{id: "rydberg_local", basis: "ground-rydberg", addressing: "Local", maxAmp: math.NaN(), maxAbsDetuning: math.NaN(), clock: 1, minDuration: 1},
			{id: "raman_global", basis: "digital", addressing: "Global", maxAmp: math.NaN(), maxAbsDetuning: math.NaN(), clock: 1, minDuration: 1},
			{id: "raman_local", basis: "digital", addressing: "Local", maxAmp: math.NaN(), maxAbsDetuning: math.NaN(), clock: 1, minDuration: 1},
			{id: "mw_global", basis: "XY", addressing: "Global", maxAmp: math.NaN(), maxAbsDetuning: math.NaN(), clock: 1, minDuration: 1},
		}},
}

func (d *pulserDevice) channel(id string) (pulserChannel, bool) {
	i := slices.IndexFunc(d.channels, func(c pulserChannel) bool { return c.id == id })
	if i < 0 {
		return pulserChannel{}, false
	}
	return d.channels[i], true
}

func (d *pulserDevice) channelIDs() string {
	ids := make([]string, len(d.channels))
	for i, c := range d.channels {
		ids[i] = c.id
	}
	return strings.Join(ids, ", ")
}

// deviceOf reads the sequence's device: a name, or an object.
func deviceOf(n node, p *problems) (*pulserDevice, bool) {
	if name, ok := n.v.(string); ok {
		d, known := namedDevices[name]
		if !known {
			p.add(n.path, "names %q; the devices known by name are AnalogDevice, DigitalAnalogDevice, MockDevice and WeightedAnalogDevice (give another as an object)", name)
			return nil, false
		}
		return &d, true
	}
	if !n.object(p) {
		return nil, false
	}
	d := &pulserDevice{}
	start := len(p.v)
	optInt := func(key string, into *int) {
		if f, ok := n.field(key); ok {
			if v, ok := f.number(p, false); ok {
				*into = int(v)
			}
		}
	}
	optFloat := func(key string, into *float64) {
		if f, ok := n.field(key); ok {
			if v, ok := f.number(p, false); ok {
				*into = v
			}
		}
	}
	if f, ok := n.field("name"); ok {
		d.name, _ = f.str(p)
	}
	d.dimensions = 2
	optInt("dimensions", &d.dimensions)
	if f, ok := n.need("rydberg_level", p); ok {
		if v, ok := f.number(p, false); ok {
			d.rydbergLevel = int(v)
			if _, known := c6ByLevel[d.rydbergLevel]; !known || float64(d.rydbergLevel) != v {
				p.add(f.path, "is %v; this service knows C6 for the levels 60, 70 and 75", v)
			}
		}
	}
	optInt("max_atom_num", &d.maxAtoms)
	optFloat("min_atom_distance", &d.minDistance)
	optFloat("max_radial_distance", &d.maxRadial)
	optInt("max_sequence_duration", &d.maxDuration)
	if f, ok := n.field("reusable_channels"); ok {
		d.reusable, _ = f.v.(bool)
	}
	chans, ok := n.need("channels", p)
	if !ok {
		return nil, false
	}
	items, ok := chans.list(p)
	if !ok {
		return nil, false
	}
	for _, it := range items {
		if !it.object(p) {
			continue
		}
		c := pulserChannel{maxAmp: math.NaN(), maxAbsDetuning: math.NaN(), clock: 1, minDuration: 1}
		for key, into := range map[string]*string{"id": &c.id, "basis": &c.basis, "addressing": &c.addressing} {
			if f, ok := it.need(key, p); ok {
				*into, _ = f.str(p)
			}
		}
		for key, into := range map[string]*float64{"max_amp": &c.maxAmp, "max_abs_detuning": &c.maxAbsDetuning, "min_avg_amp": &c.minAvgAmp} {
			if f, ok := it.field(key); ok {
				if v, ok := f.number(p, false); ok {
					*into = v
				}
			}
		}
		for key, into := range map[string]*int{"clock_period": &c.clock, "min_duration": &c.minDuration, "max_duration": &c.maxDuration,
			"max_targets": &c.maxTargets, "min_retarget_interval": &c.minRetarget, "fixed_retarget_t": &c.fixedRet} {
			if f, ok := it.field(key); ok {
				if v, ok := f.number(p, false); ok {
					*into = int(v)
				}
			}
		}
		if c.clock < 1 {
			p.add(it.path+".clock_period", "must be at least 1 ns, got %d", c.clock)
		}
		d.channels = append(d.channels, c)
	}
	return d, len(p.v) == start
}
