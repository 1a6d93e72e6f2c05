package analog

import "math"

// A sequence's operations laid out in time as Pulser's Sequence lays them
// out (pulser/sequence/_schedule.py): each channel a list of slots, a
// pulse waiting for what its protocol says, durations on the channel's
// clock. Modulation is not simulated, so rise and fall times are 0, as on
// a channel without a modulation bandwidth.

// slot is a stretch of a channel's time: a pulse, a delay, or a retarget.
type slot struct {
	ti, tf  int
	targets []bool
	pulse   *pulseSlot
}

type pulseSlot struct {
	amp, det []float64
	phase    float64
}

type channelSchedule struct {
	name      string
	spec      pulserChannel
	global    bool
	slots     []slot
	targets   []bool // the current targets (a global channel's: every atom)
	targetAt  int    // when the last retarget ended
	hasTarget bool
}

func (ch *channelSchedule) end() int {
	if len(ch.slots) == 0 {
		return 0
	}
	return ch.slots[len(ch.slots)-1].tf
}

// adjust is a channel's duration for a wait of d ns: at least its
// shortest, rounded up to its clock.
func (ch *channelSchedule) adjust(d int) int {
	d = max(d, ch.spec.minDuration)
	if r := d % ch.spec.clock; r != 0 {
		d += ch.spec.clock - r
	}
	return d
}

func (ch *channelSchedule) delay(d int) {
	if d > 0 && ch.end() <= maxSequence {
		t := ch.end()
		ch.slots = append(ch.slots, slot{ti: t, tf: t + d, targets: ch.targets})
	}
}

// operation applies one of the sequence's operations; false stops the
// walk (a later operation's timing would rest on this one).
func (s *pulserSeq) operation(op node, p *problems) bool {
	if !op.object(p) {
		return false
	}
	kindNode, ok := op.need("op", p)
	if !ok {
		return false
	}
	kind, _ := kindNode.v.(string)
	switch kind {
	case "pulse":
		return s.pulse(op, p)
	case "delay":
		return s.delayOp(op, p)
	case "align":
		return s.align(op, p)
	case "target":
		return s.target(op, p)
	case "phase_shift":
		return s.phaseShift(op, p)
	case "enable_eom_mode", "modify_eom_setpoint", "disable_eom_mode", "add_eom_pulse":
		p.add(kindNode.path, "%q: EOM mode is not supported", kind)
	case "config_slm_mask":
		p.add(kindNode.path, "%q: an SLM mask is not supported (it needs the DMM)", kind)
	case "config_detuning_map", "add_dmm_detuning":
		p.add(kindNode.path, "%q: detuning maps (the DMM) are not supported", kind)
	default:
		p.add(kindNode.path, "%s is not supported: the operations run here are pulse, delay, align, target and phase_shift", compactJSON(op.v.(map[string]any)["op"]))
	}
	return false
}

// channelOf is the declared channel an operation names.
func (s *pulserSeq) channelOf(op node, p *problems) (*channelSchedule, bool) {
	cn, ok := op.need("channel", p)
	if !ok {
		return nil, false
	}
	name, _ := cn.v.(string)
	ch, ok := s.byName[name]
	if !ok {
		p.add(cn.path, "names %s, which the sequence does not declare", compactJSON(cn.v))
	}
	return ch, ok
}

