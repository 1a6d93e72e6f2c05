package quantum

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"

	"github.com/qjobs/quantum/qtype"
)

func validStatus(s JobStatus) bool { return slices.Contains(qtype.JobStatuses(), s) }

// JobRequest is what CreateJob takes. Shots may be 0 for an annealing
// problem (the format "problem"), whose reads are runtimeOptions.num_reads:
// the job then shows 1.
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

// JobResult is what GetJobResult returns: for a job of one program, its
// counts in ResultData; for a batch, one CircuitResult per circuit in
// Results (and no resultData on the wire).
type JobResult struct {
	Status     JobStatus        `json:"status"`
	Cost       float64          `json:"cost"`
	TimeStamps qtype.TimeStamps `json:"timeStamps"`
	ResultData ResultData       `json:"resultData,omitzero"`
	Results    []CircuitResult  `json:"results,omitempty"`
}

// CircuitResult is one circuit's part of a batch's result: its status
// (COMPLETED in a completed batch), its cost without the batch's perTask,
// its times (the batch's creation; its own end and duration) and counts.
type CircuitResult struct {
	Status     JobStatus        `json:"status"`
	Cost       float64          `json:"cost"`
	TimeStamps qtype.TimeStamps `json:"timeStamps"`
	ResultData ResultData       `json:"resultData"`
}

// ResultData holds a result's measurement counts: bit strings (classical
// bit 0 rightmost) to how often they were measured; and what the device
// reported beside them (an analog device's measurements of each shot, an
// annealer's solutions), whose keys stand beside measurementCounts in
// JSON.
type ResultData struct {
	MeasurementCounts map[string]int
	Data              map[string]any
}

// MarshalJSON writes measurementCounts (when there are counts, or no
// data) and the data's keys in one object.
func (d ResultData) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(d.Data)+1)
	maps.Copy(m, d.Data)
	if d.MeasurementCounts != nil || d.Data == nil {
		counts := d.MeasurementCounts
		if counts == nil {
			counts = map[string]int{}
		}
		m["measurementCounts"] = counts
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *ResultData) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*d = ResultData{}
	for k, v := range m {
		if k == "measurementCounts" {
			if err := json.Unmarshal(v, &d.MeasurementCounts); err != nil {
				return err
			}
			continue
		}
		if d.Data == nil {
			d.Data = map[string]any{}
		}
		var x any
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&x); err != nil {
			return err
		}
		d.Data[k] = qtype.FromJSONNumbers(x)
	}
	return nil
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
	qtype.FromJSONNumbers(out)
	return out, nil
}
