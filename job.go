package quantum

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// JobStatus is the status of a job.
type JobStatus string

// The job statuses. A job moves INITIALIZING → VALIDATING → QUEUED →
// RUNNING → COMPLETED or FAILED; a cancel moves any unfinished job to
// CANCELLING, then CANCELLED once its work has stopped. COMPLETED, FAILED and
// CANCELLED are terminal: they never change again.
const (
	StatusInitializing JobStatus = "INITIALIZING"
	StatusQueued       JobStatus = "QUEUED"
	StatusValidating   JobStatus = "VALIDATING"
	StatusRunning      JobStatus = "RUNNING"
	StatusCancelling   JobStatus = "CANCELLING"
	StatusCancelled    JobStatus = "CANCELLED"
	StatusCompleted    JobStatus = "COMPLETED"
	StatusFailed       JobStatus = "FAILED"
	StatusUnknown      JobStatus = "UNKNOWN"
	StatusHold         JobStatus = "HOLD"
)

// IsTerminal reports whether the status never changes again.
func (s JobStatus) IsTerminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// JobStatuses lists the ten job statuses.
func JobStatuses() []JobStatus {
	return []JobStatus{StatusInitializing, StatusQueued, StatusValidating, StatusRunning, StatusCancelling,
		StatusCancelled, StatusCompleted, StatusFailed, StatusUnknown, StatusHold}
}

// StatusGroups maps the job list's status groups to their statuses:
// "returned" are the terminal ones, "pending" every other.
func StatusGroups() map[string][]JobStatus {
	groups := map[string][]JobStatus{}
	for _, s := range JobStatuses() {
		g := "pending"
		if s.IsTerminal() {
			g = "returned"
		}
		groups[g] = append(groups[g], s)
	}
	return groups
}

func validStatus(s JobStatus) bool { return containsStatus(JobStatuses(), s) }

// Program is a quantum program as submitted: its format and its text.
type Program struct {
	Format string `json:"format"`
	Data   string `json:"data"`
}

// JobRequest is what CreateJob takes.
type JobRequest struct {
	// Program is the job's program; Batch, set instead, makes a batch
	// job of 1 to MaxBatchCircuits programs, run one after another with
	// the request's shots and options, one result per program.
	Program        *Program
	Batch          []Program
	Shots          int
	DeviceQRN      string
	RuntimeOptions map[string]any
	Tags           map[string]any
	Name           string
	// IdempotencyKey, when set, makes the create safe to retry: a repeat
	// with the same key and the same request within IdempotencyWindow
	// returns the job the first one made instead of making another, and a
	// repeat with another request is a VALIDATION_ERROR. Over HTTP it is
	// the Idempotency-Key header.
	IdempotencyKey string
}

// Job is a job as the API shows it. Marshalled to JSON it is the wire
// object of the contract.
type Job struct {
	Name           string         `json:"name"`
	Shots          int            `json:"shots"`
	DeviceQRN      string         `json:"deviceQrn"`
	Tags           map[string]any `json:"tags"`
	RuntimeOptions map[string]any `json:"runtimeOptions"`
	JobQRN         string         `json:"jobQrn"`
	BatchJobQRN    *string        `json:"batchJobQrn"`
	Vendor         string         `json:"vendor"`
	Provider       string         `json:"provider"`
	Status         JobStatus      `json:"status"`
	StatusMsg      *string        `json:"statusMsg"`
	ExperimentType string         `json:"experimentType"`
	// NumCircuits is how many programs the job runs: 1, or a batch's
	// length.
	NumCircuits   int            `json:"numCircuits"`
	QueuePosition *int           `json:"queuePosition"`
	TimeStamps    TimeStamps     `json:"timeStamps"`
	Cost          float64        `json:"cost"`
	EstimatedCost float64        `json:"estimatedCost"`
	Metadata      map[string]any `json:"metadata"`
}

// TimeStamps are a job's times. JSON gives UTC RFC 3339 with milliseconds.
type TimeStamps struct {
	CreatedAt time.Time
	EndedAt   *time.Time
	// ExecutionDuration is in milliseconds: 0 until the job has run.
	ExecutionDuration int64
}

