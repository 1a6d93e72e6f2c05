package client_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/quantumtest"
)

const (
	flagship = "qbraid:qbraid:sim:qir-sv"
	blocked  = "qbraid:qbraid:sim:blocked"
	broken   = "qbraid:qbraid:sim:broken"
	bell     = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;\n"
)

// twins is one server state seen two ways: through client → HTTP →
// httpadapter → Service, and through Service.For in process.
type twins struct {
	svc            *quantum.Service
	remote, local  quantum.API // alice's
	bobR, bobL     quantum.API
	srvURL         string
	started        <-chan string
	streaming      chan struct{} // a stream's first bytes were written
	mu             sync.Mutex
	requests       map[string]int // "METHOD path" the server received
	blockedBackend *quantumtest.FakeBackend
}

// tap tells when a handler first writes to its connection.
type tap struct {
	http.ResponseWriter
	once *sync.Once
	ch   chan struct{}
}

func (w tap) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.once.Do(func() { w.ch <- struct{}{} })
	return n, err
}

func (w tap) Unwrap() http.ResponseWriter { return w.ResponseWriter } // for http.ResponseController

func newTwins(t *testing.T) *twins {
	t.Helper()
	svc, alice := quantumtest.NewService(t)
	tw := &twins{svc: svc, requests: map[string]int{}, blockedBackend: &quantumtest.FakeBackend{Block: true}, streaming: make(chan struct{}, 64)}
	tw.started = tw.blockedBackend.Started()
	for qrn, b := range map[string]*quantumtest.FakeBackend{blocked: tw.blockedBackend, broken: {Fail: "the backend broke"}} {
		if err := svc.RegisterDevice(quantumtest.Device(qrn), b); err != nil {
			t.Fatal(err)
		}
	}
	h := httpadapter.New(svc)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw.mu.Lock()
		tw.requests[r.Method+" "+r.URL.Path]++
		tw.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/events") {
			w = tap{ResponseWriter: w, once: new(sync.Once), ch: tw.streaming}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	tw.srvURL = srv.URL
	bob, err := svc.AddAPIKey("bob-key", "bob")
	if err != nil {
		t.Fatal(err)
	}
	tw.remote, tw.local = tw.client(t, quantumtest.APIKey), svc.For(alice)
	tw.bobR, tw.bobL = tw.client(t, "bob-key"), svc.For(bob)
	return tw
}

