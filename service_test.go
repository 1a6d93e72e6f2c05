package quantum_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store"
)

var ctx = context.Background()

const (
	flagship = "qbraid:qbraid:sim:qir-sv"
	bell2    = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"
	bell3    = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;\n"
	// twoEntries is a QIR module with two entry points.
	twoEntries = "define void @a() #0 {\n  ret void\n}\ndefine void @b() #0 {\n  ret void\n}\nattributes #0 = { \"entry_point\" }\n"
)

func request(device, format, program string, shots int) quantum.JobRequest {
	return quantum.JobRequest{DeviceQRN: device, Shots: shots, Program: &quantum.Program{Format: format, Data: program}}
}

func create(t *testing.T, svc *quantum.Service, u quantum.User, req quantum.JobRequest) *quantum.Job {
	t.Helper()
	j, err := svc.CreateJob(ctx, u, req)
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	return j
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := quantum.ErrorCode(err); got != code {
		t.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

func wantFields(t *testing.T, err error, fields ...string) {
	t.Helper()
	wantCode(t, err, quantum.EVALIDATION)
	var qe *quantum.Error
	errors.As(err, &qe)
	var got []string
	for _, d := range qe.Details {
		got = append(got, d.Field)
		if d.Message == "" {
			t.Errorf("field %s has no rule in its message", d.Field)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(fields) {
		t.Fatalf("fields %v, want %v (%v)", got, fields, err)
	}
}

// fakeDevice registers a FakeBackend device and returns its QRN.
func fakeDevice(t *testing.T, svc *quantum.Service, name string, b quantum.Backend, edit ...func(*quantum.Device)) string {
	t.Helper()
	d := quantumtest.Device("qbraid:qbraid:sim:" + name)
	for _, e := range edit {
		e(&d)
	}
	if err := svc.RegisterDevice(d, b); err != nil {
		t.Fatal(err)
	}
	return d.QRN
}

func TestCreateJobValidation(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	offline := fakeDevice(t, svc, "offline", &quantumtest.FakeBackend{}, func(d *quantum.Device) { d.Status = quantum.DeviceOffline })
	qasm3only := fakeDevice(t, svc, "q3", &quantumtest.FakeBackend{}, func(d *quantum.Device) { d.RunInputTypes = []string{"qasm3"}; d.MaxShots = 10 })
	wide := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[65];\nh q[0];\n"
	tests := []struct {
		name   string
		req    quantum.JobRequest
		fields []string
		msg    string
	}{
		{"nothing", quantum.JobRequest{}, []string{"program", "shots", "deviceQrn"}, ""},
		{"empty program", quantum.JobRequest{Program: &quantum.Program{}, Shots: 1, DeviceQRN: flagship}, []string{"program.format", "program.data"}, ""},
		{"negative shots", request(flagship, "qasm2", bell2, -5), []string{"shots"}, "at least 1"},
		{"too many shots", request(flagship, "qasm2", bell2, 1_000_001), []string{"shots"}, "at most 1000000"},
		{"device's own shot limit", request(qasm3only, "qasm3", bell3, 11), []string{"shots"}, "at most 10"},
		{"unknown device", request("aws:aws:sim:nope", "qasm2", bell2, 1), []string{"deviceQrn"}, "no device"},
		{"offline device", request(offline, "qasm2", bell2, 1), []string{"deviceQrn"}, "OFFLINE"},
		{"format the device lacks", request(qasm3only, "qasm2", bell2, 1), []string{"program.format"}, "qasm3"},
		{"unknown format", request(flagship, "qir.json", "AAAA", 1), []string{"program.format"}, "qasm2, qasm3, qir.ll"},
		{"QIR that is not bitcode", request(flagship, "qir.bc", "AAAA", 1), []string{"program.data"}, "not of LLVM bitcode"},
		{"QIR with two entry points", request(flagship, "qir.ll", twoEntries, 1), []string{"runtimeOptions.entryPoint"}, "2 entry points"},
		{"version mismatch", request(flagship, "qasm2", bell3, 1), []string{"program.format"}, "OpenQASM 3"},
		{"parse error with position", request(flagship, "qasm2", "OPENQASM 2.0;\nqreg q[1];\nfoo q[0];\n", 1), []string{"program.data"}, "3:"},
		{"more qubits than the device", request(flagship, "qasm2", wide, 1), []string{"program.data"}, "64"},
		{"bad tag", quantum.JobRequest{DeviceQRN: flagship, Shots: 1, Program: &quantum.Program{Format: "qasm2", Data: bell2}, Tags: map[string]any{"f": 1.5, "ok": "x", "n": nil}}, []string{"tags.f", "tags.n"}, ""},
		{"bad seed", quantum.JobRequest{DeviceQRN: flagship, Shots: 1, Program: &quantum.Program{Format: "qasm2", Data: bell2}, RuntimeOptions: map[string]any{"seed": -1}}, []string{"runtimeOptions.seed"}, "non-negative"},
		{"fractional seed", quantum.JobRequest{DeviceQRN: flagship, Shots: 1, Program: &quantum.Program{Format: "qasm2", Data: bell2}, RuntimeOptions: map[string]any{"seed": 1.5}}, []string{"runtimeOptions.seed"}, ""},
		{"noise model", quantum.JobRequest{DeviceQRN: flagship, Shots: 1, Program: &quantum.Program{Format: "qasm2", Data: bell2}, RuntimeOptions: map[string]any{"noiseModel": "thermal"}}, []string{"runtimeOptions.noiseModel"}, "ideal, depolarizing"},
		{"long name", quantum.JobRequest{DeviceQRN: flagship, Shots: 1, Program: &quantum.Program{Format: "qasm2", Data: bell2}, Name: strings.Repeat("n", 256)}, []string{"name"}, "255"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.CreateJob(ctx, u, tc.req)
			wantFields(t, err, tc.fields...)
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("message %q does not say %q", err, tc.msg)
			}
		})
	}
	page, err := svc.ListJobs(ctx, u, quantum.JobQuery{})
	if err != nil || page.Pagination.Total != 0 {
		t.Fatalf("invalid requests stored %d jobs (%v)", page.Pagination.Total, err)
	}
}

func TestJobLifecycle(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	for _, tc := range []struct{ format, program string }{{"qasm2", bell2}, {"qasm3", bell3}} {
		req := request(flagship, tc.format, tc.program, 1000)
		req.Name = "bell " + tc.format
		req.Tags = map[string]any{"kind": "bell", "n": 2}
		req.RuntimeOptions = map[string]any{"seed": 5}
		j := create(t, svc, u, req)
		if j.Status != quantum.StatusInitializing || j.QueuePosition != nil || j.TimeStamps.EndedAt != nil || j.Cost != 0 {
			t.Fatalf("new job: %+v", j)
		}
		if !qtype.ValidJobQRN(j.JobQRN) || !strings.HasPrefix(j.JobQRN, flagship+"-"+u.OrganizationUserID[20:]+"-qjob-") {
			t.Fatalf("job QRN %q", j.JobQRN)
		}
		done := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
		if done.Status != quantum.StatusCompleted || done.StatusMsg != nil || done.TimeStamps.EndedAt == nil {
			t.Fatalf("finished job: %+v", done)
		}
		res, err := svc.GetJobResult(ctx, u, j.JobQRN)
		if err != nil {
			t.Fatal(err)
		}
		c := res.ResultData.MeasurementCounts
		if c["00"]+c["11"] != 1000 || c["00"] < 400 || c["11"] < 400 || len(c) != 2 {
			t.Fatalf("Bell counts %v", c)
		}
		// The seed makes the counts reproducible.
		again := create(t, svc, u, req)
		quantumtest.WaitForJob(t, svc, u, again.JobQRN)
		res2, _ := svc.GetJobResult(ctx, u, again.JobQRN)
		if fmt.Sprint(res2.ResultData.MeasurementCounts) != fmt.Sprint(c) {
			t.Fatalf("same seed, different counts: %v and %v", c, res2.ResultData.MeasurementCounts)
		}
		p, err := svc.GetJobProgram(ctx, u, j.JobQRN)
		if err != nil || p.Format != tc.format || p.Data != tc.program {
			t.Fatalf("program %+v, %v", p, err)
		}
	}
}

func TestCostOfPricedDevice(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	est, err := svc.EstimateCost(ctx, u, "aws:aws:sim:sv1", 100)
	if err != nil || est != 7.5 {
		t.Fatalf("estimate %v, %v; want 7.5 (one minute at 7.5)", est, err)
	}
	priced := fakeDevice(t, svc, "priced", &quantumtest.FakeBackend{Delay: 20 * time.Millisecond}, func(d *quantum.Device) {
		d.Pricing = quantum.Pricing{PerTask: 1, PerShot: 0.01, PerMinute: 60}
	})
	j := create(t, svc, u, request(priced, "qasm2", bell2, 100))
	if j.EstimatedCost != 1+1+60 {
		t.Fatalf("estimatedCost %v, want 62", j.EstimatedCost)
	}
	done := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
	ms := done.TimeStamps.ExecutionDuration
	if ms < 20 {
		t.Fatalf("executionDuration %d ms for a 20 ms job", ms)
	}
	// perTask + shots×perShot + perMinute×minutes, within the rounding of
	// the duration to whole milliseconds.
	low, high := 2+60*float64(ms)/60000, 2+60*float64(ms+1)/60000
	if done.Cost < low-1e-6 || done.Cost > high+1e-6 {
		t.Fatalf("cost %v, want between %v and %v", done.Cost, low, high)
	}
	for _, bad := range []struct {
		device string
		shots  int
		field  string
	}{{"aws:aws:sim:none", 1, "deviceQrn"}, {"aws:aws:sim:sv1", 0, "shots"}} {
		_, err := svc.EstimateCost(ctx, u, bad.device, bad.shots)
		wantFields(t, err, bad.field)
	}
}

func TestFailedJobs(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithJobTimeout(200*time.Millisecond))
	tests := []struct {
		name    string
		backend quantum.Backend
		msg     string
	}{
		{"backend error", &quantumtest.FakeBackend{Fail: "calibration lost"}, "calibration lost"},
		{"timeout", &quantumtest.FakeBackend{Block: true}, "time limit of 200ms"},
		{"wrong counts", &wrongCounts{}, "counts for 3 shots, not 10"},
		{"panic", &panics{}, "panicked"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dev := fakeDevice(t, svc, fmt.Sprintf("f%d", i), tc.backend)
			j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(dev, "qasm2", bell2, 10)).JobQRN)
			if j.Status != quantum.StatusFailed || j.StatusMsg == nil || !strings.Contains(*j.StatusMsg, tc.msg) || j.Cost != 0 || j.TimeStamps.EndedAt == nil {
				t.Fatalf("job %+v, statusMsg %v", j, j.StatusMsg)
			}
			_, err := svc.GetJobResult(ctx, u, j.JobQRN)
			wantCode(t, err, quantum.ERESULTNOTREADY)
			if !strings.Contains(err.Error(), "FAILED") {
				t.Fatalf("message %q does not name the status", err)
			}
		})
	}
	// A program whose loop never ends fails with the step limit, not a hang.
	forever := "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit q;\nbit c;\nc = measure q;\nwhile (c == 0) { reset q; c = measure q; }\n"
	j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm3", forever, 1)).JobQRN)
	if j.Status != quantum.StatusFailed || j.StatusMsg == nil {
		t.Fatalf("endless loop: %+v", j)
	}
}

