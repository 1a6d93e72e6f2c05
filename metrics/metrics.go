// Package metrics exports a quantum Service's measurements to Prometheus:
// it is a quantum.Observer and an httpadapter.Observer, and a collector
// that reads the Service's gauges (quantum.Service.Stats) at each scrape.
// The root package never imports Prometheus; a program that wants the
// metrics wires this package in:
//
//	m := metrics.New()
//	svc, _ := quantum.New(st, quantum.WithObserver(m))
//	m.Watch(svc)
//	h := httpadapter.New(svc, httpadapter.WithObserver(m))
//	http.Handle("/metrics", m.Handler())
package metrics

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// Metrics holds the service's metrics in a registry of its own.
type Metrics struct {
	reg *prometheus.Registry

	created   *prometheus.CounterVec
	ended     *prometheus.CounterVec
	failed    *prometheus.CounterVec
	queueWait *prometheus.HistogramVec
	execution *prometheus.HistogramVec
	storeTime *prometheus.HistogramVec
	storeErrs *prometheus.CounterVec
	requests  *prometheus.CounterVec
	reqTime   *prometheus.HistogramVec
	streams   prometheus.Gauge
	reserved  *prometheus.CounterVec
	charged   *prometheus.CounterVec

	// devices holds the devices whose failure series exist (at 0 until
	// their first failure).
	devices sync.Map

	// The series of the hottest paths, found without the vectors' hashing.
	routes children[routeStatus, requestSeries]
	ops    children[string, prometheus.Observer]
}

// routeStatus is the label values of a request's series.
type routeStatus struct {
	route  string
	status int
}

// requestSeries is a request's count and latency series.
type requestSeries struct {
	count prometheus.Counter
	time  prometheus.Observer
}

// Buckets, in seconds: jobs wait and run from milliseconds to many
// minutes; store calls and requests take microseconds to seconds.
var (
	jobBuckets     = prometheus.ExponentialBuckets(0.001, 4, 10) // 1 ms … 4.4 min
	latencyBuckets = prometheus.ExponentialBuckets(0.00005, 4, 10)
)

// New returns the metrics, registered with the Go and process collectors
// in a registry of their own.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		created: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quantum_jobs_created_total", Help: "Jobs stored, by device.",
		}, []string{"device"}),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quantum_jobs_ended_total", Help: "Jobs that reached a final status, by device and status.",
		}, []string{"device", "status"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quantum_jobs_failed_total", Help: "FAILED jobs, by device and class of failure (backend, timeout, attempts, memory, result, store).",
		}, []string{"device", "reason"}),
		queueWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quantum_job_queue_wait_seconds", Help: "Time from QUEUED to a worker's claim, by device.", Buckets: jobBuckets,
		}, []string{"device"}),
		execution: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quantum_job_execution_seconds", Help: "Time a job ran, by device, for jobs that ran and ended.", Buckets: jobBuckets,
		}, []string{"device"}),
		storeTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quantum_store_call_seconds", Help: "Latency of the Store's calls, by operation.", Buckets: latencyBuckets,
		}, []string{"op"}),
		storeErrs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quantum_store_errors_total", Help: "Store calls that failed, by operation.",
		}, []string{"op"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quantum_http_requests_total", Help: "HTTP requests answered, by route pattern and status.",
		}, []string{"route", "status"}),
		reqTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quantum_http_request_seconds", Help: "Time to answer an HTTP request, by route pattern (event streams: their whole life).", Buckets: latencyBuckets,
		}, []string{"route"}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "quantum_event_streams", Help: "Event streams open now.",
		}),
		reserved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quantum_credits_reserved_total", Help: "Credits reserved by the jobs stored, by device (with credits on).",
		}, []string{"device"}),
		charged: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quantum_credits_charged_total", Help: "Credits charged for the jobs that ended, by device (with credits on).",
		}, []string{"device"}),
	}
	m.reg.MustRegister(m.created, m.ended, m.failed, m.queueWait, m.execution, m.storeTime, m.storeErrs,
		m.requests, m.reqTime, m.streams, m.reserved, m.charged,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// A counter's series appears at its first event, and an alert on its
	// rate reads "no data" until then, not 0: the label values known
	// before any event start at 0. Store calls are named by the Store's
	// methods.
	store := reflect.TypeFor[storage.Store]()
	for i := range store.NumMethod() {
		m.storeErrs.WithLabelValues(store.Method(i).Name)
	}
	return m
}