// TimestampLayout is the wire form of every time: UTC, milliseconds.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// MarshalJSON writes the wire form, by hand: every job a response holds
// has one, and the times need no escaping.
func (t TimeStamps) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 112)
	b = append(b, `{"createdAt":"`...)
	b = t.CreatedAt.UTC().AppendFormat(b, TimestampLayout)
	b = append(b, `","endedAt":`...)
	if t.EndedAt != nil {
		b = append(b, '"')
		b = t.EndedAt.UTC().AppendFormat(b, TimestampLayout)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"executionDuration":`...)
	b = strconv.AppendInt(b, t.ExecutionDuration, 10)
	return append(b, '}'), nil
}

// UnmarshalJSON reads the wire form.
func (t *TimeStamps) UnmarshalJSON(b []byte) error {
	var w struct {
		CreatedAt         time.Time  `json:"createdAt"`
		EndedAt           *time.Time `json:"endedAt"`
		ExecutionDuration int64      `json:"executionDuration"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = TimeStamps{CreatedAt: w.CreatedAt, EndedAt: w.EndedAt, ExecutionDuration: w.ExecutionDuration}
	return nil
}

// Clone returns a deep copy of the job, so a store's copy and a caller's
// never share maps, slices or pointers, however deeply nested.
func (j *Job) Clone() *Job {
	c := j.deepCopy()
	return &c
}

func (j *Job) deepCopy() Job {
	c := *j
	c.Tags = cloneMap(j.Tags)
	c.RuntimeOptions = cloneMap(j.RuntimeOptions)
	c.Metadata = cloneMap(j.Metadata)
	c.BatchJobQRN = clonePtr(j.BatchJobQRN)
	c.StatusMsg = clonePtr(j.StatusMsg)
	c.QueuePosition = clonePtr(j.QueuePosition)
	c.TimeStamps.EndedAt = clonePtr(j.TimeStamps.EndedAt)
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneMap returns a deep copy of m: the maps and slices that JSON decodes
// to (map[string]any and []any) are copied at every depth, walked with a
// stack of our own rather than by recursion. A nil map gives an empty one.
func cloneMap(m map[string]any) map[string]any {
	if len(m) == 0 {
		// The common empty map (a job's tags, say): a fresh one costs a
		// header, a clone of it a table as well.
		return map[string]any{}
	}
	out := maps.Clone(m)
	nested := false
	for _, v := range out {
		switch v.(type) {
		case map[string]any, []any:
			nested = true
		}
	}
	if !nested {
		return out // the common case: nothing below the top level
	}
	stack := []any{out}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := c.(type) {
		case map[string]any:
			for k, v := range x {
				if cp, ok := shallowCopy(v); ok {
					x[k] = cp
					stack = append(stack, cp)
				}
			}
		case []any:
			for i, v := range x {
				if cp, ok := shallowCopy(v); ok {
					x[i] = cp
					stack = append(stack, cp)
				}
			}
		}
	}
	return out
}

// shallowCopy copies one level of a JSON map or slice.
func shallowCopy(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x, false
		}
		return maps.Clone(x), true
	case []any:
		if x == nil {
			return x, false
		}
		return slices.Clone(x), true
	}
	return v, false
}

// JobResult is what GetJobResult returns: for a job of one program, its
// counts in ResultData; for a batch, one CircuitResult per circuit in
// Results (and no resultData on the wire).
type JobResult struct {
	Status     JobStatus       `json:"status"`
	Cost       float64         `json:"cost"`
	TimeStamps TimeStamps      `json:"timeStamps"`
	ResultData ResultData      `json:"resultData,omitzero"`
	Results    []CircuitResult `json:"results,omitempty"`
}

// CircuitResult is one circuit's part of a batch's result: its status
// (COMPLETED in a completed batch), its cost without the batch's perTask,
// its times (the batch's creation; its own end and duration) and counts.
type CircuitResult struct {
	Status     JobStatus  `json:"status"`
	Cost       float64    `json:"cost"`
	TimeStamps TimeStamps `json:"timeStamps"`
	ResultData ResultData `json:"resultData"`
}

// ResultData holds a result's measurement counts: bit strings (classical
// bit 0 rightmost) to how often they were measured.
type ResultData struct {
	MeasurementCounts map[string]int `json:"measurementCounts"`
}