// TestWorkBound runs the loop that motivated the work bound: an H and a
// measurement on 16 qubits while the measured qubit, held at |1⟩, reads 1.
// It runs few operations; what it touches ends it, FAILED with the bound
// named.
func TestWorkBound(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMaxWork(5_000_000))
	loop := "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[16] q;\nbit b = 1;\nx q[15];\nwhile (b) { h q[0]; b = measure q[15]; }\n"
	j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm3", loop, 1)).JobQRN)
	if j.Status != quantum.StatusFailed || j.StatusMsg == nil {
		t.Fatalf("job %+v", j)
	}
	for _, want := range []string{"bound of 5000000 units", "WithMaxWork", "-max-work", "work limit exceeded"} {
		if !strings.Contains(*j.StatusMsg, want) {
			t.Errorf("statusMsg %q does not say %q", *j.StatusMsg, want)
		}
	}
	// Sampled, the same bound refuses a run before it starts (rx, not
	// Clifford: on the state vector).
	wide := "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[20] q;\nfor int i in [0:99] { rx(0.5) q; }\n"
	j = quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm3", wide, 1)).JobQRN)
	if j.Status != quantum.StatusFailed || j.StatusMsg == nil || !strings.Contains(*j.StatusMsg, "work limit exceeded") {
		t.Fatalf("a circuit of 100 layers of rx on 20 qubits under a bound of 5·10^6: %+v", j)
	}
}

