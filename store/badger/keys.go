package badger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// record is a job as stored: every field, times in full precision.
type record struct {
	Name              string          `json:"name"`
	Shots             int             `json:"shots"`
	DeviceQRN         string          `json:"deviceQrn"`
	Tags              map[string]any  `json:"tags"`
	RuntimeOptions    map[string]any  `json:"runtimeOptions"`
	JobQRN            string          `json:"jobQrn"`
	BatchJobQRN       *string         `json:"batchJobQrn"`
	Vendor            string          `json:"vendor"`
	Provider          string          `json:"provider"`
	Status            qtype.JobStatus `json:"status"`
	StatusMsg         *string         `json:"statusMsg"`
	ExperimentType    string          `json:"experimentType"`
	NumCircuits       int             `json:"numCircuits,omitempty"`
	CreatedAt         time.Time       `json:"createdAt"`
	EndedAt           *time.Time      `json:"endedAt"`
	ExecutionDuration int64           `json:"executionDuration"`
	Cost              float64         `json:"cost"`
	EstimatedCost     float64         `json:"estimatedCost"`
	Metadata          map[string]any  `json:"metadata"`
	Owner             string          `json:"owner"`
	UpdatedAt         time.Time       `json:"updatedAt"`
	QueuedAt          time.Time       `json:"queuedAt"`
	LeaseUntil        time.Time       `json:"leaseUntil"`
	MemoryNeed        int64           `json:"memoryNeed,omitempty"`
	Reserved          int64           `json:"reserved,omitempty"`
	Attempts          int             `json:"attempts,omitempty"`
	Node              string          `json:"node,omitempty"`
	IdempotencyKey    string          `json:"idempotencyKey,omitempty"`
	RequestHash       string          `json:"requestHash,omitempty"`
}

func toRecord(j *storage.JobRecord) *record {
	return &record{
		Name: j.Name, Shots: j.Shots, DeviceQRN: j.DeviceQRN, Tags: j.Tags, RuntimeOptions: j.RuntimeOptions,
		JobQRN: j.JobQRN, BatchJobQRN: j.BatchJobQRN, Vendor: j.Vendor, Provider: j.Provider, Status: j.Status,
		StatusMsg: j.StatusMsg, ExperimentType: j.ExperimentType, NumCircuits: j.NumCircuits, CreatedAt: j.TimeStamps.CreatedAt,
		EndedAt: j.TimeStamps.EndedAt, ExecutionDuration: j.TimeStamps.ExecutionDuration, Cost: j.Cost,
		EstimatedCost: j.EstimatedCost, Metadata: j.Metadata, Owner: j.Owner, UpdatedAt: j.UpdatedAt,
		QueuedAt: j.QueuedAt, LeaseUntil: j.LeaseUntil, MemoryNeed: j.MemoryNeed, Reserved: j.Reserved, Attempts: j.Attempts,
		Node: j.Node, IdempotencyKey: j.IdempotencyKey, RequestHash: j.RequestHash,
	}
}

