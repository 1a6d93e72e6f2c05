// Package apitest is the conformance suite of quantum.API: one script of
// calls, every endpoint and its errors, run against an implementation.
// Each step's answer is checked, and written to a transcript in which
// only what differs between runs (QRNs, times) is replaced by names;
// Compare runs the script against two implementations and fails on any
// difference between their transcripts. The in-process API (Service.For)
// and the HTTP client against httpadapter must give identical ones: that
// is the proof that the adapter and the client are exact.
package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// Target makes the API under test.
type Target struct {
	Name string
	// Open returns a running Service (closed when the test ends) and a
	// function that gives the API acting for the holder of an API key
	// added to the Service with AddAPIKey.
	Open func(t *testing.T, opts ...quantum.Option) (*quantum.Service, func(t *testing.T, key string) quantum.API)
}

// Run runs the script against target and returns its transcript.
func Run(t *testing.T, target Target) []string {
	t.Helper()
	s := &script{t: t, names: map[string]string{}}
	s.run(target)
	return s.lines
}

// Compare runs the script against a and b, and fails the test on any
// line where their transcripts differ.
func Compare(t *testing.T, a, b Target) {
	t.Helper()
	var ta, tb []string
	okA := t.Run(a.Name, func(t *testing.T) { ta = Run(t, a) })
	okB := t.Run(b.Name, func(t *testing.T) { tb = Run(t, b) })
	if !okA || !okB {
		return // a failed script's transcript is cut short: nothing to compare
	}
	for i := range max(len(ta), len(tb)) {
		var la, lb string
		if i < len(ta) {
			la = ta[i]
		}
		if i < len(tb) {
			lb = tb[i]
		}
		if la != lb {
			t.Errorf("step %d differs:\n%s: %s\n%s: %s", i, a.Name, la, b.Name, lb)
		}
	}
}

const (
	aliceKey = "apitest-alice-key"
	bobKey   = "apitest-bob-key"
	flagship = "qbraid:qbraid:sim:qir-sv"
	bell     = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;\n"
)

type script struct {
	t     *testing.T
	lines []string
	names map[string]string // QRN → job#n
	last  time.Time
}

var (
	jobQRN    = regexp.MustCompile(`[a-z0-9]+:[a-z0-9]+:(?:sim|qpu):[a-z0-9._-]+-[0-9a-f]{4}-qjob-[0-9a-f]{24}`)
	timestamp = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"`)
	duration  = regexp.MustCompile(`"(executionDuration|simulationMs)":\d+`)
)

// record writes a step's answer to the transcript: the value as JSON, or
// the error's code, message, fields and retry.
func (s *script) record(step string, v any, err error) {
	s.t.Helper()
	if !s.last.IsZero() && time.Since(s.last) > time.Second {
		s.t.Logf("step %q took %v", step, time.Since(s.last))
	}
	defer func() { s.last = time.Now() }()
	var line string
	if err != nil {
		qe, ok := err.(*quantum.Error)
		if !ok {
			s.t.Fatalf("%s: %v is not a *quantum.Error", step, err)
		}
		data, _ := json.Marshal(qe.Details)
		line = fmt.Sprintf("%s: error %s %q %s retry=%v", step, qe.Code, qe.Message, data, qe.RetryAfter > 0)
	} else {
		data, jerr := json.Marshal(v)
		if jerr != nil {
			s.t.Fatalf("%s: %v", step, jerr)
		}
		line = step + ": " + string(data)
	}
	line = jobQRN.ReplaceAllStringFunc(line, func(q string) string {
		if _, ok := s.names[q]; !ok {
			s.names[q] = fmt.Sprintf("job#%d", len(s.names)+1)
		}
		return s.names[q]
	})
	line = timestamp.ReplaceAllString(line, `"<time>"`)
	line = duration.ReplaceAllString(line, `"$1":"<ms>"`)
	s.lines = append(s.lines, line)
}