func TestCancel(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithWorkers(1))
	block := &quantumtest.FakeBackend{Block: true}
	started := block.Started()
	dev := fakeDevice(t, svc, "block", block)

	running := create(t, svc, u, request(dev, "qasm2", bell2, 1))
	if got := <-started; got != running.JobQRN {
		t.Fatalf("started %s", got)
	}
	queued := create(t, svc, u, request(dev, "qasm2", bell2, 1))
	j := quantumtest.WaitForStatus(t, svc, u, queued.JobQRN, 5*time.Second, quantum.StatusQueued)
	if j.QueuePosition == nil || *j.QueuePosition != 1 {
		t.Fatalf("queuePosition %v, want 1", j.QueuePosition)
	}
	d, _ := svc.GetDevice(ctx, u, dev)
	if d.QueueDepth != 1 {
		t.Fatalf("queueDepth %d, want 1", d.QueueDepth)
	}

	// A queued job is cancelled at once.
	c, err := svc.CancelJob(ctx, u, queued.JobQRN)
	if err != nil || c.Status != quantum.StatusCancelling {
		t.Fatalf("cancel queued: %+v, %v", c, err)
	}
	if j := quantumtest.WaitForJob(t, svc, u, queued.JobQRN); j.Status != quantum.StatusCancelled || j.Cost != 0 {
		t.Fatalf("queued job after cancel: %+v", j)
	}
	// A running one stops: the backend sees its context cancelled.
	if _, err := svc.CancelJob(ctx, u, running.JobQRN); err != nil {
		t.Fatal(err)
	}
	if j := quantumtest.WaitForJob(t, svc, u, running.JobQRN); j.Status != quantum.StatusCancelled {
		t.Fatalf("running job after cancel: %s", j.Status)
	}
	_, err = svc.CancelJob(ctx, u, running.JobQRN)
	wantCode(t, err, quantum.EINVALIDJOBSTATE)
	_, err = svc.GetJobResult(ctx, u, running.JobQRN)
	wantCode(t, err, quantum.ERESULTNOTREADY)

	stuck := fakeDevice(t, svc, "stuck", &quantumtest.FakeBackend{Block: true, NotCancellable: true})
	nc := create(t, svc, u, request(stuck, "qasm2", bell2, 1))
	_, err = svc.CancelJob(ctx, u, nc.JobQRN)
	wantCode(t, err, quantum.ECANCELNOTSUPPORTED)
}

