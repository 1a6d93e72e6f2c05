package console_test

import (
	"context"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

const bell = `OPENQASM 2.0;
include "qelib1.inc";
qreg q[2];
creg c[2];
h q[0];
cx q[0], q[1];
measure q -> c;
`

// spread measures n qubits after a Hadamard on each: 2^n outcomes.
func spread(n int) string {
	var b strings.Builder
	b.WriteString("OPENQASM 3.0;\ninclude \"stdgates.inc\";\n")
	b.WriteString("qubit[" + strconv.Itoa(n) + "] q;\nbit[" + strconv.Itoa(n) + "] c;\n")
	for i := range n {
		b.WriteString("h q[" + strconv.Itoa(i) + "];\n")
	}
	b.WriteString("c = measure q;\n")
	return b.String()
}

// bar is one bar of a histogram as the page drew it.
type bar struct {
	Bitstring string  `json:"bitstring"`
	Rest      bool    `json:"rest"`
	Height    float64 `json:"height"`
	YMax      float64 `json:"yMax"`
	PlotH     float64 `json:"plotH"`
}

// bars reads the bars of every histogram on the page, from the SVG.
func (e *env) bars() [][]bar {
	e.t.Helper()
	return eval[[][]bar](e, `[...document.querySelectorAll('#result .histogram svg')].map((svg) =>
		[...svg.querySelectorAll('rect.bar')].map((r) => ({
			bitstring: r.dataset.bitstring, rest: r.dataset.rest === 'true',
			height: Number(r.getAttribute('height')), yMax: Number(svg.dataset.yMax), plotH: Number(svg.dataset.plotHeight),
		})))`)
}

// checkBars checks a histogram's bars against a result's counts: the
// outcomes in bit-string order, each bar's height its probability, and
// past MAX_BARS outcomes the 64 most frequent with the rest summed last.
func checkBars(t *testing.T, got []bar, counts map[string]int) {
	t.Helper()
	total := 0
	for _, c := range counts {
		total += c
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	})
	rest := 0
	if len(keys) > 64 {
		ranked := slices.Clone(keys)
		slices.SortStableFunc(ranked, func(a, b string) int { return counts[b] - counts[a] })
		for _, k := range ranked[64:] {
			rest += counts[k]
		}
		keys = ranked[:64]
		slices.Sort(keys)
	}
	want := len(keys)
	if rest > 0 {
		want++
	}
	if len(got) != want {
		t.Fatalf("%d bars, want %d (%d outcomes)", len(got), want, len(counts))
	}
	for i, b := range got {
		p := b.Height / b.PlotH * b.YMax
		var wantP float64
		switch {
		case i < len(keys):
			if b.Bitstring != keys[i] || b.Rest {
				t.Errorf("bar %d is %q, want %q", i, b.Bitstring, keys[i])
			}
			wantP = float64(counts[keys[i]]) / float64(total)
		default:
			if !b.Rest {
				t.Errorf("the last bar is %q, want the rest summed", b.Bitstring)
			}
			wantP = float64(rest) / float64(total)
		}
		if math.Abs(p-wantP) > 1e-6 {
			t.Errorf("bar %d (%s): height %.2f of %.0f (axis to %.3f) says p=%.6f, want %.6f", i, b.Bitstring, b.Height, b.PlotH, b.YMax, p, wantP)
		}
	}
}

// qrnOfPage is the job QRN of the job page the browser shows.
func (e *env) qrnOfPage() string {
	e.t.Helper()
	loc := value(e, chromedp.Location())
	_, frag, _ := strings.Cut(loc, "#/jobs/")
	qrn, err := url.PathUnescape(frag)
	if err != nil || qrn == "" {
		e.t.Fatalf("not a job page: %s", loc)
	}
	return qrn
}