// must records a step that must succeed, and returns its value:
// must[T](s, step)(call).
func must[T any](s *script, step string) func(v T, err error) T {
	return func(v T, err error) T {
		s.t.Helper()
		if err != nil {
			s.t.Fatalf("%s: %v", step, err)
		}
		s.record(step, v, nil)
		return v
	}
}

// ok records a step without a value that must succeed.
func (s *script) ok(step string, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("%s: %v", step, err)
	}
	s.record(step, "ok", nil)
}

// fails records a step that must fail with code.
func (s *script) fails(step string, code string, err error) {
	s.t.Helper()
	if got := quantum.ErrorCode(err); got != code {
		s.t.Fatalf("%s: %v, want code %s", step, err, code)
	}
	s.record(step, nil, err)
}

func request(device, program string, shots int) quantum.JobRequest {
	return quantum.JobRequest{DeviceQRN: device, Shots: shots, Program: &quantum.Program{Format: "qasm3", Data: program}}
}

var ctx = context.Background()

func (s *script) run(target Target) {
	t := s.t
	svc, as := target.Open(t)
	for name, b := range map[string]*quantumtest.FakeBackend{
		"blocked":  {Block: true},
		"broken":   {Fail: "the device broke"},
		"stubborn": {Block: true, NotCancellable: true},
	} {
		if err := svc.RegisterDevice(quantumtest.Device("qbraid:qbraid:sim:"+name), b); err != nil {
			t.Fatal(err)
		}
	}
	alice, bob := as(t, aliceKey), as(t, bobKey)
	aliceUser, _ := svc.AddAPIKey(aliceKey, "")

	u := must[quantum.User](s, "verify")(alice.VerifyUser(ctx))
	if u.ID != aliceUser.ID {
		t.Fatalf("VerifyUser gave %+v, want %+v", u, aliceUser)
	}
	s.devices(alice)
	s.creates(alice)

	// A job that completes, seen every way there is.
	req := request(flagship, bell, 1000)
	req.Name = "bell pair"
	req.Tags = map[string]any{"n": 3, "s": "x", "b": true}
	req.RuntimeOptions = map[string]any{"seed": 42, "nested": map[string]any{"a": []any{1, 2.5, "x", nil}}}
	created := must[*quantum.Job](s, "create")(alice.CreateJob(ctx, req))
	done := must[*quantum.Job](s, "wait")(alice.Wait(ctx, created.JobQRN))
	if done.Status != quantum.StatusCompleted || done.JobQRN != created.JobQRN {
		t.Fatalf("Wait gave %s %s", done.JobQRN, done.Status)
	}
	got := must[*quantum.Job](s, "get")(alice.GetJob(ctx, created.JobQRN))
	if fmt.Sprint(got) != fmt.Sprint(done) {
		t.Fatalf("GetJob after Wait\n%+v\ndiffers from Wait's\n%+v", got, done)
	}
	res := must[*quantum.JobResult](s, "result")(alice.GetJobResult(ctx, created.JobQRN))
	if c := res.ResultData.MeasurementCounts; c["00"]+c["11"] != 1000 || c["00"] == 0 || c["11"] == 0 {
		t.Fatalf("Bell counts %v", c)
	}
	prog := must[*quantum.Program](s, "program")(alice.GetJobProgram(ctx, created.JobQRN))
	if *prog != *req.Program {
		t.Fatalf("program %+v, want %+v", prog, req.Program)
	}
	_, err := alice.Wait(ctx, created.JobQRN)
	s.record("wait again", nil, err)
	if err != nil {
		t.Fatalf("Wait of a finished job: %v", err)
	}

	// Idempotent creates.
	keyed := request(flagship, bell, 10)
	keyed.IdempotencyKey = "apitest-1"
	keyed.RuntimeOptions = map[string]any{"seed": 7}
	first := must[*quantum.Job](s, "keyed create")(alice.CreateJob(ctx, keyed))
	again, err := alice.CreateJob(ctx, keyed)
	if err != nil || again.JobQRN != first.JobQRN {
		t.Fatalf("a retry with the key: %v, %v; want job %s", again, err, first.JobQRN)
	}
	s.record("keyed retry", "the same job", nil) // in whatever status it has reached
	keyed.Shots = 11
	_, err = alice.CreateJob(ctx, keyed)
	s.fails("keyed with another request", quantum.EVALIDATION, err)
	must[*quantum.Job](s, "keyed wait")(alice.Wait(ctx, first.JobQRN))

	s.unfinished(svc, alice, bob)
	s.malformed(alice)
	s.lists(alice)
	s.deletes(alice, bob, created.JobQRN)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = alice.Wait(cancelled, first.JobQRN)
	if quantum.ErrorCode(err) != quantum.ECANCELED {
		t.Fatalf("Wait with an ended context: %v", err)
	}
	s.record("wait ended", "code "+quantum.ErrorCode(err), nil)

	s.limits(target)
}

