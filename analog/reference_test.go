package analog_test

import (
	"context"
	"math"
	"math/cmplx"
	"testing"

	"github.com/qjobs/quantum/analog"
	"github.com/qjobs/quantum/internal/rydbergref"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/rydberg"
)

// agree bounds the 2-norm of the difference between a job's final state
// and the reference's: the simulator's tolerance, 1e-8, and a little.
const agree = 1.5e-8

// checkAgainst simulates the program a device makes of data and compares
// its final state with the dense reference's for want, the same physics
// written out by hand in the simulator's units.
func checkAgainst(t *testing.T, format, data string, d *qtype.Device, want *rydberg.Program) {
	t.Helper()
	p, err := analog.ProgramOf(format, data, d)
	if err != nil {
		t.Fatal(err)
	}
	st, err := rydberg.Evolve(context.Background(), p, rydberg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	space := rydbergref.Space(want, 0)
	if dist := rydbergref.Distance(st, len(want.Atoms), space, rydbergref.Evolve(want, space)); dist > agree {
		t.Errorf("the job's state is %.3g from the reference's, want at most %g", dist, agree)
	}
}

func device(qrn string) *qtype.Device {
	for _, d := range analog.Devices(qtype.Job{}.TimeStamps.CreatedAt) {
		if d.QRN == qrn {
			return &d
		}
	}
	return nil
}

// An analog program in both of its forms: SI units and decimal strings,
// an empty site, a phase step, a local detuning; the reference is given
// the same Hamiltonian in µm, µs and rad/µs.
func TestAnalogAgainstReference(t *testing.T) {
	times := func() []string { return []string{"0", "1E-7", "5E-7", "9E-7", "1E-6"} }
	data := ahsProgram([][2]string{{"0", "0"}, {"2E-5", "0"}, {"6E-6", "0"}}, []int{1, 0, 1},
		series(times(), "0", "1.2E7", "1.2E7", "1.2E7", "0"),
		series(times(), "0", "0", "1.5707963267948966", "1.5707963267948966", "0"),
		series(times(), "-2E7", "-2E7", "0", "2E7", "2E7"),
		map[string]any{"magnitude": map[string]any{"time_series": map[string]any{"times": []string{"0", "1E-6"}, "values": []string{"0", "1E7"}},
			"pattern": []any{"1", "0", "0.5"}}})
	c := func(omega, phi float64) complex128 { return cmplx.Rect(omega, phi) }
	want := &rydberg.Program{
		Atoms: []rydberg.Atom{{}, {X: 6}}, C6: 5.42e6, Duration: 1,
		Drives: []rydberg.Drive{{Times: []float64{0, 0.1, 0.5, 0.5, 0.9, 1},
			Values: []complex128{0, c(12, 0), c(12, 0), c(12, math.Pi/2), c(12, math.Pi/2), 0}}},
		Detunings: []rydberg.Detuning{
			{Times: []float64{0, 0.1, 0.5, 0.9, 1}, Values: []float64{-20, -20, 0, 20, 20}},
			{Weights: []float64{1, 0.5}, Times: []float64{0, 1}, Values: []float64{0, 10}},
		},
	}
	aquila := device(analog.AquilaQRN)
	t.Run("the public client's form", func(t *testing.T) {
		checkAgainst(t, "analog", text(t, data), aquila, want)
	})
	t.Run("Braket's IR", func(t *testing.T) {
		h := data["hamiltonian"].(map[string]any)
		ir := map[string]any{
			"braketSchemaHeader": map[string]any{"name": "braket.ir.ahs.program", "version": "1"},
			"setup":              map[string]any{"ahs_register": data["register"]},
			"hamiltonian":        map[string]any{"drivingFields": h["drivingFields"], "shiftingFields": h["localDetuning"]},
		}
		checkAgainst(t, "analog", text(t, ir), aquila, want)
	})
}

// Pulser's example sequence (decisions.md, the public client's test): a
// Blackman pulse of area π over 1,000 ns and a detuning ramp from −5 to 5
// rad/µs on six atoms, C6 of level 70. The reference gets the waveforms
// as this test samples them from Pulser's definitions: sample k the value
// at k ns, joined by straight lines to the last.
func TestPulserExampleAgainstReference(t *testing.T) {
	rec := recorded(t, "pasqal_job.json")
	const n = 1000
	times := make([]float64, n)
	omega := make([]complex128, n)
	delta := make([]float64, n)
	sum := 0.0
	for k := range n {
		x := 2 * math.Pi * float64(k) / (n - 1)
		w := max(0.42-0.5*math.Cos(x)+0.08*math.Cos(2*x), 0)
		omega[k] = complex(w, 0)
		sum += w
		delta[k] = -5 + 10*float64(k)/(n-1)
		times[k] = float64(k) / 1000
	}
	for k := range omega {
		omega[k] *= complex(math.Pi/sum*1e3, 0) // the area, π, in rad with samples 1 ns apart
	}
	want := &rydberg.Program{
		Atoms: []rydberg.Atom{{X: 0, Y: 0}, {X: 0, Y: 10}, {X: 8, Y: 2}, {X: 1, Y: 15}, {X: -10, Y: -3}, {X: -8, Y: 5}},
		C6:    5420158.53, Duration: 0.999,
		Drives:    []rydberg.Drive{{Times: times, Values: omega}},
		Detunings: []rydberg.Detuning{{Times: times, Values: delta}},
	}
	checkAgainst(t, "pulser.sequence", string(rec.Program.Data), device(analog.EmuTNQRN), want)
}