// A newcomer's path: sign in, fill the form with the Bell example, see the
// cost, submit, and watch the job reach COMPLETED on its page without a
// reload; its histogram's bars are the result's counts.
func TestSubmitBellAndWatchItComplete(t *testing.T) {
	e := newEnv(t)
	e.signIn(quantumtest.APIKey)
	e.open("/submit")
	e.waitJS(`document.querySelector('#device').value === 'qbraid:qbraid:sim:qir-sv'`)
	e.run(
		chromedp.Click(chromedp.ID("example")),
		chromedp.SetValue(chromedp.ID("shots"), "1000"),
		chromedp.SendKeys(chromedp.ID("seed"), "7"),
		chromedp.SendKeys(chromedp.ID("job-tags"), "team=red, run=1"),
	)
	e.waitJS(`document.querySelector('#estimate').textContent.startsWith('Estimated cost: 0 credits')`)
	// A mark that a reload would wipe.
	eval[chromedp.Void](e, `window.notReloaded = true`)
	e.run(chromedp.Click(chromedp.ID("submit")))
	e.waitJS(`location.hash.startsWith('#/jobs/')`)
	qrn := e.qrnOfPage()
	e.visible(`#job-status [data-status="COMPLETED"]`)
	e.visible(`#result .histogram svg`)
	if !eval[bool](e, `window.notReloaded === true`) {
		t.Error("the page reloaded on its way to COMPLETED")
	}

	job, err := e.svc.GetJob(context.Background(), e.user, qrn)
	if err != nil {
		t.Fatal(err)
	}
	if job.Name != "Bell pair" || job.Shots != 1000 || job.Tags["team"] != "red" || job.Tags["run"] != int64(1) {
		t.Errorf("job made by the form: name %q, shots %d, tags %v", job.Name, job.Shots, job.Tags)
	}
	if got := e.text("#details-h + div"); !strings.Contains(got, "qbraid:qbraid:sim:qir-sv") {
		t.Errorf("details do not name the device: %q", got)
	}
	res, err := e.svc.GetJobResult(context.Background(), e.user, qrn)
	if err != nil {
		t.Fatal(err)
	}
	got := e.bars()
	if len(got) != 1 {
		t.Fatalf("%d histograms, want 1", len(got))
	}
	checkBars(t, got[0], res.ResultData.MeasurementCounts)
	if !e.has(`#timeline [data-status="COMPLETED"]`) || !e.has(`#timeline [data-status="CREATED"]`) {
		t.Errorf("timeline: %q", e.text("#timeline"))
	}
	e.screenshot("console-job.png")
}

// has reports whether an element matches sel now.
func (e *env) has(sel string) bool {
	e.t.Helper()
	return eval[bool](e, `document.querySelector(`+quote(sel)+`) !== null`)
}

// The histogram draws every outcome up to 64, and past that the 64 most
// frequent and the rest summed; a batch has one histogram per circuit.
func TestHistograms(t *testing.T) {
	for _, tc := range []struct {
		name     string
		programs []string
		caption  string // in the first histogram's caption
	}{
		{"one outcome", []string{"OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ncreg c[1];\nmeasure q -> c;\n"}, "1 outcome over 2,000 shots"},
		{"eight outcomes", []string{spread(3)}, "8 outcomes"},
		{"more than 64 outcomes", []string{spread(8)}, "64 most frequent of 256 outcomes"},
		{"a batch", []string{bell, spread(2), spread(3)}, "Circuit 1 of 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			req := quantum.JobRequest{Shots: 2000, DeviceQRN: "qbraid:qbraid:sim:qir-sv", Name: tc.name, RuntimeOptions: map[string]any{"seed": 3}}
			if len(tc.programs) == 1 {
				req.Program = &quantum.Program{Format: "qasm3", Data: tc.programs[0]}
				if strings.HasPrefix(tc.programs[0], "OPENQASM 2") {
					req.Program.Format = "qasm2"
				}
			} else {
				for _, p := range tc.programs {
					f := "qasm3"
					if strings.HasPrefix(p, "OPENQASM 2") {
						f = "qasm2"
					}
					req.Batch = append(req.Batch, quantum.Program{Format: f, Data: p})
				}
			}
			job := e.create(e.user, req)
			quantumtest.WaitForJob(t, e.svc, e.user, job.JobQRN)
			res, err := e.svc.GetJobResult(context.Background(), e.user, job.JobQRN)
			if err != nil {
				t.Fatal(err)
			}
			e.signIn(quantumtest.APIKey)
			e.open(jobRoute(job.JobQRN))
			e.visible(`#result .histogram svg`)
			if got := e.text("#result figcaption"); !strings.Contains(got, tc.caption) {
				t.Errorf("caption %q, want it to say %q", got, tc.caption)
			}
			got := e.bars()
			if res.Results == nil {
				if len(got) != 1 {
					t.Fatalf("%d histograms, want 1", len(got))
				}
				checkBars(t, got[0], res.ResultData.MeasurementCounts)
				return
			}
			if len(got) != len(res.Results) {
				t.Fatalf("%d histograms, want one per circuit (%d)", len(got), len(res.Results))
			}
			for i, c := range res.Results {
				checkBars(t, got[i], c.ResultData.MeasurementCounts)
			}
			if n := eval[int](e, `document.querySelectorAll('#program details').length`); n != len(tc.programs) {
				t.Errorf("%d programs shown, want %d", n, len(tc.programs))
			}
		})
	}
}