func (s *script) devices(a quantum.API) {
	all := must[*quantum.DevicePage](s, "devices")(a.ListDevices(ctx, quantum.DeviceQuery{}))
	if len(all.Devices) < 3 {
		s.t.Fatalf("%d devices", len(all.Devices))
	}
	must[*quantum.DevicePage](s, "devices paged")(a.ListDevices(ctx, quantum.DeviceQuery{Vendor: "qbraid", SortBy: "name", SortOrder: "desc", Limit: 2, Page: 2}))
	yes := true
	must[*quantum.DevicePage](s, "devices filtered")(a.ListDevices(ctx, quantum.DeviceQuery{DirectAccess: &yes, Search: "simulator", DeviceType: quantum.DeviceSimulator}))
	_, err := a.ListDevices(ctx, quantum.DeviceQuery{Vendor: "nope", SortBy: "x", SortOrder: "up", Page: -1})
	s.fails("devices invalid", quantum.EVALIDATION, err)
	d := must[*quantum.Device](s, "device")(a.GetDevice(ctx, flagship))
	if d.QRN != flagship || d.Description == "" {
		s.t.Fatalf("device %+v", d)
	}
	_, err = a.GetDevice(ctx, "aws:aws:sim:nope")
	s.fails("device unknown", quantum.ENOTFOUND, err)
	_, err = a.GetDevice(ctx, "not a device")
	s.fails("device malformed", quantum.EVALIDATION, err)
	must[float64](s, "cost")(a.EstimateCost(ctx, "aws:aws:sim:sv1", 100))
	for _, tc := range []struct {
		device string
		shots  int
	}{{"", 0}, {flagship, 0}, {"x:y:sim:z", 10}, {flagship, 2_000_000}} {
		_, err := a.EstimateCost(ctx, tc.device, tc.shots)
		s.fails(fmt.Sprintf("cost %q %d", tc.device, tc.shots), quantum.EVALIDATION, err)
	}
}

func (s *script) creates(a quantum.API) {
	for name, req := range map[string]quantum.JobRequest{
		"empty":          {},
		"no program":     {DeviceQRN: flagship, Shots: 10},
		"shots 0":        request(flagship, bell, 0),
		"unknown device": request("qbraid:qbraid:sim:nope", bell, 10),
		"bad format":     {DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{Format: "qir.ll", Data: "x"}},
		"parse error":    request(flagship, "OPENQASM 3.0;\nqubit[2] q;\nh q[0]\ncx q[0], q[1];\n", 10),
		"bad options":    {DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{Format: "qasm3", Data: bell}, RuntimeOptions: map[string]any{"seed": -1, "noiseModel": "x"}, Tags: map[string]any{"t": 1.5}},
		"bad key":        {DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{Format: "qasm3", Data: bell}, IdempotencyKey: "two words"},
	} {
		_, err := a.CreateJob(ctx, req)
		s.fails("create "+name, quantum.EVALIDATION, err)
	}
	// Map order is random: sort the lines just written, so that both
	// transcripts list them alike.
	tail := s.lines[len(s.lines)-8:]
	sortStrings(tail)
}