// device starts the failure series of a device at 0, once.
func (m *Metrics) device(qrn string) {
	if _, seen := m.devices.LoadOrStore(qrn, true); seen {
		return
	}
	for _, reason := range qtype.FailReasons() {
		m.failed.WithLabelValues(qrn, reason)
	}
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is where the metrics are registered, for collectors of the
// embedding program's own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// JobCreated implements quantum.Observer.
func (m *Metrics) JobCreated(device string) {
	m.device(device)
	m.created.WithLabelValues(device).Inc()
}

// JobStarted implements quantum.Observer.
func (m *Metrics) JobStarted(device string, queueWait time.Duration) {
	m.device(device)
	m.queueWait.WithLabelValues(device).Observe(queueWait.Seconds())
}

// JobEnded implements quantum.Observer.
func (m *Metrics) JobEnded(device string, status quantum.JobStatus, reason string, execution time.Duration) {
	m.device(device)
	m.ended.WithLabelValues(device, string(status)).Inc()
	if status == quantum.StatusFailed {
		m.failed.WithLabelValues(device, reason).Inc()
	}
	if execution > 0 {
		m.execution.WithLabelValues(device).Observe(execution.Seconds())
	}
}

// StoreCall implements quantum.Observer.
func (m *Metrics) StoreCall(op string, took time.Duration, err error) {
	m.ops.get(op, func() prometheus.Observer { return m.storeTime.WithLabelValues(op) }).Observe(took.Seconds())
	if err != nil {
		m.storeErrs.WithLabelValues(op).Inc()
	}
}

// CreditsReserved implements qtype.CreditObserver.
func (m *Metrics) CreditsReserved(device string, credits float64) {
	m.reserved.WithLabelValues(device).Add(credits)
}

// CreditsCharged implements qtype.CreditObserver.
func (m *Metrics) CreditsCharged(device string, credits float64) {
	m.charged.WithLabelValues(device).Add(credits)
}

// Request implements httpadapter.Observer.
func (m *Metrics) Request(route string, status int, took time.Duration) {
	r := m.routes.get(routeStatus{route, status}, func() requestSeries {
		return requestSeries{m.requests.WithLabelValues(route, strconv.Itoa(status)), m.reqTime.WithLabelValues(route)}
	})
	r.count.Inc()
	r.time.Observe(took.Seconds())
}

// Streams implements httpadapter.Observer.
func (m *Metrics) Streams(delta int) { m.streams.Add(float64(delta)) }

// scrapeWait bounds the store reads of one scrape.
const scrapeWait = 5 * time.Second

// Watch adds the Service's gauges, read at each scrape: QUEUED jobs by
// device (from the store), jobs running on this Service by device, and
// its memory in use against its budget. The failure counts of each
// device registered now start at 0; those of a device registered later,
// once a scrape or one of its jobs has seen it.
func (m *Metrics) Watch(svc *quantum.Service) {
	m.reg.MustRegister(&gauges{svc: svc, m: m})
	ctx, cancel := context.WithTimeout(context.Background(), scrapeWait)
	defer cancel()
	if st, err := svc.Stats(ctx); err == nil {
		for device := range st.Queued {
			m.device(device)
		}
	}
}

var (
	queuedDesc  = prometheus.NewDesc("quantum_jobs_queued", "QUEUED jobs in the store, by device.", []string{"device"}, nil)
	runningDesc = prometheus.NewDesc("quantum_jobs_running", "Jobs running on this Service, by device.", []string{"device"}, nil)
	memoryDesc  = prometheus.NewDesc("quantum_memory_in_use_bytes", "Memory the running jobs hold of the budget.", nil, nil)
	budgetDesc  = prometheus.NewDesc("quantum_memory_budget_bytes", "The Service's memory budget for running jobs.", nil, nil)
	workersDesc = prometheus.NewDesc("quantum_workers", "How many jobs this Service runs at most at once.", nil, nil)
	statsDesc   = prometheus.NewDesc("quantum_stats_up", "1 if the last scrape read the Service's gauges, 0 if the store failed.", nil, nil)
)

type gauges struct {
	svc *quantum.Service
	m   *Metrics
}

func (g *gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{queuedDesc, runningDesc, memoryDesc, budgetDesc, workersDesc, statsDesc} {
		ch <- d
	}
}

func (g *gauges) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeWait)
	defer cancel()
	st, err := g.svc.Stats(ctx)
	up := 1.0
	if err != nil {
		up = 0
	}
	ch <- prometheus.MustNewConstMetric(statsDesc, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(memoryDesc, prometheus.GaugeValue, float64(st.MemoryInUse))
	ch <- prometheus.MustNewConstMetric(budgetDesc, prometheus.GaugeValue, float64(st.MemoryBudget))
	ch <- prometheus.MustNewConstMetric(workersDesc, prometheus.GaugeValue, float64(st.Workers))
	running := st.Running
	if err == nil {
		// Every registered device, so that an idle one shows 0 rather
		// than no series.
		for device, n := range st.Queued {
			g.m.device(device)
			ch <- prometheus.MustNewConstMetric(queuedDesc, prometheus.GaugeValue, float64(n), device)
			ch <- prometheus.MustNewConstMetric(runningDesc, prometheus.GaugeValue, float64(running[device]), device)
			delete(running, device)
		}
	}
	for device, n := range running {
		ch <- prometheus.MustNewConstMetric(runningDesc, prometheus.GaugeValue, float64(n), device)
	}
}