func (tw *twins) client(t *testing.T, key string) *client.Client {
	t.Helper()
	// No retries: an error must come back as the server said it.
	c, err := client.New(tw.srvURL, key, client.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (tw *twins) count(key string) int {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.requests[key]
}

func create(t *testing.T, api quantum.API, req quantum.JobRequest) *quantum.Job {
	t.Helper()
	j, err := api.CreateJob(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func bellOn(device string, tags map[string]any) quantum.JobRequest {
	return quantum.JobRequest{DeviceQRN: device, Shots: 100, Program: &quantum.Program{Format: "qasm3", Data: bell},
		Tags: tags, RuntimeOptions: map[string]any{"seed": 7, "note": map[string]any{"x": 1.5, "y": []any{1, "a"}}}}
}

// sameAnswer fails unless the remote and the in-process call answered
// alike: deeply equal values, or errors with the same code, message and
// details.
func sameAnswer(t *testing.T, what string, remote, local func() (any, error)) {
	t.Helper()
	rv, rerr := remote()
	lv, lerr := local()
	if !reflect.DeepEqual(rerr, lerr) {
		t.Errorf("%s: error over HTTP %#v, in process %#v", what, rerr, lerr)
		return
	}
	if !reflect.DeepEqual(rv, lv) {
		t.Errorf("%s: over HTTP\n\t%#v\nin process\n\t%#v", what, rv, lv)
	}
}

// TestSameAsInProcess: every method answers over HTTP what it answers in
// process for the same server state, values and errors alike.
func TestSameAsInProcess(t *testing.T) {
	tw := newTwins(t)
	a, b := tw.remote, tw.local
	done := create(t, a, bellOn(flagship, map[string]any{"team": "a", "n": 3, "ok": true}))
	failed := create(t, a, bellOn(broken, nil))
	running := create(t, a, bellOn(blocked, map[string]any{"team": "b"}))
	<-tw.started
	for _, j := range []*quantum.Job{done, failed} {
		sameAnswer(t, "Wait of "+j.JobQRN,
			func() (any, error) { return a.Wait(ctx, j.JobQRN) }, func() (any, error) { return b.Wait(ctx, j.JobQRN) })
	}
	missing := flagship + "-0000-qjob-000000000000000000000000"
	no, yes := false, true
	for _, tc := range []struct {
		name string
		call func(api, bob quantum.API) (any, error)
	}{
		{"VerifyUser", func(api, _ quantum.API) (any, error) { return api.VerifyUser(ctx) }},
		{"GetJob", func(api, _ quantum.API) (any, error) { return api.GetJob(ctx, done.JobQRN) }},
		{"GetJob of a failed job", func(api, _ quantum.API) (any, error) { return api.GetJob(ctx, failed.JobQRN) }},
		{"GetJob of a running job", func(api, _ quantum.API) (any, error) { return api.GetJob(ctx, running.JobQRN) }},
		{"GetJob not found", func(api, _ quantum.API) (any, error) { return api.GetJob(ctx, missing) }},
		{"GetJob malformed", func(api, _ quantum.API) (any, error) { return api.GetJob(ctx, "events") }},
		{"GetJob of another's job", func(_, bob quantum.API) (any, error) { return bob.GetJob(ctx, done.JobQRN) }},
		{"GetJobResult", func(api, _ quantum.API) (any, error) { return api.GetJobResult(ctx, done.JobQRN) }},
		{"GetJobResult not ready", func(api, _ quantum.API) (any, error) { return api.GetJobResult(ctx, running.JobQRN) }},
		{"GetJobResult of a failed job", func(api, _ quantum.API) (any, error) { return api.GetJobResult(ctx, failed.JobQRN) }},
		{"GetJobProgram", func(api, _ quantum.API) (any, error) { return api.GetJobProgram(ctx, done.JobQRN) }},
		{"CancelJob of a finished job", func(api, _ quantum.API) (any, error) { return nil, api.CancelJob(ctx, done.JobQRN) }},
		{"CancelJob of another's job", func(_, bob quantum.API) (any, error) { return nil, bob.CancelJob(ctx, running.JobQRN) }},
		{"DeleteJob of a running job", func(api, _ quantum.API) (any, error) { return nil, api.DeleteJob(ctx, running.JobQRN) }},
		{"DeleteJob not found", func(api, _ quantum.API) (any, error) { return nil, api.DeleteJob(ctx, missing) }},
		{"DeleteJobs of nothing", func(api, _ quantum.API) (any, error) { return api.DeleteJobs(ctx, nil) }},
		{"DeleteJobs that all fail", func(_, bob quantum.API) (any, error) {
			return bob.DeleteJobs(ctx, []string{done.JobQRN, running.JobQRN, missing, "bad"})
		}},
		{"ListJobs", func(api, _ quantum.API) (any, error) { return api.ListJobs(ctx, quantum.JobQuery{}) }},
		{"ListJobs by tag", func(api, _ quantum.API) (any, error) {
			return api.ListJobs(ctx, quantum.JobQuery{Tags: map[string]any{"team": "a", "n": 3}})
		}},
		{"ListJobs by status, paged", func(api, _ quantum.API) (any, error) {
			return api.ListJobs(ctx, quantum.JobQuery{StatusGroup: "returned", Page: 2, Limit: 1, Search: "qir"})
		}},
		{"ListJobs of nobody's", func(_, bob quantum.API) (any, error) { return bob.ListJobs(ctx, quantum.JobQuery{}) }},
		{"ListJobs invalid", func(api, _ quantum.API) (any, error) {
			return api.ListJobs(ctx, quantum.JobQuery{Status: "NOPE", StatusGroup: "nope", Limit: -1})
		}},
		{"ListDevices", func(api, _ quantum.API) (any, error) { return api.ListDevices(ctx, quantum.DeviceQuery{}) }},
		{"ListDevices filtered", func(api, _ quantum.API) (any, error) {
			return api.ListDevices(ctx, quantum.DeviceQuery{Vendor: "qbraid", Retired: &no, DirectAccess: &yes, SortBy: "numberQubits", SortOrder: "desc", Limit: 2})
		}},
		{"ListDevices invalid", func(api, _ quantum.API) (any, error) {
			return api.ListDevices(ctx, quantum.DeviceQuery{Vendor: "nope", SortBy: "x"})
		}},
		{"GetDevice", func(api, _ quantum.API) (any, error) { return api.GetDevice(ctx, flagship) }},
		{"GetDevice not found", func(api, _ quantum.API) (any, error) { return api.GetDevice(ctx, "qbraid:qbraid:sim:nope") }},
		{"GetDevice malformed", func(api, _ quantum.API) (any, error) { return api.GetDevice(ctx, "nope") }},
		{"EstimateCost", func(api, _ quantum.API) (any, error) { return api.EstimateCost(ctx, "aws:aws:sim:sv1", 100) }},
		{"EstimateCost invalid", func(api, _ quantum.API) (any, error) { return api.EstimateCost(ctx, "", 10) }},
		{"CreditsBalance", func(api, _ quantum.API) (any, error) { return api.CreditsBalance(ctx, "") }},
		{"CreditsBalance of another organization", func(api, _ quantum.API) (any, error) { return api.CreditsBalance(ctx, "elsewhere") }},
		{"CreateJob invalid", func(api, _ quantum.API) (any, error) {
			return api.CreateJob(ctx, quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Name: strings.Repeat("n", 300),
				Program: &quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\nqubit q;\nh q\n"},
				Tags:    map[string]any{"f": 1.5}, RuntimeOptions: map[string]any{"seed": -1}})
		}},
		{"CreateJob of nothing", func(api, _ quantum.API) (any, error) { return api.CreateJob(ctx, quantum.JobRequest{}) }},
		{"CreateJob with a name that is not UTF-8", func(api, _ quantum.API) (any, error) {
			r := bellOn(flagship, nil)
			r.Name = "a\xffb"
			return api.CreateJob(ctx, r)
		}},
		{"Wait of another's job", func(_, bob quantum.API) (any, error) { return bob.Wait(ctx, done.JobQRN) }},
		{"Wait not found", func(api, _ quantum.API) (any, error) { return api.Wait(ctx, missing) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sameAnswer(t, tc.name,
				func() (any, error) { return tc.call(tw.remote, tw.bobR) },
				func() (any, error) { return tc.call(tw.local, tw.bobL) })
		})
	}

	// Changes, made over HTTP, seen alike both ways.
	if err := a.CancelJob(ctx, running.JobQRN); err != nil {
		t.Fatal(err)
	}
	sameAnswer(t, "Wait of a cancelled job",
		func() (any, error) { return a.Wait(ctx, running.JobQRN) }, func() (any, error) { return b.Wait(ctx, running.JobQRN) })
	if err := a.DeleteJob(ctx, done.JobQRN); err != nil {
		t.Fatal(err)
	}
	sameAnswer(t, "GetJob of a deleted job",
		func() (any, error) { return a.GetJob(ctx, done.JobQRN) }, func() (any, error) { return b.GetJob(ctx, done.JobQRN) })
	res, err := a.DeleteJobs(ctx, []string{failed.JobQRN})
	if want := (&quantum.DeleteJobsResult{SuccessfulIDs: []string{failed.JobQRN}, FailedIDs: map[string]string{}}); err != nil || !reflect.DeepEqual(res, want) {
		t.Fatalf("DeleteJobs: %+v %v, want %+v", res, err, want)
	}
	sameAnswer(t, "ListJobs after the deletes",
		func() (any, error) { return a.ListJobs(ctx, quantum.JobQuery{}) }, func() (any, error) { return b.ListJobs(ctx, quantum.JobQuery{}) })
}

func TestWrongKey(t *testing.T) {
	tw := newTwins(t)
	_, want := tw.svc.Authenticate(ctx, "wrong")
	for _, call := range []func(api quantum.API) error{
		func(api quantum.API) error { _, err := api.VerifyUser(ctx); return err },
		func(api quantum.API) error {
			_, err := api.Wait(ctx, flagship+"-0000-qjob-000000000000000000000000")
			return err
		},
		func(api quantum.API) error { _, err := api.CreateJob(ctx, bellOn(flagship, nil)); return err },
	} {
		if err := call(tw.client(t, "wrong")); !reflect.DeepEqual(err, want) {
			t.Fatalf("%#v, want %#v", err, want)
		}
	}
}

// TestWaitFollowsTheRealStream: Wait over the server's event stream
// answers as Wait in process, reading no job by GET, and a repeated create
// with the same key answers the same job.
func TestWaitFollowsTheRealStream(t *testing.T) {
	tw := newTwins(t)
	req := bellOn(blocked, nil)
	req.IdempotencyKey = "one-job"
	j := create(t, tw.remote, req)
	<-tw.started
	if again := create(t, tw.remote, req); again.JobQRN != j.JobQRN {
		t.Fatalf("a repeated create made job %s besides %s", again.JobQRN, j.JobQRN)
	}
	type answer struct {
		j   *quantum.Job
		err error
	}
	remote, local := make(chan answer, 1), make(chan answer, 1)
	go func() { j, err := tw.remote.Wait(ctx, j.JobQRN); remote <- answer{j, err} }()
	go func() { j, err := tw.local.Wait(ctx, j.JobQRN); local <- answer{j, err} }()
	// Once the stream has sent the job as it is, a change is one the
	// stream must carry.
	select {
	case <-tw.streaming:
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not open the job's event stream")
	}
	if err := tw.local.CancelJob(ctx, j.JobQRN); err != nil {
		t.Fatal(err)
	}
	r, l := <-remote, <-local
	if r.err != nil || l.err != nil || !reflect.DeepEqual(r.j, l.j) || r.j.Status != quantum.StatusCancelled {
		t.Fatalf("Wait over HTTP %+v %v; in process %+v %v", r.j, r.err, l.j, l.err)
	}
	if n := tw.count("GET /api/v1/jobs/" + j.JobQRN); n != 0 {
		t.Fatalf("Wait read the job %d times by GET: it polled", n)
	}
}
