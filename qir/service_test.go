package qir_test

import (
	"context"
	"encoding/base64"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/qir"
	"github.com/qjobs/quantum/quantumtest"
)

const device = "qbraid:qbraid:sim:qir-sv"

// form is one way a corpus program reaches the service.
type form struct {
	name, format, data string
}

// forms lists every form of a corpus program that exists: the text as it
// is and as base64, and each bitcode build.
func forms(t *testing.T, file string) []form {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(qir.CorpusDir, file))
	if err != nil {
		t.Fatal(err)
	}
	fs := []form{
		{"text", "qir.ll", string(src)},
		{"text-base64", "qir.ll", base64.StdEncoding.EncodeToString(src)},
	}
	base := strings.TrimSuffix(file, ".ll") + ".bc"
	for _, dir := range []string{"bc-llvm14", "bc-llvm19", "bc-upstream"} {
		if b, err := os.ReadFile(filepath.Join(qir.CorpusDir, dir, base)); err == nil {
			fs = append(fs, form{dir, "qir.bc", base64.StdEncoding.EncodeToString(b)})
		}
	}
	return fs
}

// tolerance is how far a frequency from shots samples may stray from its
// probability with outcomes outcomes: by Hoeffding's inequality and a
// union bound, a correct sampler strays further with probability below
// 1e-9.
func tolerance(shots, outcomes int) float64 {
	return math.Sqrt(math.Log(2*float64(outcomes)/1e-9) / (2 * float64(shots)))
}

// TestCorpusThroughTheService runs every corpus program, in every form,
// as a job on the built-in QIR device, and checks its counts against the
// exact distribution computed from the text.
func TestCorpusThroughTheService(t *testing.T) {
	if testing.Short() {
		testenv.Optional(t, "-short: runs every corpus program in every form as a job")
	}
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	const shots = 4000
	for _, key := range corpusKeys(t) {
		file, entry, _ := strings.Cut(key, "@")
		src, err := os.ReadFile(filepath.Join(qir.CorpusDir, file))
		if err != nil {
			t.Fatal(err)
		}
		ref, err := qir.Compile(ctx, "qir.ll", string(src), qir.Options{EntryPoint: entry})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		want := qir.Exact(t, ref)
		for _, f := range forms(t, file) {
			t.Run(key+"/"+f.name, func(t *testing.T) {
				opts := map[string]any{}
				if entry != "" {
					opts["entryPoint"] = entry
				}
				qrn := runJob(t, svc, u, quantum.JobRequest{Program: &quantum.Program{Format: f.format, Data: f.data},
					Shots: shots, DeviceQRN: device, RuntimeOptions: opts}, want)
				prog, err := svc.GetJobProgram(ctx, u, qrn)
				if err != nil || prog.Format != f.format || prog.Data != f.data {
					t.Errorf("the program as stored differs from the one sent (%v)", err)
				}
			})
		}
	}
}

func corpusKeys(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(qir.CorpusDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, line := range strings.Split(string(b), "\n") {
		// Top-level keys: ` "name.ll": {` or ` "name.ll@entry": {`.
		if strings.HasPrefix(line, " \"") && strings.HasSuffix(line, "{") {
			keys = append(keys, strings.Trim(strings.TrimSuffix(strings.TrimSpace(line), ": {"), `"`))
		}
	}
	if len(keys) == 0 {
		t.Fatal("no programs in expected.json")
	}
	return keys
}

// runJob creates the job, waits for it to complete and checks its
// frequencies against want within a Hoeffding bound; it returns the job's
// QRN.
func runJob(t *testing.T, svc *quantum.Service, u quantum.User, req quantum.JobRequest, want map[string]float64) string {
	t.Helper()
	ctx := context.Background()
	j, err := svc.CreateJob(ctx, u, req)
	if err != nil {
		t.Fatal(err)
	}
	done := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
	if done.Status != quantum.StatusCompleted {
		msg := ""
		if done.StatusMsg != nil {
			msg = *done.StatusMsg
		}
		t.Fatalf("job %s: %s", done.Status, msg)
	}
	res, err := svc.GetJobResult(ctx, u, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	shots := float64(req.Shots)
	eps := tolerance(req.Shots, len(want)+1)
	for k, n := range res.ResultData.MeasurementCounts {
		if want[k] == 0 {
			t.Errorf("outcome %s (%d times) has probability 0", k, n)
		}
	}
	for k, p := range want {
		if got := float64(res.ResultData.MeasurementCounts[k]) / shots; math.Abs(got-p) > eps {
			t.Errorf("frequency of %s %.4f, probability %.4f (tolerance %.4f)", k, got, p, eps)
		}
	}
	return j.JobQRN
}