func (s *pulserSeq) pulse(op node, p *problems) bool {
	ch, ok := s.channelOf(op, p)
	if !ok {
		return false
	}
	if !ch.global && !ch.hasTarget {
		p.add(op.path+".channel", "%q is a local channel with no target yet: a target operation comes first", ch.name)
		return false
	}
	start := len(p.v)
	an, okA := op.need("amplitude", p)
	dn, okD := op.need("detuning", p)
	phn, okP := op.need("phase", p)
	if !okA || !okD || !okP {
		return false
	}
	amp, okA := s.vars.waveformOf(an, p, 0)
	det, okD := s.vars.waveformOf(dn, p, 0)
	phase, okP := s.vars.scalar(phn, p)
	post := 0.0
	if pn, ok := op.field("post_phase_shift"); ok {
		post, _ = s.vars.scalar(pn, p)
	}
	protocol := "min-delay"
	if pr, ok := op.field("protocol"); ok {
		protocol, _ = pr.v.(string)
		if protocol != "min-delay" && protocol != "wait-for-all" && protocol != "no-delay" {
			p.add(pr.path, `must be "min-delay", "wait-for-all" or "no-delay", got %s`, compactJSON(pr.v))
		}
	}
	if !okA || !okD || !okP || len(p.v) > start {
		return false
	}
	if len(amp.samples) != len(det.samples) {
		p.add(dn.path, "lasts %d ns and the amplitude %d ns: a pulse's waveforms last as long", len(det.samples), len(amp.samples))
		return false
	}
	if !s.checkPulse(ch, amp, det, an, dn, p) {
		return false
	}
	// A pulse may only drive atoms that share one phase reference.
	ref := math.NaN()
	for k, on := range ch.targets {
		if !on {
			continue
		}
		if !math.IsNaN(ref) && s.phaseRef[k] != ref {
			p.add(op.path, "drives atoms with different phase references (after phase shifts on some of them)")
			return false
		}
		ref = s.phaseRef[k]
	}
	if math.IsNaN(ref) {
		ref = 0
	}
	// When it starts: after the channel's last slot, the phase changes on
	// its atoms, and, unless no-delay, the pulses of other channels it
	// must wait for; a wait is rounded to the channel's clock.
	t0 := ch.end()
	at := float64(t0)
	for k, on := range ch.targets {
		if on {
			at = max(at, s.phaseTime[k])
		}
	}
	now := int(math.Ceil(at))
	if protocol != "no-delay" {
		now = s.addedDelay(now, ch, protocol)
	}
	if wait := now - t0; wait > 0 {
		ch.delay(ch.adjust(wait))
	}
	ti := ch.end()
	tf := ti + len(amp.samples)
	ch.slots = append(ch.slots, slot{ti: ti, tf: tf, targets: ch.targets,
		pulse: &pulseSlot{amp: amp.samples, det: det.samples, phase: math.Mod(phase+ref, 2*math.Pi)}})
	for k, on := range ch.targets {
		if on {
			s.lastUsed[k] = float64(tf)
		}
	}
	if post != 0 {
		s.shift(ch.targets, post)
	}
	return true
}

// checkPulse checks a pulse against its channel, as Pulser's
// Channel.validate_pulse and validate_duration do, and stretches it to
// the channel's clock when it can.
func (s *pulserSeq) checkPulse(ch *channelSchedule, amp, det *waveform, an, dn node, p *problems) bool {
	c := ch.spec
	sum := 0.0
	for i, v := range amp.samples {
		sum += v
		switch {
		case v < 0:
			p.add(an.path, "is %.6g rad/µs at %d ns: an amplitude is never negative", v, i)
			return false
		case !math.IsNaN(c.maxAmp) && v > c.maxAmp:
			p.add(an.path, "reaches %.6g rad/µs at %d ns; channel %s goes up to %.6g rad/µs", v, i, c.id, c.maxAmp)
			return false
		}
	}
	if avg := sum / float64(len(amp.samples)); avg > 0 && avg < c.minAvgAmp {
		p.add(an.path, "averages %.6g rad/µs; channel %s needs at least %.6g", avg, c.id, c.minAvgAmp)
		return false
	}
	for i, v := range det.samples {
		// Pulser rounds to 6 decimals before comparing.
		if !math.IsNaN(c.maxAbsDetuning) && math.Round(math.Abs(v)*1e6)/1e6 > c.maxAbsDetuning {
			p.add(dn.path, "reaches %.6g rad/µs at %d ns; channel %s allows |δ| up to %.6g rad/µs", v, i, c.id, c.maxAbsDetuning)
			return false
		}
	}
	d := len(amp.samples)
	switch {
	case d < c.minDuration:
		p.add(an.path, "lasts %d ns; pulses on channel %s last at least %d ns", d, c.id, c.minDuration)
		return false
	case c.maxDuration > 0 && d > c.maxDuration:
		p.add(an.path, "lasts %d ns; pulses on channel %s last at most %d ns", d, c.id, c.maxDuration)
		return false
	case d%c.clock != 0:
		want := d + c.clock - d%c.clock
		if amp.redo == nil || det.redo == nil {
			p.add(an.path, "lasts %d ns, not a multiple of channel %s's clock period (%d ns), and a custom or composite waveform cannot be stretched to %d ns", d, c.id, c.clock, want)
			return false
		}
		amp.samples, det.samples = amp.redo(want), det.redo(want)
	}
	return true
}