// A cancel racing a job's completion ends in exactly one terminal status,
// with a result if and only if it is COMPLETED. Run it under -race.
func TestCancelRacingCompletion(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithWorkers(4))
	dev := fakeDevice(t, svc, "quick", &quantumtest.FakeBackend{Delay: time.Millisecond})
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := svc.CreateJob(ctx, u, request(dev, "qasm2", bell2, 10))
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond) // vary where the cancel lands
			_, err = svc.CancelJob(ctx, u, j.JobQRN)
			if err != nil && quantum.ErrorCode(err) != quantum.EINVALIDJOBSTATE {
				t.Errorf("cancel %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	page, err := svc.ListJobs(ctx, u, quantum.JobQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range page.Jobs {
		end := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
		_, err := svc.GetJobResult(ctx, u, j.JobQRN)
		switch end.Status {
		case quantum.StatusCompleted:
			if err != nil {
				t.Fatalf("completed job without a result: %v", err)
			}
		case quantum.StatusCancelled:
			wantCode(t, err, quantum.ERESULTNOTREADY)
		default:
			t.Fatalf("job ended %s", end.Status)
		}
		if again, _ := svc.GetJob(ctx, u, j.JobQRN); again.Status != end.Status {
			t.Fatalf("terminal status changed from %s to %s", end.Status, again.Status)
		}
	}
}

func TestOwnership(t *testing.T) {
	svc, alice := quantumtest.NewService(t)
	bob, err := svc.AddAPIKey("bob-key", "bob")
	if err != nil {
		t.Fatal(err)
	}
	j := quantumtest.WaitForJob(t, svc, alice, create(t, svc, alice, request(flagship, "qasm2", bell2, 1)).JobQRN)
	unknown := flagship + "-0000-qjob-000000000000000000000000"
	calls := map[string]func(quantum.User, string) error{
		"get":     func(u quantum.User, q string) error { _, err := svc.GetJob(ctx, u, q); return err },
		"result":  func(u quantum.User, q string) error { _, err := svc.GetJobResult(ctx, u, q); return err },
		"program": func(u quantum.User, q string) error { _, err := svc.GetJobProgram(ctx, u, q); return err },
		"cancel":  func(u quantum.User, q string) error { _, err := svc.CancelJob(ctx, u, q); return err },
		"delete":  func(u quantum.User, q string) error { return svc.DeleteJob(ctx, u, q) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			wantCode(t, call(bob, j.JobQRN), quantum.EFORBIDDEN)
			wantCode(t, call(alice, unknown), quantum.ENOTFOUND)
			wantFields(t, call(alice, "not-a-qrn"), "job_qrn")
		})
	}
	if page, _ := svc.ListJobs(ctx, bob, quantum.JobQuery{}); page.Pagination.Total != 0 {
		t.Fatal("bob lists alice's job")
	}
	if _, err := svc.GetJob(ctx, alice, j.JobQRN); err != nil {
		t.Fatalf("alice's job after bob's attempts: %v", err)
	}
}

func TestAuthenticate(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	got, err := svc.Authenticate(ctx, quantumtest.APIKey)
	if err != nil || got != u {
		t.Fatalf("Authenticate = %+v, %v", got, err)
	}
	_, err = svc.Authenticate(ctx, "")
	wantCode(t, err, quantum.ENOVALIDAUTH)
	_, err = svc.Authenticate(ctx, quantumtest.APIKey+"x")
	wantCode(t, err, quantum.EINVALIDAPIKEY)
	// The same key gives the same user in another service: a restarted
	// server finds its users' jobs.
	other, _ := quantumtest.NewService(t)
	if again, _ := other.Authenticate(ctx, quantumtest.APIKey); again != u {
		t.Fatalf("same key, different user: %+v and %+v", again, u)
	}
	if _, err := svc.AddAPIKey("", "x"); err == nil {
		t.Fatal("empty key accepted")
	}
}

func TestDelete(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	block := fakeDevice(t, svc, "block", &quantumtest.FakeBackend{Block: true})
	unfinished := create(t, svc, u, request(block, "qasm2", bell2, 1))
	wantCode(t, svc.DeleteJob(ctx, u, unfinished.JobQRN), quantum.EJOBNOTFINAL)
	if _, err := svc.GetJob(ctx, u, unfinished.JobQRN); err != nil {
		t.Fatalf("a refused delete lost the job: %v", err)
	}
	done := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm2", bell2, 1)).JobQRN)
	if err := svc.DeleteJob(ctx, u, done.JobQRN); err != nil {
		t.Fatal(err)
	}
	_, err := svc.GetJobProgram(ctx, u, done.JobQRN)
	wantCode(t, err, quantum.ENOTFOUND)
	wantCode(t, svc.DeleteJob(ctx, u, done.JobQRN), quantum.ENOTFOUND)
}

