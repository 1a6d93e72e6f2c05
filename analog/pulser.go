package analog

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qjobs/quantum/rydberg"
)

// The format pulser.sequence: Pulser's abstract representation of a
// sequence, wrapped as Azure's pasqal.pulser.v1 input ({"sequence_builder":
// {…}}). Positions in µm, durations in ns, frequencies in rad/µs.

// pulserSeq is a decoded sequence: its atoms in register order, its
// device, and its channels' schedules.
type pulserSeq struct {
	names    []string
	atoms    []rydberg.Atom
	device   *pulserDevice
	channels []*channelSchedule // in declaration order
	byName   map[string]*channelSchedule
	vars     variables
	// Per atom, the phase reference of the ground-rydberg basis, when it
	// last changed (a pulse on the atom waits for it) and when the atom
	// was last driven.
	phaseRef, phaseTime, lastUsed []float64
}

// decodePulser reads and checks a sequence, schedules its operations as
// Pulser does and returns it. maxAtoms is the device's (0: none).
func decodePulser(data string, maxAtoms int) (*pulserSeq, error) {
	root, err := parseJSON(data, "program.data")
	if err != nil {
		return nil, err
	}
	var p problems
	if !root.object(&p) {
		return nil, p.err()
	}
	seq, ok := root.field("sequence_builder")
	if !ok {
		p.add("program.data.sequence_builder", "is required: the sequence in Pulser's abstract representation, as {\"sequence_builder\": {…}}")
		return nil, p.err()
	}
	if !seq.object(&p) {
		return nil, p.err()
	}
	s := &pulserSeq{byName: map[string]*channelSchedule{}, vars: variables{}}
	if dn, ok := seq.need("device", &p); ok {
		s.device, _ = deviceOf(dn, &p)
	}
	if !p.ok() {
		return nil, p.err()
	}
	if rn, ok := seq.need("register", &p); ok {
		s.decodeRegister(rn, maxAtoms, &p)
	}
	s.checkUnsupported(seq, &p)
	if vn, ok := seq.need("variables", &p); ok && vn.object(&p) {
		s.decodeVariables(vn, &p)
	}
	if cn, ok := seq.need("channels", &p); ok && cn.object(&p) {
		s.declareChannels(cn, &p)
	}
	if !p.ok() {
		return nil, p.err()
	}
	n := len(s.atoms)
	s.phaseRef, s.phaseTime, s.lastUsed = make([]float64, n), make([]float64, n), make([]float64, n)
	if on, ok := seq.need("operations", &p); ok {
		if items, ok := on.list(&p); ok {
			for _, op := range items {
				if !s.operation(op, &p) {
					break // later operations depend on this one's timing
				}
			}
		}
	}
	if !p.ok() {
		return nil, p.err()
	}
	if d := s.duration(); d > maxSequence {
		p.add("program.data.sequence_builder.operations", "last %d ns; sequences here last at most %d ns", d, maxSequence)
	}
	if d := s.duration(); s.device.maxDuration > 0 && d > s.device.maxDuration {
		p.add("program.data.sequence_builder.operations", "last %d ns; %s runs sequences of at most %d ns", d, s.device.name, s.device.maxDuration)
	}
	return s, p.err()
}

// checkUnsupported refuses what this service does not run: other bases
// than ground-rydberg, an SLM mask, a magnetic field, registers mapped on
// a layout.
func (s *pulserSeq) checkUnsupported(seq node, p *problems) {
	if m, ok := seq.field("measurement"); ok && m.v != "ground-rydberg" {
		p.add(m.path, "must be \"ground-rydberg\" or null: only the ground-rydberg basis is simulated, got %s", compactJSON(m.v))
	}
	if f, ok := seq.field("slm_mask_targets"); ok {
		if items, _ := f.v.([]any); len(items) > 0 {
			p.add(f.path, "an SLM mask is not supported (it needs the DMM)")
		}
	}
	if f, ok := seq.field("magnetic_field"); ok {
		p.add(f.path, "a magnetic field is for the XY basis, which is not supported: only the ground-rydberg basis is simulated")
	}
}

