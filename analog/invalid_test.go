package analog_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/analog"
	"github.com/qjobs/quantum/quantumtest"
)

// validAHS is a small program within Aquila's limits: two atoms 5 µm
// apart, Ω up and down over 1 µs, a detuning sweep.
func validAHS() map[string]any {
	times := func() []string { return []string{"0", "1E-7", "9E-7", "1E-6"} } // one slice a series
	return ahsProgram([][2]string{{"0", "0"}, {"5E-6", "0"}}, []int{1, 1},
		series(times(), "0", "1.5E7", "1.5E7", "0"), series(times(), "0", "0", "0", "0"), series(times(), "-2E7", "-2E7", "2E7", "2E7"))
}

func hamiltonian(m map[string]any) map[string]any { return m["hamiltonian"].(map[string]any) }

func field(m map[string]any, name string) map[string]any {
	return hamiltonian(m)["drivingFields"].([]any)[0].(map[string]any)[name].(map[string]any)
}

func timeSeries(f map[string]any) map[string]any { return f["time_series"].(map[string]any) }

// Everything Aquila and the format rule out is a 422 naming the JSON path
// of what is wrong, and nothing is stored.
func TestInvalidAnalogPrograms(t *testing.T) {
	local := func(pattern any, values ...string) map[string]any {
		return map[string]any{"magnitude": map[string]any{"time_series": map[string]any{"times": []string{"0", "1E-6"}, "values": values}, "pattern": pattern}}
	}
	amp := "program.data.hamiltonian.drivingFields[0].amplitude"
	det := "program.data.hamiltonian.drivingFields[0].detuning"
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		opts   map[string]any
		path   string
		says   string
	}{
		{"too many sites", func(m map[string]any) {
			var sites []any
			var filling []int
			for i := range 257 {
				sites = append(sites, []any{dec(float64(i%17) * 4e-6), dec(float64(i/17) * 4e-6)})
				filling = append(filling, 0)
			}
			filling[0] = 1
			m["register"] = map[string]any{"sites": sites, "filling": filling}
		}, nil, "program.data.register.sites", "257 sites"},
		{"sites too close", func(m map[string]any) {
			m["register"].(map[string]any)["sites"].([]any)[1] = []any{"3E-6", "0"}
		}, nil, "program.data.register.sites[1]", "at least 4e-06 m apart"},
		{"sites too far apart", func(m map[string]any) {
			m["register"].(map[string]any)["sites"].([]any)[1] = []any{"8E-5", "0"}
		}, nil, "program.data.register.sites", "area is 7.5e-05 m wide"},
		{"too long", func(m map[string]any) {
			for _, f := range []string{"amplitude", "phase", "detuning"} {
				timeSeries(field(m, f))["times"].([]string)[3] = "5E-6"
			}
		}, nil, amp + ".time_series.times[3]", "at most 4e-06 s"},
		{"Ω above Aquila's", func(m map[string]any) {
			timeSeries(field(m, "amplitude"))["values"].([]string)[1] = "2E7"
		}, nil, amp + ".time_series.values[1]", "[0, 1.58e+07] rad/s"},
		{"Ω not starting at 0", func(m map[string]any) {
			timeSeries(field(m, "amplitude"))["values"].([]string)[0] = "1E6"
		}, nil, amp + ".time_series.values[0]", "starts and ends at 0"},
		{"Ω not ending at 0", func(m map[string]any) {
			timeSeries(field(m, "amplitude"))["values"].([]string)[3] = "1E6"
		}, nil, amp + ".time_series.values[3]", "starts and ends at 0"},
		{"Δ out of range", func(m map[string]any) {
			timeSeries(field(m, "detuning"))["values"].([]string)[1] = "2E8"
		}, nil, det + ".time_series.values[1]", "detuning is in"},
		{"a slew rate past Aquila's", func(m map[string]any) {
			timeSeries(field(m, "amplitude"))["times"].([]string)[1] = "1E-8"
		}, nil, amp + ".time_series.values[1]", "slew rate"},
		{"a time step under 50 ns", func(m map[string]any) {
			timeSeries(field(m, "amplitude"))["times"].([]string)[1] = "1E-8"
		}, nil, amp + ".time_series.times[1]", "at least 5e-08 s"},
		{"times not increasing", func(m map[string]any) {
			timeSeries(field(m, "amplitude"))["times"].([]string)[2] = "5E-8"
		}, nil, amp + ".time_series.times[2]", "times increase strictly"},
		{"a series of different lengths", func(m map[string]any) {
			timeSeries(field(m, "amplitude"))["values"] = []string{"0", "1E7", "0"}
		}, nil, amp + ".time_series.values", "3 values for 4 times"},
		{"series of different ends", func(m map[string]any) {
			timeSeries(field(m, "detuning"))["times"].([]string)[3] = "9.5E-7"
		}, nil, det + ".time_series.times", "every time series ends at the same time"},
		{"two driving fields", func(m map[string]any) {
			h := hamiltonian(m)
			h["drivingFields"] = append(h["drivingFields"].([]any), h["drivingFields"].([]any)[0])
		}, nil, "program.data.hamiltonian.drivingFields", "one driving field, got 2"},
		{"a driving field's pattern not uniform", func(m map[string]any) {
			field(m, "amplitude")["pattern"] = []any{1, 1}
		}, nil, amp + ".pattern", `"uniform"`},
		{"two local detunings", func(m map[string]any) {
			hamiltonian(m)["localDetuning"] = []any{local([]any{1, 0}, "0", "0"), local([]any{1, 0}, "0", "0")}
		}, nil, "program.data.hamiltonian.localDetuning", "at most one"},
		{"a pattern of the wrong length", func(m map[string]any) {
			hamiltonian(m)["localDetuning"] = []any{local([]any{1, 0, 1}, "0", "0")}
		}, nil, "program.data.hamiltonian.localDetuning[0].magnitude.pattern", "3 factors for 2 sites"},
		{"a pattern out of range", func(m map[string]any) {
			hamiltonian(m)["localDetuning"] = []any{local([]any{"1.5", 0}, "0", "0")}
		}, nil, "program.data.hamiltonian.localDetuning[0].magnitude.pattern[0]", "[0, 1]"},
		{"a local detuning past Aquila's", func(m map[string]any) {
			hamiltonian(m)["localDetuning"] = []any{local([]any{1, 0}, "0", "2E8")}
		}, nil, "program.data.hamiltonian.localDetuning[0].magnitude.time_series.values[1]", "local detuning"},
		{"a filling not 0 or 1", func(m map[string]any) {
			m["register"].(map[string]any)["filling"] = []int{2, 1}
		}, nil, "program.data.register.filling[0]", "0 (empty) or 1 (filled)"},
		{"a filling of the wrong length", func(m map[string]any) {
			m["register"].(map[string]any)["filling"] = []int{1}
		}, nil, "program.data.register.filling", "1 entries for 2 sites"},
		{"a value that is no number", func(m map[string]any) {
			timeSeries(field(m, "phase"))["values"].([]string)[2] = "π"
		}, nil, "program.data.hamiltonian.drivingFields[0].phase.time_series.values[2]", "decimal number"},
		{"no hamiltonian", func(m map[string]any) { delete(m, "hamiltonian") }, nil, "program.data.hamiltonian", "required"},
		{"a negative blockade radius", func(map[string]any) {}, map[string]any{"blockadeRadius": -1e-6}, "runtimeOptions.blockadeRadius", "0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := validAHS()
			tc.change(m)
			refused(t, quantum.JobRequest{Program: &quantum.Program{Format: "analog", Data: text(t, m)}, Shots: 10,
				DeviceQRN: analog.AquilaQRN, RuntimeOptions: tc.opts}, tc.path, tc.says)
		})
	}
}