func TestDeleteJobs(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	bob, _ := svc.AddAPIKey("bob-key", "bob")
	block := fakeDevice(t, svc, "block", &quantumtest.FakeBackend{Block: true})
	done := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm2", bell2, 1)).JobQRN)
	foreign := quantumtest.WaitForJob(t, svc, bob, create(t, svc, bob, request(flagship, "qasm2", bell2, 1)).JobQRN)
	unfinished := create(t, svc, u, request(block, "qasm2", bell2, 1))
	unknown := flagship + "-0000-qjob-000000000000000000000000"
	res, err := svc.DeleteJobs(ctx, u, []string{done.JobQRN, foreign.JobQRN, unfinished.JobQRN, unknown, "garbage"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		foreign.JobQRN: quantum.ReasonForbidden, unfinished.JobQRN: quantum.ReasonNotFinal,
		unknown: quantum.ReasonNotFound, "garbage": quantum.ReasonInvalidQRN,
	}
	if fmt.Sprint(res.SuccessfulIDs) != fmt.Sprint([]string{done.JobQRN}) || fmt.Sprint(res.FailedIDs) != fmt.Sprint(want) {
		t.Fatalf("DeleteJobs = %+v", res)
	}
	for _, n := range []int{0, 101} {
		_, err := svc.DeleteJobs(ctx, u, make([]string, n))
		wantFields(t, err, "qrns")
	}
}

func TestListJobs(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	var all []string // newest first
	for i := range 7 {
		req := request(flagship, "qasm2", bell2, 1)
		if i == 6 {
			req.DeviceQRN = "aws:aws:sim:sv1"
		}
		req.Name = fmt.Sprintf("exp-%c", 'a'+i)
		req.Tags = map[string]any{"parity": []string{"even", "odd"}[i%2], "i": i}
		j := create(t, svc, u, req)
		quantumtest.WaitForJob(t, svc, u, j.JobQRN)
		all = append([]string{j.JobQRN}, all...)
	}
	list := func(q quantum.JobQuery) *quantum.JobPage {
		t.Helper()
		p, err := svc.ListJobs(ctx, u, q)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	names := func(p *quantum.JobPage) []string {
		var out []string
		for _, j := range p.Jobs {
			out = append(out, j.JobQRN)
		}
		return out
	}
	p := list(quantum.JobQuery{})
	if fmt.Sprint(names(p)) != fmt.Sprint(all) || p.Pagination != (quantum.Pagination{Page: 1, Limit: 50, Total: 7, TotalPages: 1}) {
		t.Fatalf("default page: %v %+v", names(p), p.Pagination)
	}
	var paged []string
	for page := 1; page <= 7; page++ {
		p := list(quantum.JobQuery{Page: page, Limit: 1})
		want := quantum.Pagination{Page: page, Limit: 1, Total: 7, TotalPages: 7, HasNext: page < 7, HasPrev: page > 1}
		if p.Pagination != want {
			t.Fatalf("page %d: %+v", page, p.Pagination)
		}
		paged = append(paged, names(p)...)
	}
	if fmt.Sprint(paged) != fmt.Sprint(all) {
		t.Fatal("limit 1 pages are not the full list in order")
	}
	last := list(quantum.JobQuery{Page: 3, Limit: 3})
	if fmt.Sprint(names(last)) != fmt.Sprint(all[6:]) || last.Pagination.HasNext || !last.Pagination.HasPrev {
		t.Fatalf("last page %v %+v", names(last), last.Pagination)
	}
	past := list(quantum.JobQuery{Page: 9, Limit: 100})
	if len(past.Jobs) != 0 || past.Pagination.Total != 7 || past.Pagination.TotalPages != 1 {
		t.Fatalf("page past the end: %+v", past.Pagination)
	}
	filters := []struct {
		name string
		q    quantum.JobQuery
		want int
	}{
		{"tag", quantum.JobQuery{Tags: map[string]any{"parity": "odd"}}, 3},
		{"two tags", quantum.JobQuery{Tags: map[string]any{"parity": "even", "i": 4}}, 1},
		{"search name", quantum.JobQuery{Search: "EXP-C"}, 1},
		{"search device", quantum.JobQuery{Search: "sim:sv1"}, 1},
		{"vendor", quantum.JobQuery{Vendor: "aws"}, 1},
		{"vendor all", quantum.JobQuery{Vendor: "all"}, 7},
		{"provider", quantum.JobQuery{Provider: "qbraid"}, 6},
		{"status", quantum.JobQuery{Status: quantum.StatusCompleted}, 7},
		{"status wins over group", quantum.JobQuery{Status: quantum.StatusCompleted, StatusGroup: "pending"}, 7},
		{"pending", quantum.JobQuery{StatusGroup: "pending"}, 0},
		{"returned", quantum.JobQuery{StatusGroup: "returned"}, 7},
	}
	for _, f := range filters {
		if got := list(f.q).Pagination.Total; got != f.want {
			t.Errorf("%s: %d jobs, want %d", f.name, got, f.want)
		}
	}
	bad := []struct {
		q     quantum.JobQuery
		field string
	}{
		{quantum.JobQuery{Page: -1}, "page"}, {quantum.JobQuery{Limit: 101}, "limit"}, {quantum.JobQuery{Limit: -1}, "limit"},
		{quantum.JobQuery{Vendor: "google"}, "vendor"}, {quantum.JobQuery{Status: "DONE"}, "status"},
		{quantum.JobQuery{StatusGroup: "later"}, "statusGroup"}, {quantum.JobQuery{Search: strings.Repeat("s", 256)}, "search"},
		{quantum.JobQuery{Tags: map[string]any{"x": 0.5}}, "tags"},
	}
	for _, b := range bad {
		_, err := svc.ListJobs(ctx, u, b.q)
		wantFields(t, err, b.field)
	}
}

func TestDevices(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	bob, _ := svc.AddAPIKey("bob-key", "bob")
	fakeDevice(t, svc, "retired", &quantumtest.FakeBackend{}, func(d *quantum.Device) { d.Status = quantum.DeviceRetired; d.Name = "Old" })
	fakeDevice(t, svc, "private", &quantumtest.FakeBackend{}, func(d *quantum.Device) {
		d.Private, d.AllowedUsers, d.Name = true, []string{u.ID}, "Mine"
	})
	qrns := func(p *quantum.DevicePage) []string {
		var out []string
		for _, d := range p.Devices {
			out = append(out, d.QRN)
		}
		return out
	}
	list := func(who quantum.User, q quantum.DeviceQuery) *quantum.DevicePage {
		t.Helper()
		p, err := svc.ListDevices(ctx, who, q)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := list(u, quantum.DeviceQuery{})
	want := []string{"aws:rigetti:qpu:ankaa-3", "aws:quera:qpu:aquila", "aws:ionq:qpu:aria-1", "qbraid:qbraid:sim:stabilizer", "azure:pasqal:sim:emu-tn",
		"aws:iqm:qpu:garnet", "azure:quantinuum:qpu:h1-1", "aws:aqt:qpu:ibex-q1",
		"ionq:ionq:sim:simulator", "qbraid:qbraid:sim:private", "qbraid:nec:sim:vector-annealer", flagship, "azure:rigetti:sim:qvm", "aws:aws:sim:sv1"} // by name
	if fmt.Sprint(qrns(p)) != fmt.Sprint(want) || p.Pagination.Limit != 20 || p.Pagination.Total != 14 {
		t.Fatalf("devices %v %+v", qrns(p), p.Pagination)
	}
	for _, d := range p.Devices {
		if d.Description != "" {
			t.Errorf("list item %s has a description", d.QRN)
		}
	}
	if got := qrns(list(bob, quantum.DeviceQuery{})); len(got) != 13 {
		t.Fatalf("bob sees %v", got)
	}
	if _, err := svc.GetDevice(ctx, bob, "qbraid:qbraid:sim:private"); quantum.ErrorCode(err) != quantum.ENOTFOUND {
		t.Fatalf("bob reads a private device: %v", err)
	}
	cases := []struct {
		name string
		q    quantum.DeviceQuery
		want int
	}{
		{"retired shown on request", quantum.DeviceQuery{Retired: ptr(true)}, 15},
		{"status RETIRED", quantum.DeviceQuery{Status: quantum.DeviceRetired}, 1},
		{"vendor", quantum.DeviceQuery{Vendor: "aws"}, 6},
		{"provider", quantum.DeviceQuery{ProviderID: "ionq"}, 2},
		{"type", quantum.DeviceQuery{DeviceType: quantum.DeviceQPU}, 6},
		{"private", quantum.DeviceQuery{Private: ptr(true)}, 1},
		{"public", quantum.DeviceQuery{Private: ptr(false)}, 13},
		{"search description", quantum.DeviceQuery{Search: "state-vector SIMULATOR priced"}, 1},
		{"qrn", quantum.DeviceQuery{QRN: flagship}, 1},
		{"direct access", quantum.DeviceQuery{DirectAccess: ptr(false)}, 0},
	}
	for _, c := range cases {
		if got := list(u, c.q).Pagination.Total; got != c.want {
			t.Errorf("%s: %d devices, want %d", c.name, got, c.want)
		}
	}
	desc := list(u, quantum.DeviceQuery{SortBy: "name", SortOrder: "desc", Limit: 2, Page: 2})
	if fmt.Sprint(qrns(desc)) != fmt.Sprint([]string{flagship, "qbraid:nec:sim:vector-annealer"}) || !desc.Pagination.HasPrev {
		t.Fatalf("sorted desc page 2: %v", qrns(desc))
	}
	for _, b := range []struct {
		q     quantum.DeviceQuery
		field string
	}{{quantum.DeviceQuery{SortBy: "price"}, "sortBy"}, {quantum.DeviceQuery{SortOrder: "up"}, "sortOrder"},
		{quantum.DeviceQuery{Vendor: "all"}, "vendor"}, {quantum.DeviceQuery{Limit: 101}, "limit"},
		{quantum.DeviceQuery{DeviceType: "GPU"}, "deviceType"}, {quantum.DeviceQuery{Status: "ON"}, "status"}} {
		_, err := svc.ListDevices(ctx, u, b.q)
		wantFields(t, err, b.field)
	}
	d, err := svc.GetDevice(ctx, u, flagship)
	if err != nil || d.Name != "QIR Simulator" || d.Description == "" || !d.DirectAccess || d.Pricing != (quantum.Pricing{}) {
		t.Fatalf("flagship %+v, %v", d, err)
	}
	_, err = svc.GetDevice(ctx, u, "aws:aws:sim:none")
	wantCode(t, err, quantum.ENOTFOUND)
	_, err = svc.GetDevice(ctx, u, "nonsense")
	wantFields(t, err, "device_qrn")
}

func ptr[T any](v T) *T { return &v }

// Close returns running jobs to the queue; a new Service on the same store
// runs them to the end.
func TestCloseRequeuesAndNewRecovers(t *testing.T) {
	st := store.NewMemory()
	svc, err := quantum.New(st)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := svc.AddAPIKey("k", "k")
	block := &quantumtest.FakeBackend{Block: true}
	started := block.Started()
	dev := quantumtest.Device("qbraid:qbraid:sim:block")
	if err := svc.RegisterDevice(dev, block); err != nil {
		t.Fatal(err)
	}
	j := create(t, svc, u, request(dev.QRN, "qasm2", bell2, 3))
	<-started
	if err := svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if got, _ := st.GetJob(ctx, j.JobQRN); got.Status != quantum.StatusQueued {
		t.Fatalf("after Close the running job is %s, want QUEUED", got.Status)
	}

	svc2, err := quantum.New(st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc2.Close(ctx) })
	u2, _ := svc2.AddAPIKey("k", "k")
	if err := svc2.RegisterDevice(dev, &quantumtest.FakeBackend{}); err != nil {
		t.Fatal(err)
	}
	if done := quantumtest.WaitForJob(t, svc2, u2, j.JobQRN); done.Status != quantum.StatusCompleted {
		t.Fatalf("recovered job ended %s", done.Status)
	}
}

// A store left by a crashed process: jobs stuck before the queue are
// queued, RUNNING ones with expired leases rerun, CANCELLING ones end.
func TestRecoveryFromACrash(t *testing.T) {
	st := store.NewMemory()
	old := time.Now().Add(-time.Hour)
	mk := func(i int, status quantum.JobStatus) string {
		qrn := fmt.Sprintf("%s-0000-qjob-%024d", flagship, i)
		j := &storage.JobRecord{Job: quantum.Job{JobQRN: qrn, DeviceQRN: flagship, Shots: 5, Status: status, Vendor: "qbraid", Provider: "qbraid",
			TimeStamps: qtype.TimeStamps{CreatedAt: old}, Tags: map[string]any{}, RuntimeOptions: map[string]any{}, Metadata: map[string]any{}},
			Owner: "x", UpdatedAt: old, LeaseUntil: old}
		if err := st.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: bell2}); err != nil {
			t.Fatal(err)
		}
		return qrn
	}
	want := map[string]quantum.JobStatus{
		mk(1, quantum.StatusInitializing): quantum.StatusCompleted,
		mk(2, quantum.StatusValidating):   quantum.StatusCompleted,
		mk(3, quantum.StatusRunning):      quantum.StatusCompleted,
		mk(4, quantum.StatusCancelling):   quantum.StatusCancelled,
		mk(5, quantum.StatusQueued):       quantum.StatusCompleted,
	}
	svc, err := quantum.New(st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(ctx) })
	deadline := time.Now().Add(20 * time.Second)
	for qrn, end := range want {
		for {
			j, _ := st.GetJob(ctx, qrn)
			if j.Status == end {
				break
			}
			if j.Status.IsTerminal() || time.Now().After(deadline) {
				t.Fatalf("%s is %s, want %s", qrn, j.Status, end)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

func TestStatuses(t *testing.T) {
	if len(qtype.JobStatuses()) != 10 {
		t.Fatal("not 10 statuses")
	}
	g := qtype.StatusGroups()
	if fmt.Sprint(g["returned"]) != "[CANCELLED COMPLETED FAILED]" || len(g["pending"]) != 7 {
		t.Fatalf("groups %v", g)
	}
}

// failingStore fails every read of jobs, as a broken disk would.
type failingStore struct{ storage.Store }

func (failingStore) GetJob(context.Context, string) (*storage.JobRecord, error) {
	return nil, errors.New("disk on fire at /var/lib/secret")
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	svc, err := quantum.New(failingStore{store.NewMemory()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(ctx) })
	u, _ := svc.AddAPIKey("k", "k")
	_, err = svc.GetJob(ctx, u, flagship+"-0000-qjob-000000000000000000000000")
	wantCode(t, err, quantum.EINTERNAL)
	if strings.Contains(err.Error(), "secret") {
		t.Fatalf("internal error echoed: %v", err)
	}
}

// wrongCounts answers counts that do not add up to the shots.
type wrongCounts struct{ quantumtest.FakeBackend }

func (*wrongCounts) Run(context.Context, quantum.Task) (*quantum.RunResult, error) {
	return &quantum.RunResult{Counts: map[string]int{"0": 3}}, nil
}

// panics is a backend with a bug.
type panics struct{ quantumtest.FakeBackend }

func (*panics) Run(context.Context, quantum.Task) (*quantum.RunResult, error) { panic("oops") }

// recorder is a backend that notes the order jobs run in.
type recorder struct {
	quantumtest.FakeBackend
	mu    sync.Mutex
	order []string
}

func (r *recorder) Run(ctx context.Context, t quantum.Task) (*quantum.RunResult, error) {
	r.mu.Lock()
	r.order = append(r.order, t.Device.QRN)
	r.mu.Unlock()
	return r.FakeBackend.Run(ctx, t)
}

// One worker, five jobs queued on each of two devices, the first device's
// queued first: the worker alternates between the devices, each in the
// order of its own queue.
func TestClaimsAreFairAcrossDevices(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithWorkers(1))
	gate := &quantumtest.FakeBackend{Block: true}
	started := gate.Started()
	hold := fakeDevice(t, svc, "hold", gate)
	rec := &recorder{}
	a := fakeDevice(t, svc, "a", rec)
	b := fakeDevice(t, svc, "b", rec)

	blocker := create(t, svc, u, request(hold, "qasm2", bell2, 1)) // keeps the worker busy while the queues fill
	<-started
	var jobs []*quantum.Job
	for _, dev := range []string{a, a, a, a, a, b, b, b, b, b} {
		j := create(t, svc, u, request(dev, "qasm2", bell2, 1))
		quantumtest.WaitForStatus(t, svc, u, j.JobQRN, 5*time.Second, quantum.StatusQueued)
		jobs = append(jobs, j)
	}
	if _, err := svc.CancelJob(ctx, u, blocker.JobQRN); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		quantumtest.WaitForJob(t, svc, u, j.JobQRN)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i := 1; i < len(rec.order); i++ {
		if rec.order[i] == rec.order[i-1] {
			t.Fatalf("run order %v: one device ran twice in a row while the other waited", rec.order)
		}
	}
}

// A store only one process can open has no live worker when a Service
// starts: its RUNNING jobs are taken over at once, live lease or not.
func TestExclusiveStoreTakesOverLiveLeases(t *testing.T) {
	st := store.NewMemory()
	now := time.Now()
	qrn := flagship + "-0000-qjob-000000000000000000000077"
	j := &storage.JobRecord{Job: quantum.Job{JobQRN: qrn, DeviceQRN: flagship, Shots: 5, Status: quantum.StatusRunning, Vendor: "qbraid",
		TimeStamps: qtype.TimeStamps{CreatedAt: now}}, Owner: "x", UpdatedAt: now, LeaseUntil: now.Add(time.Hour)}
	if err := st.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: bell2}); err != nil {
		t.Fatal(err)
	}
	svc, err := quantum.New(st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(ctx) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := st.GetJob(ctx, qrn)
		if got.Status == quantum.StatusCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s: a live lease in an exclusive store was not taken over", got.Status)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestDynamicCircuit runs a program the way Qiskit exports a switch on
// a measured register: its counts hold only the program's registers,
// none of the bits the compiler needs for switch_dummy.
func TestDynamicCircuit(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	const src = `OPENQASM 3.0;
include "stdgates.inc";
bit[2] c;
bit[1] r;
int switch_dummy;
qubit[3] q;
h q[0];
h q[1];
c[0] = measure q[0];
c[1] = measure q[1];
switch_dummy = c;
switch (switch_dummy) {
  case 0 {
    x q[2];
  }
  default {
  }
}
r[0] = measure q[2];
`
	j := create(t, svc, u, request(flagship, "qasm3", src, 400))
	done := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
	if done.Status != quantum.StatusCompleted {
		t.Fatalf("job %s: %v", done.Status, done.StatusMsg)
	}
	res, err := svc.GetJobResult(ctx, u, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for k, n := range res.ResultData.MeasurementCounts {
		// r (the leftmost bit) is 1 exactly when c is 00
		if len(k) != 3 || (k[0] == '1') != (k[1:] == "00") {
			t.Fatalf("outcome %q in %v", k, res.ResultData.MeasurementCounts)
		}
		total += n
	}
	if total != 400 {
		t.Fatalf("%d shots counted, want 400", total)
	}
}

// runtimeOptions.precision picks the state's precision on the built-in
// devices, is checked at create, and is recorded in the metadata.
func TestPrecisionOption(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	for _, tc := range []struct {
		opts map[string]any
		want string
	}{{nil, "double"}, {map[string]any{"precision": "double"}, "double"}, {map[string]any{"precision": "single"}, "single"}} {
		req := request(flagship, "qasm3", bell3, 500)
		req.RuntimeOptions = tc.opts
		j := create(t, svc, u, req)
		done := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
		if done.Status != quantum.StatusCompleted || done.Metadata["precision"] != tc.want {
			t.Fatalf("%v: %s, metadata %v", tc.opts, done.Status, done.Metadata)
		}
		res, err := svc.GetJobResult(ctx, u, j.JobQRN)
		if err != nil {
			t.Fatal(err)
		}
		if c := res.ResultData.MeasurementCounts; c["00"]+c["11"] != 500 {
			t.Fatalf("%v: counts %v", tc.opts, c)
		}
	}
	// A QIR program that runs shot by shot, on a single-precision state.
	adaptive := `define void @main() #0 {
  call void @__quantum__qis__h__body(ptr null)
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  %r = call i1 @__quantum__rt__read_result(ptr null)
  br i1 %r, label %flip, label %done
flip:
  call void @__quantum__qis__x__body(ptr inttoptr (i64 1 to ptr))
  br label %done
done:
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 1 to ptr), ptr inttoptr (i64 1 to ptr))
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 1 to ptr), ptr null)
  ret void
}
declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__x__body(ptr)
declare void @__quantum__qis__mz__body(ptr, ptr)
declare i1 @__quantum__rt__read_result(ptr)
declare void @__quantum__rt__result_record_output(ptr, ptr)
attributes #0 = { "entry_point" "qir_profiles"="adaptive_profile" }
`
	req := request(flagship, "qir.ll", adaptive, 500)
	req.RuntimeOptions = map[string]any{"precision": "single"}
	j := create(t, svc, u, req)
	if done := quantumtest.WaitForJob(t, svc, u, j.JobQRN); done.Metadata["precision"] != "single" || done.Metadata["executionPath"] != "per-shot" {
		t.Fatalf("QIR job metadata %v", done.Metadata)
	}
	res, err := svc.GetJobResult(ctx, u, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.ResultData.MeasurementCounts; c["00"]+c["11"] != 500 || c["00"] == 0 || c["11"] == 0 {
		t.Fatalf("QIR counts %v", c)
	}
	for _, bad := range []any{"half", 32, true} {
		req := request(flagship, "qasm3", bell3, 1)
		req.RuntimeOptions = map[string]any{"precision": bad}
		_, err := svc.CreateJob(ctx, u, req)
		var qe *quantum.Error
		if !errors.As(err, &qe) || qe.Code != quantum.EVALIDATION || len(qe.Details) != 1 || qe.Details[0].Field != "runtimeOptions.precision" {
			t.Fatalf("precision %v: %v", bad, err)
		}
	}
}
