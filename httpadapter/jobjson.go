package httpadapter

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// A create and every poll answer one job: encoding it by reflection was
// the largest part of the handlers' own work. okJob writes the bytes
// encoding/json would write for the same envelope (jobjson_test.go checks
// it on unusual values), by hand for the values a job usually holds and
// through encoding/json for the rest.

// jobBuffers keeps the buffers jobs are encoded into; one that grew past
// maxPooledJob (a job with large tags) is left to the collector.
var jobBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledJob = 64 << 10

// okJob writes job in the success envelope.
func (h *handler) okJob(w http.ResponseWriter, status int, job *quantum.Job) {
	bp := jobBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledJob {
			jobBuffers.Put(bp)
		}
	}()
	b, ok := appendJob(append((*bp)[:0], `{"success":true,"data":`...), job)
	if !ok {
		// A value encoding/json refuses (a NaN): let it say so, as it did
		// before.
		h.ok(w, status, job)
		return
	}
	b = append(b, "}\n"...)
	*bp = b
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// appendJob appends j as encoding/json writes a quantum.Job; ok is false
// where encoding/json would fail.
func appendJob(b []byte, j *quantum.Job) (_ []byte, ok bool) {
	if j == nil {
		return append(b, "null"...), true
	}
	b = append(b, `{"name":`...)
	b = appendString(b, j.Name)
	b = append(b, `,"shots":`...)
	b = strconv.AppendInt(b, int64(j.Shots), 10)
	b = append(b, `,"deviceQrn":`...)
	b = appendString(b, j.DeviceQRN)
	b = append(b, `,"tags":`...)
	if b, ok = appendMap(b, j.Tags); !ok {
		return b, false
	}
	b = append(b, `,"runtimeOptions":`...)
	if b, ok = appendMap(b, j.RuntimeOptions); !ok {
		return b, false
	}
	b = append(b, `,"jobQrn":`...)
	b = appendString(b, j.JobQRN)
	b = append(b, `,"batchJobQrn":`...)
	b = appendStringPtr(b, j.BatchJobQRN)
	b = append(b, `,"vendor":`...)
	b = appendString(b, j.Vendor)
	b = append(b, `,"provider":`...)
	b = appendString(b, j.Provider)
	b = append(b, `,"status":`...)
	b = appendString(b, string(j.Status))
	b = append(b, `,"statusMsg":`...)
	b = appendStringPtr(b, j.StatusMsg)
	b = append(b, `,"experimentType":`...)
	b = appendString(b, j.ExperimentType)
	b = append(b, `,"numCircuits":`...)
	b = strconv.AppendInt(b, int64(j.NumCircuits), 10)
	b = append(b, `,"queuePosition":`...)
	if j.QueuePosition == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*j.QueuePosition), 10)
	}
	b = append(b, `,"timeStamps":`...)
	b = appendTimeStamps(b, j.TimeStamps)
	b = append(b, `,"cost":`...)
	if b, ok = appendFloat(b, j.Cost); !ok {
		return b, false
	}
	b = append(b, `,"estimatedCost":`...)
	if b, ok = appendFloat(b, j.EstimatedCost); !ok {
		return b, false
	}
	b = append(b, `,"metadata":`...)
	if b, ok = appendMap(b, j.Metadata); !ok {
		return b, false
	}
	return append(b, '}'), true
}

// appendMap writes m with its keys sorted, as encoding/json does; nil is
// null.
func appendMap(b []byte, m map[string]any) (_ []byte, ok bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		if b, ok = appendValue(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendValue writes the values a job's maps usually hold by hand, and
// any other through encoding/json.
func appendValue(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case float64:
		return appendFloat(b, v)
	case map[string]any:
		return appendMap(b, v)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return append(b, raw...), true
}

// appendFloat writes f as encoding/json does where it writes the plain
// decimal form, and leaves the exponent form and its refusals (NaN,
// infinities) to it.
func appendFloat(b []byte, f float64) (_ []byte, ok bool) {
	if abs := math.Abs(f); abs == 0 || abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64), true
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return b, false
	}
	return append(b, raw...), true
}

// appendTimeStamps writes what qtype.TimeStamps.MarshalJSON writes,
// without a slice of its own.
func appendTimeStamps(b []byte, t qtype.TimeStamps) []byte {
	b = append(b, `{"createdAt":"`...)
	b = t.CreatedAt.UTC().AppendFormat(b, qtype.TimestampLayout)
	b = append(b, `","endedAt":`...)
	if t.EndedAt != nil {
		b = append(b, '"')
		b = t.EndedAt.UTC().AppendFormat(b, qtype.TimestampLayout)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"executionDuration":`...)
	b = strconv.AppendInt(b, t.ExecutionDuration, 10)
	return append(b, '}')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendString writes s as a JSON string: directly when it needs no
// escaping (QRNs, statuses and names usually), else as encoding/json
// escapes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s)
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
