package console_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// site is a circle of the register's picture as the page drew it.
type site struct {
	Site    int     `json:"site"`
	Rydberg float64 `json:"rydberg"`
	Empty   bool    `json:"empty"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
}

func (e *env) sites() []site {
	e.t.Helper()
	return eval[[]site](e, `[...document.querySelectorAll('#result .register circle')].map((c) => ({
		site: Number(c.dataset.site), rydberg: Number(c.dataset.rydberg || 0), empty: c.dataset.empty === 'true',
		x: Number(c.getAttribute('cx')), y: Number(c.getAttribute('cy')) }))`)
}

// An analog job's page: its g/r/e counts as the histogram, and its
// register as a picture, each site where the program puts it, shaded by
// how often it was found in the Rydberg state; an empty site hollow.
func TestAnalogResult(t *testing.T) {
	aquila := map[string]any{
		"register": map[string]any{
			"sites":   [][]string{{"0", "0"}, {"2E-5", "0"}, {"0", "2E-5"}, {"2E-5", "2E-5"}},
			"filling": []int{1, 1, 0, 1},
		},
		"hamiltonian": map[string]any{"drivingFields": []any{map[string]any{
			// Atoms 20 µm apart hardly interact: each turns by the pulse's
			// area, 2 rad, and is found in r sin²(1) ≈ 71% of the time.
			"amplitude": series([]string{"0", "1E-7", "2E-7", "3E-7"}, "0", "1E7", "1E7", "0"),
			"phase":     series([]string{"0", "3E-7"}, "0", "0"),
			"detuning":  series([]string{"0", "3E-7"}, "0", "0"),
		}}, "localDetuning": []any{}},
	}
	data, err := json.Marshal(aquila)
	if err != nil {
		t.Fatal(err)
	}
	pulser, err := os.ReadFile("../analog/testdata/pasqal_job.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Program struct {
			Data json.RawMessage `json:"data"`
		} `json:"program"`
	}
	if err := json.Unmarshal(pulser, &rec); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, format, device, data string
		sites                      int
		rydberg                    byte
	}{
		{"analog on Aquila", "analog", "aws:quera:qpu:aquila", string(data), 4, 'r'},
		{"pulser.sequence on Pasqal's emulator", "pulser.sequence", "azure:pasqal:sim:emu-tn", string(rec.Program.Data), 6, '1'},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			job := e.create(e.user, quantum.JobRequest{Name: tc.name, Program: &quantum.Program{Format: tc.format, Data: tc.data},
				Shots: 1000, DeviceQRN: tc.device, RuntimeOptions: map[string]any{"seed": 5}})
			quantumtest.WaitForJob(t, e.svc, e.user, job.JobQRN)
			res, err := e.svc.GetJobResult(context.Background(), e.user, job.JobQRN)
			if err != nil {
				t.Fatal(err)
			}
			counts := res.ResultData.MeasurementCounts
			e.signIn(quantumtest.APIKey)
			e.open(jobRoute(job.JobQRN))
			e.visible(`#result .histogram svg`)
			e.visible(`#result .register svg`)
			checkBars(t, e.bars()[0], counts)
			got := e.sites()
			if len(got) != tc.sites {
				t.Fatalf("%d sites drawn, want %d", len(got), tc.sites)
			}
			for i, s := range got {
				want := 0.0
				for k, n := range counts {
					if k[i] == tc.rydberg {
						want += float64(n) / 1000
					}
				}
				if s.Site != i || math.Abs(s.Rydberg-want) > 1e-9 || s.Empty != (tc.format == "analog" && i == 2) {
					t.Errorf("site %d drawn as %+v, want Rydberg %.3f", i, s, want)
				}
			}
			if tc.format == "analog" {
				// The program's square, as the picture's: x to the right, y up.
				if !(got[1].X > got[0].X && got[2].Y < got[0].Y && math.Abs(got[3].X-got[1].X) < 1e-6) {
					t.Errorf("sites at %+v, not the program's square", got)
				}
			}
			if prog := e.text("#program pre"); !strings.Contains(prog, `"register"`) && !strings.Contains(prog, `"sequence_builder"`) {
				t.Errorf("the program reads %.80q, not its JSON", prog)
			}
			if tc.format == "analog" {
				e.screenshot("console-analog.png")
			}
		})
	}
}

// series is a time series of an analog program, as the public client
// writes it.
func series(times []string, values ...string) map[string]any {
	return map[string]any{"time_series": map[string]any{"times": times, "values": values}, "pattern": "uniform"}
}
