package apitest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
)

// testListJobs: pages of a user's jobs, newest first, and every filter,
// alone and together; each page is compared whole, its jobs with GetJob's.
func testListJobs(t *testing.T, target Target) {
	e := open(t, target)
	blocked, broken := e.blocked(), e.broken()
	var jobs []*quantum.Job // oldest first
	add := func(device, name string, tags map[string]any) {
		t.Helper()
		req := request(device, bell, 10)
		req.Name, req.Tags = name, tags
		j := e.create(e.alice, req)
		if device == blocked {
			e.running(j.JobQRN)
		} else {
			e.wait(e.alice, j.JobQRN)
		}
		jobs = append(jobs, e.get(e.alice, j.JobQRN))
	}
	for i := range 4 {
		add(flagship, fmt.Sprintf("exp-alpha-%d", i), map[string]any{"parity": []string{"even", "odd"}[i%2], "i": i})
	}
	add(sv1, "exp-beta", map[string]any{"parity": "even", "i": 4})
	add(broken, "broken", nil)
	add(blocked, "blocked", map[string]any{"i": 6, "ok": true})
	// The jobs by index, newest first.
	pick := func(idx ...int) []*quantum.Job {
		out := []*quantum.Job{}
		for _, i := range idx {
			out = append(out, jobs[i])
		}
		return out
	}
	all := pick(6, 5, 4, 3, 2, 1, 0)
	one := func(total int) quantum.Pagination {
		return quantum.Pagination{Page: 1, Limit: 50, Total: total, TotalPages: min(total, 1)}
	}
	tests := []struct {
		name  string
		q     quantum.JobQuery
		jobs  []*quantum.Job
		pages quantum.Pagination
	}{
		{"all", quantum.JobQuery{}, all, one(7)},
		{"page 2 of 3", quantum.JobQuery{Page: 2, Limit: 3}, pick(3, 2, 1), quantum.Pagination{Page: 2, Limit: 3, Total: 7, TotalPages: 3, HasNext: true, HasPrev: true}},
		{"last page", quantum.JobQuery{Page: 3, Limit: 3}, pick(0), quantum.Pagination{Page: 3, Limit: 3, Total: 7, TotalPages: 3, HasPrev: true}},
		{"first page", quantum.JobQuery{Page: 1, Limit: 1}, pick(6), quantum.Pagination{Page: 1, Limit: 1, Total: 7, TotalPages: 7, HasNext: true}},
		{"page 100", quantum.JobQuery{Limit: 100}, all, quantum.Pagination{Page: 1, Limit: 100, Total: 7, TotalPages: 1}},
		{"past the end", quantum.JobQuery{Page: 9}, pick(), quantum.Pagination{Page: 9, Limit: 50, Total: 7, TotalPages: 1, HasPrev: true}},
		{"status COMPLETED", quantum.JobQuery{Status: quantum.StatusCompleted}, pick(4, 3, 2, 1, 0), one(5)},
		{"status RUNNING", quantum.JobQuery{Status: quantum.StatusRunning}, pick(6), one(1)},
		{"status FAILED", quantum.JobQuery{Status: quantum.StatusFailed}, pick(5), one(1)},
		{"status HOLD", quantum.JobQuery{Status: quantum.StatusHold}, pick(), one(0)},
		{"status wins over statusGroup", quantum.JobQuery{Status: quantum.StatusCompleted, StatusGroup: "pending"}, pick(4, 3, 2, 1, 0), one(5)},
		{"statusGroup pending", quantum.JobQuery{StatusGroup: "pending"}, pick(6), one(1)},
		{"statusGroup returned", quantum.JobQuery{StatusGroup: "returned"}, pick(5, 4, 3, 2, 1, 0), one(6)},
		{"statusGroup all", quantum.JobQuery{StatusGroup: "all"}, all, one(7)},
		{"vendor aws", quantum.JobQuery{Vendor: "aws"}, pick(4), one(1)},
		{"vendor all", quantum.JobQuery{Vendor: "all"}, all, one(7)},
		{"vendor ibm", quantum.JobQuery{Vendor: "ibm"}, pick(), one(0)},
		{"vendor and provider", quantum.JobQuery{Vendor: "qbraid", Provider: "qbraid"}, pick(6, 5, 3, 2, 1, 0), one(6)},
		{"provider aws", quantum.JobQuery{Provider: "aws"}, pick(4), one(1)},
		{"unknown provider", quantum.JobQuery{Provider: "nobody"}, pick(), one(0)},
		{"search a name", quantum.JobQuery{Search: "ALPHA-2"}, pick(2), one(1)},
		{"search names", quantum.JobQuery{Search: "exp-"}, pick(4, 3, 2, 1, 0), one(5)},
		{"search a device", quantum.JobQuery{Search: "sim:sv1"}, pick(4), one(1)},
		{"search a QRN", quantum.JobQuery{Search: jobs[3].JobQRN}, pick(3), one(1)},
		{"search nothing there", quantum.JobQuery{Search: "zzz"}, pick(), one(0)},
		{"tag", quantum.JobQuery{Tags: map[string]any{"parity": "odd"}}, pick(3, 1), one(2)},
		{"two tags", quantum.JobQuery{Tags: map[string]any{"parity": "even", "i": 4}}, pick(4), one(1)},
		{"integer tag as a float", quantum.JobQuery{Tags: map[string]any{"i": 2.0}}, pick(2), one(1)},
		{"integer tag of another Go type", quantum.JobQuery{Tags: map[string]any{"i": int8(0)}}, pick(0), one(1)},
		{"boolean tag", quantum.JobQuery{Tags: map[string]any{"ok": true}}, pick(6), one(1)},
		{"tag of the wrong type", quantum.JobQuery{Tags: map[string]any{"i": "2"}}, pick(), one(0)},
		{"absent tag", quantum.JobQuery{Tags: map[string]any{"nope": "x"}}, pick(), one(0)},
		{"empty tags", quantum.JobQuery{Tags: map[string]any{}}, all, one(7)},
		{"everything at once", quantum.JobQuery{StatusGroup: "returned", Vendor: "qbraid", Provider: "qbraid", Search: "EXP",
			Tags: map[string]any{"parity": "even"}, Page: 2, Limit: 1}, pick(0), quantum.Pagination{Page: 2, Limit: 1, Total: 2, TotalPages: 2, HasPrev: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantEqual(t, "page", e.list(e.alice, tc.q), &quantum.JobPage{Jobs: tc.jobs, Pagination: tc.pages})
		})
	}
	wantEqual(t, "bob's page", e.list(e.bob, quantum.JobQuery{}), &quantum.JobPage{Jobs: []*quantum.Job{}, Pagination: one(0)})
}