// A refused submit shows the API's own message, and the form stays as it
// was for another try.
func TestSubmitErrors(t *testing.T) {
	e := newEnv(t)
	e.signIn(quantumtest.APIKey)
	for _, tc := range []struct {
		name, program, shots string
	}{
		{"a program that does not parse", "OPENQASM 2.0;\nqreg q[2];\nfoo q[0];\n", "10"},
		{"no shots", bell, "0"},
		{"too many shots", bell, "1000001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.open("/submit")
			e.waitJS(`document.querySelector('#device').value === 'qbraid:qbraid:sim:qir-sv'`)
			e.run(chromedp.SetValue(chromedp.ID("program"), tc.program), chromedp.SetValue(chromedp.ID("format"), "qasm2"),
				chromedp.SetValue(chromedp.ID("shots"), tc.shots), chromedp.Click(chromedp.ID("submit")))
			e.visible("#submit-error")
			shots, _ := strconv.Atoi(tc.shots)
			_, apiErr := e.svc.CreateJob(context.Background(), e.user, quantum.JobRequest{
				Program: &quantum.Program{Format: "qasm2", Data: tc.program}, Shots: shots, DeviceQRN: "qbraid:qbraid:sim:qir-sv"})
			if apiErr == nil {
				t.Fatal("the API took the job")
			}
			if got, want := e.text("#submit-error"), apiErr.(*quantum.Error).Message; !strings.HasPrefix(got, want) {
				t.Errorf("error shown %q, want the API's %q", got, want)
			}
			if !strings.HasPrefix(value(e, chromedp.Location()), e.url+"#/submit") {
				t.Error("left the form after an error")
			}
		})
	}
}

// Uploading QIR bitcode picks its format and sends it as base64; the job's
// page shows the program as its size, with a download.
func TestUploadBitcode(t *testing.T) {
	file, err := filepath.Abs("../examples/programs/bell.bc")
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.signIn(quantumtest.APIKey)
	e.open("/submit")
	e.waitJS(`document.querySelector('#device').value === 'qbraid:qbraid:sim:qir-sv'`)
	e.run(chromedp.SetUploadFiles(chromedp.ID("program-file"), []string{file}))
	e.waitJS(`document.querySelector('#format').value === 'qir.bc' && document.querySelector('#name').value === 'bell.bc'`)
	e.run(chromedp.Click(chromedp.ID("submit")))
	e.visible(`#job-status [data-status="COMPLETED"]`)
	e.visible(".program-bitcode")
	got := e.text(".program-bitcode p")
	if !strings.HasPrefix(got, "Format qir.bc: LLVM bitcode, ") {
		t.Errorf("program shown as %q", got)
	}
	// The size is written with the browser's thousands separator.
	if digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.TrimPrefix(got, "Format qir.bc")); digits != strconv.FormatInt(info.Size(), 10) {
		t.Errorf("program shown as %q, want %d bytes", got, info.Size())
	}
	e.visible(".program-bitcode button.download-program")
}

// gated runs jobs on the built-in simulator once the test opens its gate.
type gated struct {
	quantum.Backend
	open chan struct{}
}