func (r *record) job() *storage.JobRecord {
	return &storage.JobRecord{Job: qtype.Job{
		Name: r.Name, Shots: r.Shots, DeviceQRN: r.DeviceQRN, Tags: orEmpty(r.Tags), RuntimeOptions: orEmpty(r.RuntimeOptions),
		JobQRN: r.JobQRN, BatchJobQRN: r.BatchJobQRN, Vendor: r.Vendor, Provider: r.Provider, Status: r.Status,
		StatusMsg: r.StatusMsg, ExperimentType: r.ExperimentType, NumCircuits: r.NumCircuits,
		TimeStamps: qtype.TimeStamps{CreatedAt: r.CreatedAt, EndedAt: r.EndedAt, ExecutionDuration: r.ExecutionDuration},
		Cost:       r.Cost, EstimatedCost: r.EstimatedCost, Metadata: orEmpty(r.Metadata)}, Owner: r.Owner,
		UpdatedAt: r.UpdatedAt, QueuedAt: r.QueuedAt, LeaseUntil: r.LeaseUntil, MemoryNeed: r.MemoryNeed, Reserved: r.Reserved,
		Attempts: r.Attempts, Node: r.Node, IdempotencyKey: r.IdempotencyKey, RequestHash: r.RequestHash,
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// decode reads JSON with integral numbers as int64 and the rest as
// float64, as they were before encoding.
func decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if r, ok := v.(*record); ok {
		for _, m := range []map[string]any{r.Tags, r.RuntimeOptions, r.Metadata} {
			for k, x := range m {
				m[k] = qtype.FromJSONNumbers(x)
			}
		}
	}
	return nil
}

// ts is a time as 20 decimal digits of nanoseconds since 1970, so that
// keys sort by time. Times before 1970 (and the zero time) count as 1970,
// times past 2262 as 2262.
func ts(t time.Time) string {
	var n int64
	switch {
	case t.IsZero() || t.Before(time.Unix(0, 0)):
	case t.After(time.Unix(0, math.MaxInt64)):
		n = math.MaxInt64
	default:
		n = t.UnixNano()
	}
	var buf [20]byte
	d := strconv.AppendInt(buf[:0], n, 10)
	pad := 20 - len(d)
	copy(buf[pad:], d)
	for i := range pad {
		buf[i] = '0'
	}
	return string(buf[:])
}

// tailLen is the length of <created>/ at the start of a key's tail, before
// the QRN.
const tailLen = 21

// maxSeg is the longest user-given string put in a key as it is; longer
// ones are put as their hash.
const maxSeg = 256

// seg is a user-given string as one segment of a key: it holds no '/',
// so that a prefix of segments names exactly one owner, status, vendor,
// provider, device, tag or tag value. Ordinary strings (no '/' or NUL, at
// most maxSeg bytes) are themselves, as schema version 1 wrote them; in
// others '/' and NUL are escaped behind a NUL, and a string longer than
// maxSeg becomes its SHA-256 (those are only ever matched, never listed
// in their order).
func seg(s string) string {
	if len(s) > maxSeg {
		h := sha256.Sum256([]byte(s))
		return "\x00\x03" + hex.EncodeToString(h[:])
	}
	if !strings.ContainsAny(s, "/\x00") {
		return s
	}
	var b strings.Builder
	for i := range len(s) {
		switch s[i] {
		case '/':
			b.WriteString("\x00\x01")
		case 0:
			b.WriteString("\x00\x02")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// tagSeg encodes a tag value for the tag index: its type and value, so
// that "1" and 1 differ and 1 and 1.0 do not. ok is false for a value no
// filter can match (see storage.JobFilter.Matches), which is not indexed.
func tagSeg(v any) (string, bool) {
	switch x := normalTag(v).(type) {
	case string:
		return seg("s" + x), true
	case bool:
		if x {
			return "b1", true
		}
		return "b0", true
	case int64:
		return "i" + strconv.FormatInt(x, 10), true
	}
	return "", false
}

// normalTag is a tag value as the quantum package compares them; nil for
// any other value, which matches nothing.
func normalTag(v any) any {
	n, _ := qtype.TagValue(v)
	return n
}

// The prefixes of the list indexes. Each is followed by <created>/<qrn>.
func ownerPrefix(owner string) string { return "o/" + seg(owner) + "/" }
func statusPrefix(owner string, st qtype.JobStatus) string {
	return "s/" + seg(owner) + "/" + seg(string(st)) + "/"
}
func vendorPrefix(owner, vendor string) string { return "w/" + seg(owner) + "/" + seg(vendor) + "/" }
func providerPrefix(owner, provider string) string {
	return "n/" + seg(owner) + "/" + seg(provider) + "/"
}
func tagPrefix(owner, key, value string) string {
	return "t/" + seg(owner) + "/" + seg(key) + "/" + value + "/"
}

// keyIndex is the key whose value is the QRN of the owner's job that took
// the idempotency key last. It is not one of a job's index keys: a job
// whose key expired and was taken by another no longer owns it.
func keyIndex(owner, key string) []byte { return []byte("k/" + seg(owner) + "/" + seg(key)) }

// changedPrefix is followed by <updated>/<qrn>; queuePrefix by
// <queued>/<qrn>.
func changedPrefix(st qtype.JobStatus) string { return "u/" + seg(string(st)) + "/" }
func queuePrefix(device string) string        { return "q/" + seg(device) + "/" }

// indexKeys are every key that points at the job besides j/<qrn>.
func (r *record) indexKeys() []string {
	tail := ts(r.CreatedAt) + "/" + r.JobQRN
	keys := make([]string, 0, 6+len(r.Tags))
	for _, p := range r.countPrefixes() {
		keys = append(keys, p+tail)
	}
	keys = append(keys, changedPrefix(r.Status)+ts(r.UpdatedAt)+"/"+r.JobQRN)
	for k, v := range r.Tags {
		if tv, ok := tagSeg(v); ok {
			keys = append(keys, tagPrefix(r.Owner, k, tv)+tail)
		}
	}
	if r.Status == qtype.StatusQueued {
		keys = append(keys, queuePrefix(r.DeviceQRN)+r.queueKey())
	}
	return keys
}

// countPrefixes are the list totals a job counts in, kept in memory: its
// owner's, and by its status, vendor and provider. (Tag totals are not
// kept: a tag may have a value per job, and a count per value would cost
// memory per job. A list by tag counts its index keys.)
func (r *record) countPrefixes() [4]string {
	return [4]string{ownerPrefix(r.Owner), statusPrefix(r.Owner, r.Status), vendorPrefix(r.Owner, r.Vendor), providerPrefix(r.Owner, r.Provider)}
}

// countSegments is how many segments, after the index letter, a count
// prefix has, by index letter.
var countSegments = map[byte]int{'o': 1, 's': 2, 'w': 2, 'n': 2}

// countPrefix is the count prefix of a list index key: its letter and
// segments, without <created>/<qrn>.
func countPrefix(key string) string {
	segs := countSegments[key[0]]
	i := 2
	for range segs {
		i += strings.IndexByte(key[i:], '/') + 1
	}
	return key[:i]
}

func (r *record) queue() storage.Queue {
	return storage.Queue{Device: r.DeviceQRN, Owner: r.Owner}
}

// queueKey is the job's place in its queues: <queued>/<qrn>.
func (r *record) queueKey() string {
	at := r.QueuedAt
	if at.IsZero() {
		at = r.UpdatedAt
	}
	return ts(at) + "/" + r.JobQRN
}