func (s *pulserSeq) decodeRegister(rn node, maxAtoms int, p *problems) {
	items, ok := rn.list(p)
	if !ok {
		return
	}
	d := s.device
	limit := maxAtoms
	if d.maxAtoms > 0 && (limit == 0 || d.maxAtoms < limit) {
		limit = d.maxAtoms
	}
	if limit > 0 && len(items) > limit {
		p.add(rn.path, "holds %d atoms; at most %d here (%s)", len(items), limit, d.name)
		return
	}
	seen := map[string]bool{}
	for _, it := range items {
		if !it.object(p) {
			continue
		}
		if _, ok := it.field("qid"); ok {
			p.add(it.path, "an atom mapped on a layout (qid) is not supported: give the register's atoms with x and y")
			continue
		}
		var a rydberg.Atom
		name := ""
		if f, ok := it.need("name", p); ok {
			switch v := f.v.(type) {
			case string:
				name = v
			default:
				name = compactJSON(v)
			}
		}
		if seen[name] {
			p.add(it.path+".name", "repeats the name %q", name)
		}
		seen[name] = true
		for key, into := range map[string]*float64{"x": &a.X, "y": &a.Y} {
			if f, ok := it.need(key, p); ok {
				*into, _ = f.number(p, false)
			}
		}
		if f, ok := it.field("z"); ok {
			a.Z, _ = f.number(p, false)
			if d.dimensions < 3 && a.Z != 0 {
				p.add(f.path, "places the atom in 3D; %s is %d-dimensional", d.name, d.dimensions)
			}
		}
		if d.maxRadial > 0 && above(math.Sqrt(a.X*a.X+a.Y*a.Y+a.Z*a.Z), d.maxRadial) {
			p.add(it.path, "is %.6g µm from the centre; %s holds atoms within %g µm of it", math.Sqrt(a.X*a.X+a.Y*a.Y+a.Z*a.Z), d.name, d.maxRadial)
		}
		s.names = append(s.names, name)
		s.atoms = append(s.atoms, a)
	}
	for i := range s.atoms {
		for j := i + 1; j < len(s.atoms); j++ {
			a, b := s.atoms[i], s.atoms[j]
			dist := math.Sqrt((a.X-b.X)*(a.X-b.X) + (a.Y-b.Y)*(a.Y-b.Y) + (a.Z-b.Z)*(a.Z-b.Z))
			if dist == 0 || below(dist, d.minDistance) {
				p.add(fmt.Sprintf("%s[%d]", rn.path, j), "is %.6g µm from atom %d (%s); atoms on %s are at least %g µm apart", dist, i, s.names[i], d.name, d.minDistance)
				return
			}
		}
	}
}

func (s *pulserSeq) decodeVariables(vn node, p *problems) {
	for _, name := range sortedKeys(vn.v.(map[string]any)) {
		f, _ := vn.field(name)
		if !f.object(p) {
			continue
		}
		if t, ok := f.field("type"); ok && t.v != "int" && t.v != "float" {
			p.add(t.path, `must be "int" or "float", got %s`, compactJSON(t.v))
		}
		v, ok := f.field("value")
		if !ok {
			p.add(f.path+".value", "is required: the variable is left unassigned, and a sequence runs with values for all its variables")
			s.vars[name] = nil
			continue
		}
		vals, ok := v.numbers(p, false)
		if ok && len(vals) == 0 {
			p.add(v.path, "must hold at least one value")
		}
		if t, _ := f.field("type"); t.v == "int" {
			for _, x := range vals {
				if x != math.Trunc(x) {
					p.add(v.path, "holds %v, not an integer, for a variable of type int", x)
					break
				}
			}
		}
		s.vars[name] = vals
	}
}