func (g *gated) Run(ctx context.Context, t quantum.Task) (*quantum.RunResult, error) {
	select {
	case <-g.open:
		return g.Backend.Run(ctx, t)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A job's page follows the job: RUNNING, then COMPLETED with its
// histogram, as they happen, without a reload; the timeline gains each
// status.
func TestJobPageIsLive(t *testing.T) {
	e := newEnv(t)
	gate := &gated{Backend: e.svc.Simulator(), open: make(chan struct{})}
	const device = "qbraid:qbraid:sim:gated"
	if err := e.svc.RegisterDevice(quantumtest.Device(device), gate); err != nil {
		t.Fatal(err)
	}
	e.signIn(quantumtest.APIKey)
	e.open("/submit?device=" + strings.ReplaceAll(device, ":", "%3A"))
	e.waitJS(`document.querySelector('#device').value === ` + quote(device))
	e.run(chromedp.Click(chromedp.ID("example")))
	e.waitJS(`document.querySelector('#format').value === 'qasm3'`)
	eval[chromedp.Void](e, `window.notReloaded = true`)
	e.run(chromedp.Click(chromedp.ID("submit")))
	e.visible(`#job-status [data-status="RUNNING"]`)
	qrn := e.qrnOfPage()
	if e.has("#result .histogram") {
		t.Error("a histogram before the job completed")
	}
	close(gate.open)
	e.visible(`#job-status [data-status="COMPLETED"]`)
	e.visible(`#result .histogram svg`)
	res, err := e.svc.GetJobResult(context.Background(), e.user, qrn)
	if err != nil {
		t.Fatal(err)
	}
	checkBars(t, e.bars()[0], res.ResultData.MeasurementCounts)
	steps := eval[[]string](e, `[...document.querySelectorAll('#timeline li')].map((li) => li.dataset.status)`)
	if len(steps) < 3 || steps[0] != "CREATED" || steps[len(steps)-2] != "RUNNING" || steps[len(steps)-1] != "COMPLETED" {
		t.Errorf("timeline %q, want CREATED … RUNNING COMPLETED", steps)
	}
	if !eval[bool](e, `window.notReloaded === true`) {
		t.Error("the page reloaded")
	}
}

// The submit page offers the formats the chosen device takes, by the
// names a program is sent as: the QVM Quil only, and its Bell example in
// Quil; the IonQ Simulator IonQ JSON beside OpenQASM and QIR. An IonQ
// circuit uploaded as a file is sent, runs and is shown as JSON.
func TestSubmitOffersTheDevicesFormats(t *testing.T) {
	e := newEnv(t)
	e.signIn(quantumtest.APIKey)
	e.open("/submit?device=azure:rigetti:sim:qvm")
	e.waitJS(`document.querySelector('#device').value === 'azure:rigetti:sim:qvm'`)
	if got := eval[string](e, `[...document.querySelector('#format').options].map((o) => o.value).join(' ')`); got != "quil" {
		t.Errorf("formats offered on the QVM: %q, want quil", got)
	}
	e.run(chromedp.Click(chromedp.ID("example")))
	e.waitJS(`document.querySelector('#program').value.includes('CNOT 0 1')`)
	e.run(chromedp.Click(chromedp.ID("submit")))
	e.visible(`#job-status [data-status="COMPLETED"]`)
	res, err := e.svc.GetJobResult(context.Background(), e.user, e.qrnOfPage())
	if err != nil {
		t.Fatal(err)
	}
	for k := range res.ResultData.MeasurementCounts {
		if k != "00" && k != "11" {
			t.Errorf("the Quil Bell pair measured %s", k)
		}
	}

	file, err := filepath.Abs("../examples/programs/bell.ionq.json")
	if err != nil {
		t.Fatal(err)
	}
	e.open("/submit?device=ionq:ionq:sim:simulator")
	e.waitJS(`document.querySelector('#device').value === 'ionq:ionq:sim:simulator'`)
	if got := eval[string](e, `[...document.querySelector('#format').options].map((o) => o.value).join(' ')`); !strings.HasSuffix(got, " ionq.circuit.v0") || !strings.HasPrefix(got, "qasm2 qasm3") {
		t.Errorf("formats offered on the IonQ Simulator: %q", got)
	}
	e.run(chromedp.SetUploadFiles(chromedp.ID("program-file"), []string{file}))
	e.waitJS(`document.querySelector('#format').value === 'ionq.circuit.v0'`)
	e.run(chromedp.Click(chromedp.ID("submit")))
	e.visible(`#job-status [data-status="COMPLETED"]`)
	e.visible("pre.program")
	if got := e.text("pre.program"); !strings.Contains(got, `"gate": "cnot"`) {
		t.Errorf("the IonQ program shown as %q, want its JSON", got)
	}
}
