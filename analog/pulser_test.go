package analog_test

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/qjobs/quantum/analog"
	"github.com/qjobs/quantum/rydberg"
)

// sequence is a Pulser sequence on MockDevice (clock 1 ns, no limits) of
// three atoms far apart, with the given channels and operations.
func sequence(channels map[string]any, ops ...map[string]any) map[string]any {
	var list []any
	for _, o := range ops {
		list = append(list, o)
	}
	return map[string]any{"sequence_builder": map[string]any{
		"version": "1", "name": "test", "device": "MockDevice",
		"register":   []any{map[string]any{"name": "a", "x": 0, "y": 0}, map[string]any{"name": "b", "x": 30, "y": 0}, map[string]any{"name": "c", "x": 60, "y": 0}},
		"channels":   channels,
		"variables":  map[string]any{"amp": map[string]any{"type": "float", "value": []any{2.0}}},
		"operations": list, "measurement": "ground-rydberg",
	}}
}

func constPulse(ch, protocol string, duration int, amp any, phase float64) map[string]any {
	return map[string]any{"op": "pulse", "channel": ch, "protocol": protocol, "phase": phase, "post_phase_shift": 0,
		"amplitude": map[string]any{"kind": "constant", "duration": duration, "value": amp},
		"detuning":  map[string]any{"kind": "constant", "duration": duration, "value": 0}}
}

// driveAt is the complex drive on atom k at t ns, summed over the
// program's drives.
func driveAt(p *rydberg.Program, k int, t float64) complex128 {
	var sum complex128
	for _, d := range p.Drives {
		on := d.Atoms == nil
		for _, a := range d.Atoms {
			on = on || a == k
		}
		if !on {
			continue
		}
		for i := 1; i < len(d.Times); i++ {
			if d.Times[i] >= t/1000 {
				f := (t/1000 - d.Times[i-1]) / (d.Times[i] - d.Times[i-1])
				sum += d.Values[i-1] + (d.Values[i]-d.Values[i-1])*complex(f, 0)
				break
			}
		}
	}
	return sum
}

// Operations laid out in time as Pulser's Sequence lays them out: a
// global pulse, then a local one that waits (min-delay) only for pulses
// on its targets, or for every channel (wait-for-all), or for none
// (no-delay); align; a phase shift that the next pulse on the atom
// carries; a variable.
func TestPulserSchedule(t *testing.T) {
	glob := map[string]any{"g": "rydberg_global", "l": "rydberg_local"}
	target := func(i int) map[string]any { return map[string]any{"op": "target", "channel": "l", "target": i} }
	for _, tc := range []struct {
		name  string
		ops   []map[string]any
		want  map[[2]int]complex128 // (atom, ns) → drive, in rad/µs
		total float64               // µs
	}{
		{"min-delay waits for the global pulse on its target",
			[]map[string]any{constPulse("g", "min-delay", 100, 1, 0), target(0), constPulse("l", "min-delay", 100, 3, 0)},
			map[[2]int]complex128{{0, 50}: 1, {1, 50}: 1, {0, 150}: 3, {1, 150}: 0}, 0.199},
		{"no-delay does not",
			[]map[string]any{constPulse("g", "min-delay", 100, 1, 0), target(0), constPulse("l", "no-delay", 100, 3, 0)},
			map[[2]int]complex128{{0, 50}: 4, {1, 50}: 1, {0, 150}: 0}, 0.099},
		{"align then a pulse",
			[]map[string]any{constPulse("g", "min-delay", 100, 1, 0), target(2), {"op": "align", "channels": []any{"g", "l"}},
				constPulse("l", "no-delay", 50, 5, 0)},
			map[[2]int]complex128{{2, 50}: 1, {2, 120}: 5, {0, 120}: 0}, 0.149},
		{"a phase shift carried by the next pulse",
			[]map[string]any{constPulse("g", "min-delay", 100, 2, 0),
				{"op": "phase_shift", "phi": math.Pi / 2, "targets": []any{0, 1, 2}, "basis": "ground-rydberg"},
				constPulse("g", "min-delay", 100, 2, 0)},
			map[[2]int]complex128{{0, 50}: 2, {1, 150}: complex(0, 2)}, 0.199},
		{"a variable's value",
			[]map[string]any{constPulse("g", "min-delay", 100, map[string]any{"expression": "mul", "lhs": map[string]any{"variable": "amp"}, "rhs": 1.5}, 0)},
			map[[2]int]complex128{{1, 50}: 3}, 0.099},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := analog.ProgramOf("pulser.sequence", text(t, sequence(glob, tc.ops...)), device(analog.EmuTNQRN))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(p.Duration-tc.total) > 1e-12 {
				t.Errorf("duration %v µs, want %v", p.Duration, tc.total)
			}
			for at, want := range tc.want {
				if got := driveAt(p, at[0], float64(at[1])); cmplx.Abs(got-want) > 1e-9 {
					t.Errorf("atom %d at %d ns: drive %v, want %v", at[0], at[1], got, want)
				}
			}
		})
	}
}