// testListJobsInvalid: every rule of a job query, alone and several at
// once.
func testListJobsInvalid(t *testing.T, target Target) {
	e := open(t, target)
	const (
		pageRule   = "must be at least 1"
		limitRule  = "must be between 1 and 100"
		vendorRule = "must be all or one of aws, azure, ibm, ionq, qbraid"
		statusRule = "must be one of INITIALIZING, QUEUED, VALIDATING, RUNNING, CANCELLING, CANCELLED, COMPLETED, FAILED, UNKNOWN, HOLD"
		groupRule  = "must be all, pending or returned"
		searchRule = "must be 1 to 255 characters"
		textRule   = "must be valid UTF-8 without NUL characters"
	)
	tests := []struct {
		name string
		q    quantum.JobQuery
		want *quantum.Error
	}{
		{"negative page", quantum.JobQuery{Page: -1}, invalid(field("page", pageRule))},
		{"limit 101", quantum.JobQuery{Limit: 101}, invalid(field("limit", limitRule))},
		{"negative limit", quantum.JobQuery{Limit: -1}, invalid(field("limit", limitRule))},
		{"unknown vendor", quantum.JobQuery{Vendor: "google"}, invalid(field("vendor", vendorRule))},
		{"unknown status", quantum.JobQuery{Status: "DONE"}, invalid(field("status", statusRule))},
		{"lower-case status", quantum.JobQuery{Status: "completed"}, invalid(field("status", statusRule))},
		{"unknown statusGroup", quantum.JobQuery{StatusGroup: "later"}, invalid(field("statusGroup", groupRule))},
		{"long search", quantum.JobQuery{Search: strings.Repeat("s", 256)}, invalid(field("search", searchRule))},
		{"fractional tag", quantum.JobQuery{Tags: map[string]any{"x": 0.5}}, invalid(field("tags", `value of "x" must be a string, an integer or a boolean`))},
		{"null tag", quantum.JobQuery{Tags: map[string]any{"x": nil}}, invalid(field("tags", `value of "x" must be a string, an integer or a boolean`))},
		{"provider with NUL", quantum.JobQuery{Provider: "a\x00b"}, invalid(field("provider", textRule))},
		{"several at once", quantum.JobQuery{Page: -1, Limit: 1000, Vendor: "nope", Status: "DONE", Search: strings.Repeat("s", 256), Tags: map[string]any{"x": 1.5}},
			invalid(field("page", pageRule), field("limit", limitRule), field("vendor", vendorRule), field("status", statusRule),
				field("search", searchRule), field("tags", `value of "x" must be a string, an integer or a boolean`))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.alice.ListJobs(ctx, tc.q)
			wantErr(t, "ListJobs", err, tc.want)
		})
	}
}