// addedDelay is when a pulse on ch may start, from now: after the last
// pulse, on any other channel, that drives one of ch's targets (or any,
// for wait-for-all) and ends later (Pulser's _find_add_delay).
func (s *pulserSeq) addedDelay(now int, ch *channelSchedule, protocol string) int {
	for _, other := range s.channels {
		if other == ch {
			continue
		}
		for i := len(other.slots) - 1; i >= 0; i-- {
			sl := other.slots[i]
			if sl.tf <= now {
				break
			}
			if sl.pulse != nil && (protocol == "wait-for-all" || overlap(sl.targets, ch.targets)) {
				now = sl.tf
				break
			}
		}
	}
	return now
}

func overlap(a, b []bool) bool {
	for i := range a {
		if a[i] && b[i] {
			return true
		}
	}
	return false
}

func (s *pulserSeq) delayOp(op node, p *problems) bool {
	ch, ok := s.channelOf(op, p)
	if !ok {
		return false
	}
	tn, ok := op.need("time", p)
	if !ok {
		return false
	}
	d, ok := s.vars.integer(tn, p)
	if !ok {
		return false
	}
	if d == 0 {
		return true
	}
	c := ch.spec
	switch {
	case d < c.minDuration:
		p.add(tn.path, "is %d ns; a delay on channel %s lasts at least %d ns", d, c.id, c.minDuration)
		return false
	case c.maxDuration > 0 && d > c.maxDuration:
		p.add(tn.path, "is %d ns; a delay on channel %s lasts at most %d ns", d, c.id, c.maxDuration)
		return false
	}
	ch.delay(ch.adjust(d))
	return true
}

func (s *pulserSeq) align(op node, p *problems) bool {
	cn, ok := op.need("channels", p)
	if !ok {
		return false
	}
	items, ok := cn.list(p)
	if !ok {
		return false
	}
	var chans []*channelSchedule
	seen := map[string]bool{}
	for _, it := range items {
		name, _ := it.v.(string)
		ch, ok := s.byName[name]
		switch {
		case !ok:
			p.add(it.path, "names %s, which the sequence does not declare", compactJSON(it.v))
			return false
		case seen[name]:
			p.add(it.path, "names %q twice", name)
			return false
		}
		seen[name] = true
		chans = append(chans, ch)
	}
	if len(chans) < 2 {
		p.add(cn.path, "must name at least two channels to align")
		return false
	}
	end := 0
	for _, ch := range chans {
		end = max(end, ch.end())
	}
	for _, ch := range chans {
		if wait := end - ch.end(); wait > 0 {
			ch.delay(ch.adjust(wait))
		}
	}
	return true
}

