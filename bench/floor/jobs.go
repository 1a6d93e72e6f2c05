package main

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// job has the fields, in the order, of the job examples/server answers, so
// that both servers write bodies of the same size.
type job struct {
	Name           string         `json:"name"`
	Shots          int            `json:"shots"`
	DeviceQRN      string         `json:"deviceQrn"`
	Tags           map[string]any `json:"tags"`
	RuntimeOptions map[string]any `json:"runtimeOptions"`
	JobQRN         string         `json:"jobQrn"`
	BatchJobQRN    *string        `json:"batchJobQrn"`
	Vendor         string         `json:"vendor"`
	Provider       string         `json:"provider"`
	Status         string         `json:"status"`
	StatusMsg      *string        `json:"statusMsg"`
	ExperimentType string         `json:"experimentType"`
	NumCircuits    int            `json:"numCircuits"`
	QueuePosition  *int           `json:"queuePosition"`
	TimeStamps     timeStamps     `json:"timeStamps"`
	Cost           float64        `json:"cost"`
	EstimatedCost  float64        `json:"estimatedCost"`
	Metadata       any            `json:"metadata"` // {} until the job has run, then a metadata
}

type timeStamps struct {
	CreatedAt         string  `json:"createdAt"`
	EndedAt           *string `json:"endedAt"`
	ExecutionDuration int64   `json:"executionDuration"`
}

// metadata has the keys examples/server writes for a finished job.
type metadata struct {
	ExecutionPath string `json:"executionPath"`
	Method        string `json:"method"`
	MethodReason  string `json:"methodReason"`
	Node          string `json:"node"`
	NumQubits     int    `json:"numQubits"`
	Precision     string `json:"precision"`
	Seed          uint64 `json:"seed"`
	SimulationMs  int64  `json:"simulationMs"`
}

type result struct {
	Status     string     `json:"status"`
	Cost       float64    `json:"cost"`
	TimeStamps timeStamps `json:"timeStamps"`
	ResultData resultData `json:"resultData"`
}

type resultData struct {
	MeasurementCounts map[string]int `json:"measurementCounts"`
}

// stored is a job and its counts. A stored job is never changed: a change
// replaces it, so a reader may encode it without the lock.
type stored struct {
	job    job
	counts map[string]int
}

type jobs struct {
	mu sync.Mutex
	m  map[string]*stored
}

func newJobs() *jobs { return &jobs{m: map[string]*stored{}} }

const layout = "2006-01-02T15:04:05.000Z"

// create keeps the job, answers it as created, and runs it at once: the
// first poll finds it COMPLETED.
func (js *jobs) create(req createRequest) job {
	now := time.Now().UTC()
	vendor, provider := "qbraid", "qbraid"
	if f := strings.Split(req.DeviceQRN, ":"); len(f) >= 2 {
		vendor, provider = f[0], f[1]
	}
	j := job{
		Name: req.Name, Shots: req.Shots, DeviceQRN: req.DeviceQRN, Tags: orEmpty(req.Tags), RuntimeOptions: orEmpty(req.RuntimeOptions),
		JobQRN: fmt.Sprintf("%s-%04x-qjob-%08x%016x", req.DeviceQRN, rand.Uint32()>>16, rand.Uint32(), rand.Uint64()),
		Vendor: vendor, Provider: provider, Status: "INITIALIZING", ExperimentType: "gate_model", NumCircuits: 1,
		TimeStamps: timeStamps{CreatedAt: now.Format(layout)}, Metadata: struct{}{},
	}
	done := j
	ended := time.Now().UTC().Format(layout)
	done.Status, done.TimeStamps.EndedAt = "COMPLETED", &ended
	done.Metadata = metadata{ExecutionPath: "sampled", Method: "stabilizer", MethodReason: "all gates Clifford", Node: "floor",
		NumQubits: 2, Precision: "double", Seed: rand.Uint64() >> 12}
	js.put(j.JobQRN, &stored{job: done, counts: bell(req.Shots)})
	return j
}

func (js *jobs) put(qrn string, s *stored) {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.m[qrn] = s
}

func (js *jobs) get(qrn string) (*stored, bool) {
	js.mu.Lock()
	defer js.mu.Unlock()
	s, ok := js.m[qrn]
	return s, ok
}

// bell draws a Bell pair's counts: a fair coin a shot, 64 shots a draw.
func bell(shots int) map[string]int {
	ones := 0
	for left := shots; left > 0; left -= 64 {
		w := rand.Uint64()
		if left < 64 {
			w &= 1<<left - 1
		}
		ones += bits.OnesCount64(w)
	}
	counts := map[string]int{}
	if ones > 0 {
		counts["11"] = ones
	}
	if shots-ones > 0 {
		counts["00"] = shots - ones
	}
	return counts
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
