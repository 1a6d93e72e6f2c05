package httpadapter

import (
	"bufio"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// A result's counts can hold a million outcomes of many bits: tens of MB.
// writeResult streams them to the connection through a small buffer, key
// by key, instead of encoding the whole body into a second copy in memory
// first (which a slow reader would then pin). The bytes are those
// encoding/json would write for the same envelope (the tests check it):
// keys sorted, the same escaping.

// resultWriters keeps the buffers of writeResult: one of 32 KiB for every
// result read would be most of what a small job allocates, and so most of
// the collector's work.
var resultWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 32<<10) }}

// resultHead writes every field of a result but its data, in
// quantum.JobResult's JSON order, without the closing brace: by hand, as
// a job is (appendJob).
func resultHead(b []byte, status quantum.JobStatus, cost float64, ts qtype.TimeStamps) ([]byte, error) {
	b = append(b, `{"status":`...)
	b = appendString(b, string(status))
	b = append(b, `,"cost":`...)
	b, ok := appendFloat(b, cost)
	if !ok {
		_, err := json.Marshal(cost) // encoding/json's refusal
		return b, err
	}
	b = append(b, `,"timeStamps":`...)
	return appendTimeStamps(b, ts), nil
}

func writeResult(w http.ResponseWriter, res *quantum.JobResult) error {
	var buf [160]byte
	head, err := resultHead(buf[:0], res.Status, res.Cost, res.TimeStamps)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	bw := resultWriters.Get().(*bufio.Writer)
	bw.Reset(w)
	defer func() {
		bw.Reset(nil) // hold no connection in the pool
		resultWriters.Put(bw)
	}()
	bw.WriteString(`{"success":true,"data":`)
	bw.Write(head)
	if res.Results == nil {
		if err := writeResultData(bw, res.ResultData); err != nil {
			return err
		}
		bw.WriteString("}}\n")
		return bw.Flush()
	}
	bw.WriteString(`,"results":[`)
	for i, c := range res.Results {
		if i > 0 {
			bw.WriteByte(',')
		}
		head, err := resultHead(buf[:0], c.Status, c.Cost, c.TimeStamps)
		if err != nil {
			return err
		}
		bw.Write(head)
		if err := writeResultData(bw, c.ResultData); err != nil {
			return err
		}
		bw.WriteByte('}')
	}
	bw.WriteString("]}}\n")
	return bw.Flush()
}

// writeResultData writes ,"resultData":{...}: the device's data and the
// measurement counts, every object's keys sorted, as encoding/json writes
// quantum.ResultData.
func writeResultData(bw *bufio.Writer, d quantum.ResultData) error {
	bw.WriteString(`,"resultData":{`)
	keys := slices.Sorted(maps.Keys(d.Data))
	withCounts := d.MeasurementCounts != nil || d.Data == nil
	if withCounts {
		keys = append(keys, "measurementCounts")
		slices.Sort(keys)
	}
	for i, k := range keys {
		if i > 0 {
			bw.WriteByte(',')
		}
		writeString(bw, k)
		bw.WriteByte(':')
		if k == "measurementCounts" && withCounts {
			writeCounts(bw, d.MeasurementCounts)
			continue
		}
		v, err := json.Marshal(d.Data[k])
		if err != nil {
			return err
		}
		bw.Write(v)
	}
	bw.WriteByte('}')
	return nil
}

// writeCounts writes the counts as a JSON object, its keys sorted.
func writeCounts(bw *bufio.Writer, counts map[string]int) {
	bw.WriteByte('{')
	var num []byte
	for i, k := range slices.Sorted(maps.Keys(counts)) {
		if i > 0 {
			bw.WriteByte(',')
		}
		writeString(bw, k)
		bw.WriteByte(':')
		num = strconv.AppendInt(num[:0], int64(counts[k]), 10)
		bw.Write(num)
	}
	bw.WriteByte('}')
}

// writeString writes s as a JSON string: directly when it needs no
// escaping (bit strings never do), else as encoding/json escapes it.
func writeString(bw *bufio.Writer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			bw.Write(b)
			return
		}
	}
	bw.WriteByte('"')
	bw.WriteString(s)
	bw.WriteByte('"')
}
