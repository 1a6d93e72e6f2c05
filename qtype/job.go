package qtype

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
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

// Program is a quantum program as submitted: its format and its text.
// The data of a JSON format (IsJSONFormat: IonQ circuits, analog
// programs, annealing problems) is the JSON text; in JSON it is written as
// the value itself, and read from the value or from a string holding it.
type Program struct {
	Format string `json:"format"`
	Data   string `json:"data"`
}

// wireProgram is a Program's JSON form.
type wireProgram struct {
	Format string          `json:"format"`
	Data   json.RawMessage `json:"data"`
}

// MarshalJSON writes the data of a JSON format as the value it holds,
// and any other as a string.
func (p Program) MarshalJSON() ([]byte, error) {
	if IsJSONFormat(p.Format) && json.Valid([]byte(p.Data)) {
		return json.Marshal(wireProgram{Format: p.Format, Data: json.RawMessage(p.Data)})
	}
	type plain Program // without these methods
	return json.Marshal(plain(p))
}

// UnmarshalJSON reads data given as a string, or, for a JSON format, as
// the value itself (kept as its compact text).
func (p *Program) UnmarshalJSON(b []byte) error {
	var w wireProgram
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = Program{Format: w.Format}
	if len(w.Data) == 0 || string(w.Data) == "null" {
		return nil
	}
	if err := json.Unmarshal(w.Data, &p.Data); err == nil {
		return nil
	}
	if !IsJSONFormat(w.Format) {
		return fmt.Errorf("program data of format %q must be a string", w.Format)
	}
	data, _ := CompactJSON(w.Data)
	p.Data = data
	return nil
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
	c := j.DeepCopy()
	return &c
}

func (j *Job) DeepCopy() Job {
	c := *j
	c.Tags = CloneMap(j.Tags)
	c.RuntimeOptions = CloneMap(j.RuntimeOptions)
	c.Metadata = CloneMap(j.Metadata)
	c.BatchJobQRN = ClonePtr(j.BatchJobQRN)
	c.StatusMsg = ClonePtr(j.StatusMsg)
	c.QueuePosition = ClonePtr(j.QueuePosition)
	c.TimeStamps.EndedAt = ClonePtr(j.TimeStamps.EndedAt)
	return c
}

func ClonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneMap returns a deep copy of m: the maps and slices that JSON decodes
// to (map[string]any and []any) are copied at every depth, walked with a
// stack of our own rather than by recursion. A nil map gives an empty one.
func CloneMap(m map[string]any) map[string]any {
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

func MatchesSearch(search string, fields ...string) bool {
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

func SameTagValue(a, b any) bool {
	x, ok1 := tagValue(a)
	y, ok2 := tagValue(b)
	return ok1 && ok2 && x == y
}

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

// roundCost rounds credits to 6 decimals.
func RoundCost(c float64) float64 { return math.Round(c*1e6) / 1e6 }

// SeedOrFresh is seed, or a fresh seed when the job has none, which the
// job reports in its metadata: 53 bits, so that it survives JSON clients
// that read numbers as doubles.
func SeedOrFresh(seed *uint64) *uint64 {
	if seed != nil {
		return seed
	}
	s := rand.Uint64() >> 11
	return &s
}

// SeedOption reads runtimeOptions.seed: absent or null means none.
func SeedOption(opts map[string]any) (*uint64, string) {
	raw, ok := opts["seed"]
	if !ok || raw == nil {
		return nil, ""
	}
	v, ok := TagValue(raw)
	i, isInt := v.(int64)
	if !ok || !isInt {
		return nil, "must be a non-negative integer"
	}
	if i < 0 {
		return nil, "must be a non-negative integer"
	}
	u := uint64(i)
	return &u, ""
}