// JobQuery selects a page of the caller's jobs. Zero Page and Limit mean
// the defaults (1 and 50).
type JobQuery struct {
	Vendor      string
	Provider    string
	Status      JobStatus // wins over StatusGroup
	StatusGroup string    // all, pending or returned
	Search      string
	Tags        map[string]any
	Page, Limit int
}

// Pagination describes a page of a list.
type Pagination struct {
	Page       int  `json:"page"`
	Limit      int  `json:"limit"`
	Total      int  `json:"total"`
	TotalPages int  `json:"totalPages"`
	HasNext    bool `json:"hasNext"`
	HasPrev    bool `json:"hasPrev"`
}

func newPagination(page, limit, total int) Pagination {
	pages := total / limit
	if total%limit != 0 {
		pages++
	}
	return Pagination{Page: page, Limit: limit, Total: total, TotalPages: pages, HasNext: page < pages, HasPrev: page > 1}
}

// pageOffset is how many items come before page (1-based) of pages of
// limit items: math.MaxInt when that overflows, which is past the end of
// any list.
func pageOffset(page, limit int) int {
	if page < 1 || limit < 1 {
		return 0
	}
	if page-1 > math.MaxInt/limit {
		return math.MaxInt
	}
	return (page - 1) * limit
}

// JobPage is a page of jobs.
type JobPage struct {
	Jobs       []*Job
	Pagination Pagination
}

// DeleteJobsResult reports a bulk delete, QRN by QRN.
type DeleteJobsResult struct {
	SuccessfulIDs []string          `json:"successfulIds"`
	FailedIDs     map[string]string `json:"failedIds"`
}

// Reasons a QRN of a bulk delete failed.
const (
	ReasonNotFound     = "Job not found"
	ReasonForbidden    = "Permission denied"
	ReasonNotFinal     = "Job is not in a final state"
	ReasonInvalidQRN   = "Invalid QRN"
	ReasonInternalFail = "Internal error"
)

func matchesSearch(search string, fields ...string) bool {
	s := strings.ToLower(search)
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f), s) {
			return true
		}
	}
	return false
}

// TagValue normalises a tag value as jobs store and filters compare them:
// strings, booleans and integers are allowed (integers of any Go type, or
// integral floats as JSON decodes them, become int64). ok is false for
// anything else. Stores that index tags use it, so that they match
// exactly what JobFilter.Matches matches.
func TagValue(v any) (any, bool) { return tagValue(v) }

func tagValue(v any) (any, bool) {
	switch x := v.(type) {
	case string, bool:
		return x, true
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	case float32:
		f := float64(x)
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), true
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, true
		}
	}
	return nil, false
}

func sameTagValue(a, b any) bool {
	x, ok1 := tagValue(a)
	y, ok2 := tagValue(b)
	return ok1 && ok2 && x == y
}

// roundCost rounds credits to 6 decimals.
func roundCost(c float64) float64 { return math.Round(c*1e6) / 1e6 }

// FromJSONNumbers returns v with every json.Number (as a decoder with
// UseNumber leaves them) turned into an int64 when it is integral and a
// float64 otherwise, in nested maps and slices too. Adapters that decode
// tags and options use it so that 3 and 3.5 arrive as the Go types the
// Service checks.
func FromJSONNumbers(v any) any {
	v = fromJSONNumber(v)
	stack := []any{v} // nested maps and slices, walked without recursion
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := c.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = fromJSONNumber(e)
				stack = append(stack, x[k])
			}
		case []any:
			for i, e := range x {
				x[i] = fromJSONNumber(e)
				stack = append(stack, x[i])
			}
		}
	}
	return v
}

func fromJSONNumber(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64()
	return f
}

// jsonValues returns a copy of m made of what JSON decodes to (maps,
// slices, strings, booleans, nil, int64 for integral numbers and float64
// for the rest), as if m had come over HTTP: values an in-process caller
// passes (a []int, a struct) are stored alike and never shared with it.
func jsonValues(m map[string]any) (map[string]any, error) {
	if len(m) == 0 {
		return map[string]any{}, nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	FromJSONNumbers(out)
	return out, nil
}
