package quantum_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
)

// nested is a JSON value with maps and slices inside each other.
func nested() map[string]any {
	return map[string]any{
		"a": map[string]any{"b": []any{int64(1), map[string]any{"c": "d"}, []any{"e"}}},
		"f": []any{map[string]any{"g": true}},
		"h": "i",
	}
}

// scribble changes every value inside v, at every depth: leaves are
// replaced and every map gains a key.
func scribble(v any) {
	stack := []any{v}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := c.(type) {
		case map[string]any:
			for k, e := range x {
				stack = append(stack, e)
				if _, ok := e.(map[string]any); !ok {
					if _, ok := e.([]any); !ok {
						x[k] = "scribbled"
					}
				}
			}
			x["scribbled"] = true
		case []any:
			for i, e := range x {
				stack = append(stack, e)
				if _, ok := e.(map[string]any); !ok {
					if _, ok := e.([]any); !ok {
						x[i] = "scribbled"
					}
				}
			}
		}
	}
}

func scribbleJob(j *quantum.Job) {
	scribble(j.Tags)
	scribble(j.RuntimeOptions)
	scribble(j.Metadata)
	*j.StatusMsg, *j.BatchJobQRN, *j.QueuePosition = "scribbled", "scribbled", -1
	*j.TimeStamps.EndedAt = time.Time{}
}

func TestCloneIsDeep(t *testing.T) {
	mk := func() *quantum.Job {
		end := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
		return &quantum.Job{Name: "n", Tags: map[string]any{"t": "v"}, RuntimeOptions: nested(), Metadata: nested(),
			StatusMsg: ptr("m"), BatchJobQRN: ptr("b"), QueuePosition: ptr(3), TimeStamps: qtype.TimeStamps{EndedAt: &end}}
	}
	orig := mk()
	scribbleJob(orig.Clone())
	if !reflect.DeepEqual(orig, mk()) {
		t.Fatalf("changing a clone changed the original: %+v", orig)
	}
}

// Jobs the Service returns share nothing with what it keeps, and what a
// caller passed in is copied, not kept.
func TestReturnedJobsShareNothing(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	opts := nested()
	ints := []int{1, 2, 3} // an in-process caller's own types are stored as JSON values
	opts["ints"] = ints
	req := request(flagship, "qasm2", bell2, 5)
	req.RuntimeOptions = opts
	created := create(t, svc, u, req)
	ints[0] = 99
	scribble(opts)
	scribbleJob(withPointers(created))
	first := quantumtest.WaitForJob(t, svc, u, created.JobQRN)
	want := nested()
	want["ints"] = []any{int64(1), int64(2), int64(3)}
	if !reflect.DeepEqual(first.RuntimeOptions, want) {
		t.Fatalf("runtimeOptions stored as %v, want %v", first.RuntimeOptions, want)
	}
	scribbleJob(withPointers(first))
	page, err := svc.ListJobs(ctx, u, quantum.JobQuery{})
	if err != nil {
		t.Fatal(err)
	}
	scribbleJob(withPointers(page.Jobs[0]))
	again, err := svc.GetJob(ctx, u, created.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.RuntimeOptions, want) || again.StatusMsg != nil || again.TimeStamps.EndedAt == nil || again.TimeStamps.EndedAt.IsZero() {
		t.Fatalf("the stored job changed: %+v", again)
	}
}

// withPointers gives a job's nil pointers something to point at, so that
// scribbleJob can write through them.
func withPointers(j *quantum.Job) *quantum.Job {
	if j.StatusMsg == nil {
		j.StatusMsg = ptr("")
	}
	if j.BatchJobQRN == nil {
		j.BatchJobQRN = ptr("")
	}
	if j.QueuePosition == nil {
		j.QueuePosition = ptr(0)
	}
	if j.TimeStamps.EndedAt == nil {
		j.TimeStamps.EndedAt = &time.Time{}
	}
	return j
}