func (s *pulserSeq) declareChannels(cn node, p *problems) {
	used := map[string]string{}
	for _, name := range sortedKeys(cn.v.(map[string]any)) {
		f, _ := cn.field(name)
		id, ok := f.str(p)
		if !ok {
			continue
		}
		spec, ok := s.device.channel(id)
		switch {
		case !ok:
			p.add(f.path, "names %q, which %s does not have (it has %s)", id, s.device.name, s.device.channelIDs())
			continue
		case spec.basis != "ground-rydberg":
			p.add(f.path, "is a channel of the %s basis; only the ground-rydberg basis (rydberg_global, rydberg_local) is simulated", spec.basis)
			continue
		case used[id] != "" && !s.device.reusable:
			p.add(f.path, "declares %q again (as %q already); %s does not reuse channels", id, used[id], s.device.name)
			continue
		}
		used[id] = name
		ch := &channelSchedule{name: name, spec: spec, global: spec.addressing == "Global"}
		if ch.global {
			ch.targets = allAtoms(len(s.atoms))
		}
		s.channels = append(s.channels, ch)
		s.byName[name] = ch
	}
	// Declaration order is the JSON object's, which Go's maps do not
	// keep; channels are independent but for their order in errors, so
	// they are kept by name.
	slices.SortFunc(s.channels, func(a, b *channelSchedule) int { return strings.Compare(a.name, b.name) })
}

func allAtoms(n int) []bool {
	t := make([]bool, n)
	for i := range t {
		t[i] = true
	}
	return t
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// duration is the sequence's, in ns: its longest channel's.
func (s *pulserSeq) duration() int {
	d := 0
	for _, ch := range s.channels {
		d = max(d, ch.end())
	}
	return d
}

// program is the sequence's Hamiltonian for the simulator: each
// channel's samples (one a nanosecond, joined by straight lines, from 0
// to the last sample, as Pulser's emulator samples them) summed on the
// atoms each drives; atoms driven alike share one drive and detuning.
func (s *pulserSeq) program() *rydberg.Program {
	n := len(s.atoms)
	d := s.duration()
	p := &rydberg.Program{Atoms: s.atoms, C6: c6ByLevel[s.device.rydbergLevel], Duration: float64(max(d-1, 0)) / 1000}
	if d < 2 {
		return p
	}
	// An atom's contributions: the (channel, slot) pairs that drive it.
	type contribution struct{ ch, slot int }
	groups := map[string][]int{}
	contributions := map[string][]contribution{}
	var order []string
	for k := range n {
		var cs []contribution
		key := ""
		for ci, ch := range s.channels {
			for si, sl := range ch.slots {
				if sl.pulse != nil && sl.targets[k] {
					cs = append(cs, contribution{ci, si})
					key += strconv.Itoa(ci) + "." + strconv.Itoa(si) + ","
				}
			}
		}
		if _, seen := groups[key]; !seen {
			order = append(order, key)
			contributions[key] = cs
		}
		groups[key] = append(groups[key], k)
	}
	samples := make([]*channelSamples, len(s.channels))
	for i, ch := range s.channels {
		samples[i] = ch.samples(d)
	}
	times := make([]float64, d)
	for k := range times {
		times[k] = float64(k) / 1000
	}
	for _, key := range order {
		cs := contributions[key]
		if len(cs) == 0 {
			continue
		}
		c := make([]complex128, d)
		delta := make([]float64, d)
		for _, ct := range cs {
			sl := s.channels[ct.ch].slots[ct.slot]
			sm := samples[ct.ch]
			for t := sl.ti; t < sl.tf; t++ {
				c[t] += complex(sm.amp[t]*math.Cos(sm.phase[t]), sm.amp[t]*math.Sin(sm.phase[t]))
				delta[t] += sm.det[t]
			}
		}
		var atoms []int
		var weights []float64
		if len(groups[key]) < n {
			atoms = groups[key]
			weights = make([]float64, n)
			for _, k := range atoms {
				weights[k] = 1
			}
		}
		p.Drives = append(p.Drives, rydberg.Drive{Atoms: atoms, Times: times, Values: c})
		p.Detunings = append(p.Detunings, rydberg.Detuning{Weights: weights, Times: times, Values: delta})
	}
	return p
}