func (s *pulserSeq) target(op node, p *problems) bool {
	ch, ok := s.channelOf(op, p)
	if !ok {
		return false
	}
	if ch.global {
		p.add(op.path+".channel", "%q is a global channel; only local channels are targeted", ch.name)
		return false
	}
	tn, ok := op.need("target", p)
	if !ok {
		return false
	}
	idx, _, ok := s.vars.eval(tn, p, 0)
	if !ok {
		return false
	}
	targets := make([]bool, len(s.atoms))
	count := 0
	for _, x := range idx {
		k := int(x)
		if float64(k) != x || k < 0 || k >= len(s.atoms) {
			p.add(tn.path, "index %v is not one of the register's atoms, 0 to %d", x, len(s.atoms)-1)
			return false
		}
		if !targets[k] {
			count++
		}
		targets[k] = true
	}
	if count == 0 {
		p.add(tn.path, "must name at least one atom")
		return false
	}
	if ch.spec.maxTargets > 0 && count > ch.spec.maxTargets {
		p.add(tn.path, "names %d atoms; channel %s targets at most %d at a time", count, ch.spec.id, ch.spec.maxTargets)
		return false
	}
	ref := math.NaN()
	for k, on := range targets {
		if on && !math.IsNaN(ref) && s.phaseRef[k] != ref {
			p.add(tn.path, "names atoms with different phase references")
			return false
		}
		if on {
			ref = s.phaseRef[k]
		}
	}
	if !ch.hasTarget { // the first target takes no time
		ch.targets, ch.hasTarget = targets, true
		return true
	}
	if equalTargets(ch.targets, targets) {
		return true
	}
	ti := ch.end()
	retarget := ch.spec.minRetarget
	wait := min(max(retarget-(ti-ch.targetAt), 0), retarget)
	if ch.spec.fixedRet > 0 {
		wait = max(wait, ch.spec.fixedRet)
	}
	if wait != 0 {
		wait = ch.adjust(wait)
	}
	ch.targets, ch.hasTarget = targets, true
	ch.slots = append(ch.slots, slot{ti: ti, tf: ti + wait, targets: targets})
	ch.targetAt = ti + wait
	return true
}

func equalTargets(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (s *pulserSeq) phaseShift(op node, p *problems) bool {
	bn, ok := op.need("basis", p)
	if !ok {
		return false
	}
	if b, _ := bn.v.(string); b != "ground-rydberg" {
		p.add(bn.path, "is %s; only the ground-rydberg basis is simulated", compactJSON(bn.v))
		return false
	}
	phin, okPhi := op.need("phi", p)
	tn, okT := op.need("targets", p)
	if !okPhi || !okT {
		return false
	}
	phi, ok := s.vars.scalar(phin, p)
	if !ok {
		return false
	}
	items, ok := tn.list(p)
	if !ok {
		return false
	}
	targets := make([]bool, len(s.atoms))
	for _, it := range items {
		x, ok := s.vars.scalar(it, p)
		k := int(x)
		if !ok || float64(k) != x || k < 0 || k >= len(s.atoms) {
			if ok {
				p.add(it.path, "index %v is not one of the register's atoms, 0 to %d", x, len(s.atoms)-1)
			}
			return false
		}
		targets[k] = true
	}
	if len(items) == 0 { // Pulser ≥ 1.4: no targets shifts every atom
		targets = allAtoms(len(s.atoms))
	}
	s.shift(targets, phi)
	return true
}

// shift adds phi to the phase reference of the targets, from the time
// each was last driven.
func (s *pulserSeq) shift(targets []bool, phi float64) {
	for k, on := range targets {
		if on {
			s.phaseRef[k] = math.Mod(math.Mod(s.phaseRef[k]+phi, 2*math.Pi)+2*math.Pi, 2*math.Pi)
			s.phaseTime[k] = s.lastUsed[k]
		}
	}
}

// channelSamples are a channel's samples, one a nanosecond over the
// sequence's duration: the amplitude, the detuning, and the phase, which
// changes to a pulse's at the end of the pulse before it (Pulser's
// ChannelSchedule.get_samples).
type channelSamples struct{ amp, det, phase []float64 }

func (ch *channelSchedule) samples(d int) *channelSamples {
	cs := &channelSamples{amp: make([]float64, d), det: make([]float64, d), phase: make([]float64, d)}
	lastEnd, phase := 0, 0.0
	for _, sl := range ch.slots {
		if sl.pulse == nil {
			continue
		}
		copy(cs.amp[sl.ti:sl.tf], sl.pulse.amp)
		copy(cs.det[sl.ti:sl.tf], sl.pulse.det)
		phase = sl.pulse.phase
		for t := lastEnd; t < sl.tf; t++ {
			cs.phase[t] = phase
		}
		lastEnd = sl.tf
	}
	for t := lastEnd; t < d; t++ {
		cs.phase[t] = phase // the last pulse's phase holds to the end
	}
	return cs
}