// unfinished covers a job that stays RUNNING until cancelled, one that
// fails, one that cannot be cancelled, and another user.
func (s *script) unfinished(svc *quantum.Service, alice, bob quantum.API) {
	t := s.t
	aliceUser, _ := svc.AddAPIKey(aliceKey, "")
	running := must[*quantum.Job](s, "create blocked")(alice.CreateJob(ctx, request("qbraid:qbraid:sim:blocked", bell, 10)))
	quantumtest.WaitForStatus(t, svc, aliceUser, running.JobQRN, 20*time.Second, quantum.StatusRunning)
	must[*quantum.Job](s, "get running")(alice.GetJob(ctx, running.JobQRN))
	_, err := alice.GetJobResult(ctx, running.JobQRN)
	s.fails("result of running", quantum.ERESULTNOTREADY, err)
	s.fails("delete running", quantum.EJOBNOTFINAL, alice.DeleteJob(ctx, running.JobQRN))
	_, err = bob.GetJob(ctx, running.JobQRN)
	s.fails("bob gets it", quantum.EFORBIDDEN, err)
	_, err = bob.Wait(ctx, running.JobQRN)
	s.fails("bob waits", quantum.EFORBIDDEN, err)
	s.fails("bob cancels", quantum.EFORBIDDEN, bob.CancelJob(ctx, running.JobQRN))
	must[*quantum.DeleteJobsResult](s, "bob deletes it")(bob.DeleteJobs(ctx, []string{running.JobQRN}))
	s.ok("cancel", alice.CancelJob(ctx, running.JobQRN))
	ended := must[*quantum.Job](s, "wait cancelled")(alice.Wait(ctx, running.JobQRN))
	if ended.Status != quantum.StatusCancelled {
		t.Fatalf("cancelled job ended %s", ended.Status)
	}
	s.fails("cancel again", quantum.EINVALIDJOBSTATE, alice.CancelJob(ctx, running.JobQRN))

	broken := must[*quantum.Job](s, "create broken")(alice.CreateJob(ctx, request("qbraid:qbraid:sim:broken", bell, 10)))
	failed := must[*quantum.Job](s, "wait failed")(alice.Wait(ctx, broken.JobQRN))
	if failed.Status != quantum.StatusFailed || failed.StatusMsg == nil || *failed.StatusMsg != "the device broke" {
		t.Fatalf("failed job: %s %v", failed.Status, failed.StatusMsg)
	}

	stubborn := must[*quantum.Job](s, "create stubborn")(alice.CreateJob(ctx, request("qbraid:qbraid:sim:stubborn", bell, 10)))
	quantumtest.WaitForStatus(t, svc, aliceUser, stubborn.JobQRN, 20*time.Second, quantum.StatusRunning)
	s.fails("cancel stubborn", quantum.ECANCELNOTSUPPORTED, alice.CancelJob(ctx, stubborn.JobQRN))
}

func (s *script) malformed(a quantum.API) {
	for _, q := range []string{"statuses", "events", "cost-estimate", "", "a/b", "qbraid:qbraid:sim:qir-sv-abcd-qjob-0123"} {
		_, err := a.GetJob(ctx, q)
		s.fails(fmt.Sprintf("get %q", q), quantum.EVALIDATION, err)
		_, err = a.Wait(ctx, q)
		s.fails(fmt.Sprintf("wait %q", q), quantum.EVALIDATION, err)
		s.fails(fmt.Sprintf("delete %q", q), quantum.EVALIDATION, a.DeleteJob(ctx, q))
	}
	unknown := flagship + "-abcd-qjob-0123456789abcdef01234567"
	_, err := a.GetJob(ctx, unknown)
	s.fails("get unknown", quantum.ENOTFOUND, err)
	_, err = a.GetJobProgram(ctx, unknown)
	s.fails("program unknown", quantum.ENOTFOUND, err)
	_, err = a.Wait(ctx, unknown)
	s.fails("wait unknown", quantum.ENOTFOUND, err)
	s.fails("cancel unknown", quantum.ENOTFOUND, a.CancelJob(ctx, unknown))
}