// Pulser's unassigned variables, the operations and bases this service
// does not simulate, and the device's limits: a 422 naming the path.
func TestInvalidPulserSequences(t *testing.T) {
	rec := recorded(t, "pasqal_job.json")
	seq := "program.data.sequence_builder"
	op := func(m map[string]any, o map[string]any) {
		sb := m["sequence_builder"].(map[string]any)
		sb["operations"] = append(sb["operations"].([]any), o)
	}
	pulse0 := func(m map[string]any) map[string]any {
		return m["sequence_builder"].(map[string]any)["operations"].([]any)[0].(map[string]any)
	}
	sb := func(m map[string]any) map[string]any { return m["sequence_builder"].(map[string]any) }
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		path   string
		says   string
	}{
		{"an unassigned variable", func(m map[string]any) {
			sb(m)["variables"] = map[string]any{"t": map[string]any{"type": "int"}}
			pulse0(m)["amplitude"].(map[string]any)["duration"] = map[string]any{"variable": "t"}
		}, seq + ".variables.t.value", "unassigned"},
		{"an undeclared variable", func(m map[string]any) {
			pulse0(m)["amplitude"].(map[string]any)["area"] = map[string]any{"variable": "a"}
		}, seq + ".operations[0].amplitude.area.variable", "does not declare"},
		{"EOM mode", func(m map[string]any) {
			op(m, map[string]any{"op": "enable_eom_mode", "channel": "ch0", "amp_on": 1, "detuning_on": 0, "optimal_detuning_off": 0})
		}, seq + ".operations[1].op", "EOM"},
		{"an SLM mask", func(m map[string]any) {
			op(m, map[string]any{"op": "config_slm_mask", "qubits": []any{"q0"}, "dmm_id": "dmm_0"})
		}, seq + ".operations[1].op", "SLM"},
		{"SLM mask targets", func(m map[string]any) { sb(m)["slm_mask_targets"] = []any{"q0"} }, seq + ".slm_mask_targets", "SLM"},
		{"a DMM detuning", func(m map[string]any) {
			op(m, map[string]any{"op": "add_dmm_detuning", "dmm_name": "dmm_0", "waveform": map[string]any{"kind": "constant", "duration": 100, "value": -1}, "protocol": "min-delay"})
		}, seq + ".operations[1].op", "DMM"},
		{"a channel of another basis", func(m map[string]any) { sb(m)["channels"] = map[string]any{"ch0": "raman_local"} }, seq + ".channels.ch0", "basis"},
		{"a digital measurement", func(m map[string]any) { sb(m)["measurement"] = "digital" }, seq + ".measurement", "ground-rydberg"},
		{"a phase shift in another basis", func(m map[string]any) {
			op(m, map[string]any{"op": "phase_shift", "phi": 1, "targets": []any{0}, "basis": "digital"})
		}, seq + ".operations[1].basis", "ground-rydberg"},
		{"a Kaiser waveform", func(m map[string]any) {
			pulse0(m)["amplitude"] = map[string]any{"kind": "kaiser", "duration": 1000, "area": 3.14, "beta": 14}
		}, seq + ".operations[0].amplitude.kind", "not supported"},
		{"an amplitude above the channel's", func(m map[string]any) {
			pulse0(m)["amplitude"].(map[string]any)["area"] = 30
		}, seq + ".operations[0].amplitude", "goes up to"},
		{"an undeclared channel", func(m map[string]any) { pulse0(m)["channel"] = "ch9" }, seq + ".operations[0].channel", "does not declare"},
		{"too many atoms", func(m map[string]any) {
			var reg []any
			for i := range 101 {
				reg = append(reg, map[string]any{"name": "q" + dec(float64(i)), "x": float64(i%10) * 5, "y": float64(i/10) * 5})
			}
			sb(m)["register"] = reg
		}, seq + ".register", "101 atoms"},
		{"atoms too close", func(m map[string]any) {
			sb(m)["register"].([]any)[1] = map[string]any{"name": "q1", "x": 0, "y": 3}
		}, seq + ".register[1]", "at least 4 µm apart"},
		{"an unknown device", func(m map[string]any) { sb(m)["device"] = "Fresnel2" }, seq + ".device", "known by name"},
		{"a waveform too long to sample", func(m map[string]any) {
			pulse0(m)["amplitude"].(map[string]any)["duration"] = 1 << 26
		}, seq + ".operations[0].amplitude.duration", "at most 20000 ns"},
		{"a sequence too long to sample", func(m map[string]any) {
			op(m, map[string]any{"op": "delay", "channel": "ch0", "time": 1 << 26})
		}, seq + ".operations", "at most 20000 ns"},
		{"no sequence_builder", func(m map[string]any) { delete(m, "sequence_builder") }, seq, "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := object(t, rec.Program.Data)
			tc.change(m)
			refused(t, quantum.JobRequest{Program: &quantum.Program{Format: "pulser.sequence", Data: text(t, m)}, Shots: 10,
				DeviceQRN: analog.EmuTNQRN}, tc.path, tc.says)
		})
	}
}

// refused checks that a create is a 422 with a detail on path saying
// says, and that nothing was stored.
func refused(t *testing.T, req quantum.JobRequest, path, says string) {
	t.Helper()
	svc, u := quantumtest.NewService(t)
	_, err := svc.CreateJob(context.Background(), u, req)
	e, ok := err.(*quantum.Error)
	if !ok || e.Code != quantum.EVALIDATION {
		t.Fatalf("err %v, want a VALIDATION_ERROR", err)
	}
	i := slices.IndexFunc(e.Details, func(f quantum.FieldError) bool { return f.Field == path })
	if i < 0 {
		t.Fatalf("no detail on %s: %s", path, e.Message)
	}
	if !strings.Contains(e.Details[i].Message, says) {
		t.Errorf("%s: %q does not say %q", path, e.Details[i].Message, says)
	}
	if page, _ := svc.ListJobs(context.Background(), u, quantum.JobQuery{}); len(page.Jobs) != 0 {
		t.Errorf("%d jobs stored after a refusal", len(page.Jobs))
	}
}
