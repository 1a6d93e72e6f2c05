package console_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

const annealer = "qbraid:nec:sim:vector-annealer"

// pyQUBO is pyqubo's (4·s1 + 2·s2 + 7·s3 + s4)² as the public client sends
// it: a JSON string, every term in quadratic.
const pyQUBO = `{"problem_type": "qubo", "quadratic": {"[\"s1\", \"s1\"]": -160.0, "[\"s4\", \"s2\"]": 16.0, "[\"s1\", \"s2\"]": 64.0, "[\"s2\", \"s2\"]": -96.0, "[\"s3\", \"s2\"]": 112.0, "[\"s3\", \"s3\"]": -196.0, "[\"s1\", \"s3\"]": 224.0, "[\"s1\", \"s4\"]": 32.0, "[\"s4\", \"s3\"]": 56.0, "[\"s4\", \"s4\"]": -52.0}}`

// solutionRow is one row of the solutions table as the page drew it.
type solutionRow struct {
	Cells []string `json:"cells"`
}

func (e *env) solutionRows() []solutionRow {
	e.t.Helper()
	return eval[[]solutionRow](e, `[...document.querySelectorAll('#result table.solutions tbody tr')].map((tr) =>
		({ cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) }))`)
}

// An annealing job's page shows its solutions as a table (energy,
// occurrences, each variable's value), lowest energy first, and no
// histogram; its program is the problem as JSON.
func TestAnnealingJobShowsSolutions(t *testing.T) {
	e := newEnv(t)
	job := e.create(e.user, quantum.JobRequest{DeviceQRN: annealer, Name: "pyqubo",
		Program: &quantum.Program{Format: "problem", Data: pyQUBO}, RuntimeOptions: map[string]any{"num_reads": 40, "seed": 2}})
	quantumtest.WaitForJob(t, e.svc, e.user, job.JobQRN)
	res, err := e.svc.GetJobResult(context.Background(), e.user, job.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	solutions := res.ResultData.Data["solutions"].([]any)
	e.signIn(quantumtest.APIKey)
	e.open(jobRoute(job.JobQRN))
	e.visible(`#result table.solutions`)
	if e.has(`#result .histogram`) {
		t.Error("an annealing job's page draws a histogram")
	}
	if head := e.text(`#result table.solutions thead`); !strings.Contains(head, "Energy") || !strings.Contains(head, "Occurrences") || !strings.Contains(head, "s4") {
		t.Errorf("header %q", head)
	}
	rows := e.solutionRows()
	if len(rows) != len(solutions) {
		t.Fatalf("%d rows, %d solutions", len(rows), len(solutions))
	}
	for i, row := range rows {
		s := solutions[i].(map[string]any)
		spin := s["spin"].(map[string]any)
		want := []string{fmt.Sprint(s["energy"]), fmt.Sprint(s["num_occurrences"])}
		for _, v := range []string{"s1", "s2", "s3", "s4"} {
			want = append(want, fmt.Sprint(spin[v]))
		}
		if fmt.Sprint(row.Cells) != fmt.Sprint(want) {
			t.Errorf("row %d: %v, want %v", i, row.Cells, want)
		}
	}
	if caption := e.text(`#result table.solutions caption`); !strings.Contains(caption, "from 40 reads, lowest energy first") {
		t.Errorf("caption %q", caption)
	}
	if program := e.text(`#program pre`); !strings.Contains(program, `"problem_type": "qubo"`) {
		t.Errorf("program shown as %q", program)
	}
	e.screenshot("console-annealing.png")
	e.open("/devices")
	e.waitJS(`document.querySelector('#devices tbody tr[data-qrn="` + annealer + `"]') !== null`)
	if got := eval[string](e, `[...document.querySelector('#devices tbody tr[data-qrn="`+annealer+`"]').children].map((td) => td.textContent).join('|')`); !strings.Contains(got, "|—|") {
		t.Errorf("the annealer's row %q does not show its qubits as —", got)
	}
}

// A user submits the max-cut example to the annealer from the submit page:
// the format offered is problem, the job completes, and its ground state
// cuts all four edges.
func TestSubmitProblem(t *testing.T) {
	e := newEnv(t)
	e.signIn(quantumtest.APIKey)
	e.open("/submit?device=" + annealer)
	e.waitJS(`document.querySelector('#device').value === '` + annealer + `'`)
	if got := e.text(`label[for="shots"]`); got != "Reads (shots)" {
		t.Errorf("the shots field is labelled %q", got)
	}
	e.run(
		chromedp.Click(chromedp.ID("example")),
		chromedp.SetValue(chromedp.ID("shots"), "20"),
		chromedp.SendKeys(chromedp.ID("seed"), "5"),
	)
	if got := eval[string](e, `document.querySelector('#format').value`); got != "problem" {
		t.Fatalf("format %q, want problem", got)
	}
	e.run(chromedp.Click(chromedp.ID("submit")))
	e.waitJS(`location.hash.startsWith('#/jobs/') || (document.querySelector('#submit-error')?.textContent ?? '') !== ''`)
	if msg := eval[string](e, `document.querySelector('#submit-error')?.textContent ?? ''`); msg != "" {
		t.Fatalf("the submit was refused: %s", msg)
	}
	qrn := e.qrnOfPage()
	e.visible(`#job-status [data-status="COMPLETED"]`)
	e.visible(`#result table.solutions`)
	job, err := e.svc.GetJob(context.Background(), e.user, qrn)
	if err != nil {
		t.Fatal(err)
	}
	if job.Shots != 20 || job.ExperimentType != "annealing" || job.Name != "Max-cut of a square" {
		t.Errorf("job made by the form: shots %d, %s, %q", job.Shots, job.ExperimentType, job.Name)
	}
	if first := e.solutionRows()[0].Cells; first[0] != "-4" {
		t.Errorf("the lowest solution %v, want energy −4", first)
	}
}