// Pulser's waveforms as Pulser samples them: a ramp ends on its stop, a
// Blackman window's samples add up to its area (in rad, 1 ns each), an
// interpolated waveform passes through its points and stays within them.
func TestPulserWaveforms(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wf     map[string]any
		checks func(t *testing.T, s []float64)
	}{
		{"ramp", map[string]any{"kind": "ramp", "duration": 101, "start": -5, "stop": 5}, func(t *testing.T, s []float64) {
			if s[0] != -5 || s[100] != 5 || math.Abs(s[50]) > 1e-12 {
				t.Errorf("ramp samples %v … %v … %v", s[0], s[50], s[100])
			}
		}},
		{"blackman", map[string]any{"kind": "blackman", "duration": 1000, "area": math.Pi}, func(t *testing.T, s []float64) {
			sum := 0.0
			for _, v := range s {
				sum += v
			}
			if math.Abs(sum/1e3-math.Pi) > 1e-12 || s[0] != 0 {
				t.Errorf("area %v, first %v; want π, 0", sum/1e3, s[0])
			}
		}},
		{"blackman_max", map[string]any{"kind": "blackman_max", "max_val": 10, "area": math.Pi}, func(t *testing.T, s []float64) {
			peak := 0.0
			for _, v := range s {
				peak = max(peak, v)
			}
			if peak > 10 || peak < 9.9 {
				t.Errorf("peak %v, want just under 10 (%d ns)", peak, len(s))
			}
		}},
		{"interpolated", map[string]any{"kind": "interpolated", "duration": 101, "values": []any{0, 4, 1, 3}, "times": []any{0, 0.3, 0.6, 1}}, func(t *testing.T, s []float64) {
			if s[0] != 0 || s[30] != 4 || s[60] != 1 || s[100] != 3 {
				t.Errorf("samples at the points: %v %v %v %v", s[0], s[30], s[60], s[100])
			}
			for i, v := range s {
				if v < 0 || v > 4 {
					t.Errorf("sample %d is %v, outside the values' range", i, v)
				}
			}
			// PCHIP keeps each piece monotone between its points.
			for i := 31; i <= 60; i++ {
				if s[i] > s[i-1] {
					t.Errorf("not monotone between 30 and 60 ns at %d", i)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := map[string]any{"op": "pulse", "channel": "g", "protocol": "min-delay", "phase": 0, "post_phase_shift": 0,
				"amplitude": tc.wf, "detuning": tc.wf}
			if tc.name == "ramp" {
				op["amplitude"] = map[string]any{"kind": "constant", "duration": 101, "value": 0}
			}
			p, err := analog.ProgramOf("pulser.sequence", text(t, sequence(map[string]any{"g": "rydberg_global"}, op)), device(analog.EmuTNQRN))
			if err != nil {
				t.Fatal(err)
			}
			// The detuning's samples, one a nanosecond: the program's
			// points.
			tc.checks(t, p.Detunings[0].Values)
		})
	}
}