func (s *script) lists(a quantum.API) {
	must[*quantum.JobPage](s, "list")(a.ListJobs(ctx, quantum.JobQuery{}))
	for name, q := range map[string]quantum.JobQuery{
		"completed":     {Status: quantum.StatusCompleted},
		"returned p2":   {StatusGroup: "returned", Limit: 1, Page: 2},
		"pending":       {StatusGroup: "pending"},
		"tag":           {Tags: map[string]any{"n": 3}},
		"tag as float":  {Tags: map[string]any{"n": 3.0, "s": "x"}},
		"search":        {Search: "BELL"},
		"vendor":        {Vendor: "qbraid", Provider: "qbraid"},
		"past the end":  {Page: 99},
		"nothing there": {Vendor: "aws"},
	} {
		page := must[*quantum.JobPage](s, "list "+name)(a.ListJobs(ctx, q))
		if page.Jobs == nil {
			s.t.Fatalf("list %s: nil jobs", name)
		}
	}
	sortStrings(s.lines[len(s.lines)-9:])
	for name, q := range map[string]quantum.JobQuery{
		"invalid":     {Status: "DONE", StatusGroup: "x", Vendor: "nope", Limit: 1000},
		"bad page":    {Page: -1},
		"bad tag":     {Tags: map[string]any{"n": 1.5}},
		"long search": {Search: strings.Repeat("x", 256)},
	} {
		_, err := a.ListJobs(ctx, q)
		s.fails("list "+name, quantum.EVALIDATION, err)
	}
	sortStrings(s.lines[len(s.lines)-4:])
}

func (s *script) deletes(alice, bob quantum.API, done string) {
	page := must[*quantum.JobPage](s, "list before deletes")(alice.ListJobs(ctx, quantum.JobQuery{StatusGroup: "pending"}))
	pending := page.Jobs[0].JobQRN
	s.ok("delete", alice.DeleteJob(ctx, done))
	_, err := alice.GetJob(ctx, done)
	s.fails("get deleted", quantum.ENOTFOUND, err)
	s.fails("delete again", quantum.ENOTFOUND, alice.DeleteJob(ctx, done))
	finished := must[*quantum.JobPage](s, "list returned")(alice.ListJobs(ctx, quantum.JobQuery{StatusGroup: "returned"}))
	res := must[*quantum.DeleteJobsResult](s, "bulk delete")(alice.DeleteJobs(ctx, []string{finished.Jobs[0].JobQRN, done, "bad", pending}))
	if len(res.SuccessfulIDs) != 1 || len(res.FailedIDs) != 3 {
		s.t.Fatalf("bulk delete %+v", res)
	}
	_, err = alice.DeleteJobs(ctx, nil)
	s.fails("bulk delete none", quantum.EVALIDATION, err)
	many := make([]string, 101)
	for i := range many {
		many[i] = done
	}
	_, err = alice.DeleteJobs(ctx, many)
	s.fails("bulk delete 101", quantum.EVALIDATION, err)
	must[*quantum.JobPage](s, "bob's list")(bob.ListJobs(ctx, quantum.JobQuery{}))
}

// limits opens a Service of its own that allows one unfinished job.
func (s *script) limits(target Target) {
	svc, as := target.Open(s.t, quantum.WithMaxActiveJobsPerUser(1))
	if err := svc.RegisterDevice(quantumtest.Device("qbraid:qbraid:sim:blocked"), &quantumtest.FakeBackend{Block: true}); err != nil {
		s.t.Fatal(err)
	}
	a := as(s.t, aliceKey)
	must[*quantum.Job](s, "limit first")(a.CreateJob(ctx, request("qbraid:qbraid:sim:blocked", bell, 10)))
	_, err := a.CreateJob(ctx, request("qbraid:qbraid:sim:blocked", bell, 10))
	s.fails("limit second", quantum.ETOOMANYJOBS, err)
}

func sortStrings(ss []string) {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && ss[j] < ss[j-1]; j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
}
