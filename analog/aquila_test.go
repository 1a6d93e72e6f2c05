package analog_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/analog"
	"github.com/qjobs/quantum/quantumtest"
)

// The public client's own Aquila program (75 sites in triangles 5 µm
// across, numbers as decimal strings): valid on Aquila; in the full space
// its 2^75 configurations are refused, naming the atoms and the need; with
// a blockade radius it runs, and its result is what the client reads.
func TestPublicClientAquilaProgram(t *testing.T) {
	rec := recorded(t, "aquila_job.json")
	svc, u := quantumtest.NewService(t)
	srv := quantumtest.NewServer(t, svc)
	for _, tc := range []struct {
		name string
		data any
	}{
		{"as an object", rec.Program.Data},
		{"as the client's json.dumps", string(rec.Program.Data)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"name": rec.Name, "program": map[string]any{"format": "analog", "data": tc.data},
				"shots": rec.Shots, "deviceQrn": rec.DeviceQRN}
			status, e := post(t, srv.URL, body)
			if status != 422 || len(e.Details) != 1 || e.Details[0].Field != "program.data" {
				t.Fatalf("%d %+v, want a 422 on program.data", status, e)
			}
			for _, want := range []string{"75 atoms", "2^75", "memory budget", "runtimeOptions.blockadeRadius"} {
				if !strings.Contains(e.Message, want) {
					t.Errorf("message %q does not say %q", e.Message, want)
				}
			}
			if page, _ := svc.ListJobs(context.Background(), u, quantum.JobQuery{}); len(page.Jobs) != 0 {
				t.Errorf("%d jobs stored after a refusal", len(page.Jobs))
			}
		})
	}

	// The physical blockade radius (8.4 µm at this Ω) leaves each triangle
	// a group of its own: 4^25 configurations, counted group by group and
	// refused.
	_, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{Program: &quantum.Program{Format: "analog", Data: string(rec.Program.Data)},
		Shots: rec.Shots, DeviceQRN: rec.DeviceQRN, RuntimeOptions: map[string]any{"blockadeRadius": 8.4e-6}})
	if e, ok := err.(*quantum.Error); !ok || !strings.Contains(e.Message, "within the blockade radius of 8.4e-06 m the 75 atoms have 1.13e+15 configurations") {
		t.Errorf("err %v, want the 4^25 configurations named", err)
	}

	// 35 µm groups each triangle with the triangles around it: 25,467
	// configurations. (The physical radius, 8.4 µm at this Ω, leaves each
	// triangle alone: 4^25 of them.)
	req := quantum.JobRequest{Name: rec.Name, Program: &quantum.Program{Format: "analog", Data: string(rec.Program.Data)},
		Shots: rec.Shots, DeviceQRN: rec.DeviceQRN, RuntimeOptions: map[string]any{"blockadeRadius": 3.5e-5, "seed": 11}}
	job := run(t, svc, u, req)
	if job.Status != quantum.StatusCompleted {
		t.Fatalf("%s: %s", job.Status, quantumtest.StatusMsg(job))
	}
	if job.ExperimentType != "analog" || job.EstimatedCost != 130 || job.Cost != 130 {
		t.Errorf("experimentType %q, estimatedCost %v, cost %v; want analog, 130, 130", job.ExperimentType, job.EstimatedCost, job.Cost)
	}
	md := job.Metadata
	if md["space"] != "blockade" || md["blockadeRadius"] != 3.5e-5 || md["configurations"] != 25467 || fmt.Sprint(md["numAtoms"]) != "75" || md["noiseModel"] != "Aquila" {
		t.Errorf("metadata %v", md)
	}
	res, err := svc.GetJobResult(context.Background(), u, job.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	counts := checkAnalogResult(t, res.ResultData, 75, 100)
	// The same seed, the same shots.
	again := run(t, svc, u, req)
	res2, err := svc.GetJobResult(context.Background(), u, again.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(res2.ResultData.MeasurementCounts, counts) {
		t.Error("the same seed drew other shots")
	}
}

// checkAnalogResult checks an analog result as the public client reads
// it: counts of one letter a site (e, r, g) adding up to the shots, and a
// measurement per shot whose sequences say the same; it returns the
// counts.
func checkAnalogResult(t *testing.T, rd quantum.ResultData, sites, shots int) map[string]int {
	t.Helper()
	total := 0
	for k, n := range rd.MeasurementCounts {
		if len(k) != sites || strings.Trim(k, "gre") != "" {
			t.Fatalf("key %q: want %d letters of g, r, e", k, sites)
		}
		total += n
	}
	if total != shots {
		t.Errorf("counts add up to %d, want %d", total, shots)
	}
	ms, ok := rd.Data["measurements"].([]any)
	if !ok || len(ms) != shots {
		t.Fatalf("measurements %T of %d, want one per shot", rd.Data["measurements"], len(ms))
	}
	fromShots := map[string]int{}
	for _, m := range ms {
		shot := m.(map[string]any)
		pre, post := shot["pre_sequence"].([]any), shot["post_sequence"].([]any)
		if shot["success"] != true || len(pre) != sites || len(post) != sites {
			t.Fatalf("shot %v", shot)
		}
		key := make([]byte, sites)
		for i := range pre {
			switch {
			case pre[i] == 0:
				key[i] = 'e'
				if post[i] != 0 {
					t.Fatalf("an empty site reads %v after the sequence", post[i])
				}
			case post[i] == 0:
				key[i] = 'r'
			default:
				key[i] = 'g'
			}
		}
		fromShots[string(key)]++
	}
	if !maps.Equal(fromShots, rd.MeasurementCounts) {
		t.Error("the counts are not those of the measurements")
	}
	return rd.MeasurementCounts
}

// Aquila's noise by default: filled sites found empty now and then (0.8%
// each), ground atoms read as Rydberg (0.5%); ideal has neither.
func TestAquilaNoise(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	// Ten atoms far apart, no drive: every atom stays in g.
	var sites [][2]string
	var filling []int
	for i := range 10 {
		sites = append(sites, [2]string{dec(float64(i) * 7e-6), "0"})
		filling = append(filling, 1)
	}
	times := []string{"0", "1E-7", "2E-7"}
	data := ahsProgram(sites, filling, series(times, "0", "0", "0"), series(times, "0", "0", "0"), series(times, "0", "0", "0"))
	for _, tc := range []struct {
		model      any
		empty, ryd bool
	}{{nil, true, true}, {"Aquila", true, true}, {"ideal", false, false}} {
		opts := map[string]any{"seed": 3}
		if tc.model != nil {
			opts["noiseModel"] = tc.model
		}
		job := run(t, svc, u, quantum.JobRequest{Program: &quantum.Program{Format: "analog", Data: text(t, data)}, Shots: 1000,
			DeviceQRN: analog.AquilaQRN, RuntimeOptions: opts})
		res, err := svc.GetJobResult(context.Background(), u, job.JobQRN)
		if err != nil {
			t.Fatal(err)
		}
		counts := checkAnalogResult(t, res.ResultData, 10, 1000)
		letters := map[rune]int{}
		for k, n := range counts {
			for _, c := range k {
				letters[c] += n
			}
		}
		// 10,000 readings: about 80 empty and 50 lost; none when ideal.
		if (letters['e'] > 0) != tc.empty || (letters['r'] > 0) != tc.ryd || tc.empty && (letters['e'] < 40 || letters['e'] > 130) {
			t.Errorf("noise model %v: %d empty, %d Rydberg of 10,000", tc.model, letters['e'], letters['r'])
		}
		if _, named := job.Metadata["noiseModel"]; named != tc.empty {
			t.Errorf("noise model %v: metadata %v", tc.model, job.Metadata)
		}
	}
}
