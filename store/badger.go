package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"

	"github.com/qjobs/quantum"
)

// Badger is a Store on disk (or in memory, for tests) in a badger
// database. Every change to a job and its index keys is one transaction;
// transactions that conflict are retried a bounded number of times.
//
// Keys:
//
//	v                                   schema version
//	j/<qrn>  p/<qrn>  r/<qrn>           job, program, result
//	o/<owner>/<created>/<qrn>           the owner's jobs by creation time
//	s/<owner>/<status>/<created>/<qrn>  … by status
//	w/<owner>/<vendor>/<created>/<qrn>  … by vendor
//	q/<device>/<queued>/<qrn>           QUEUED jobs of a device, oldest first
//	u/<status>/<updated>/<qrn>          every job by status and last change
//
// Times are 20-digit nanoseconds since 1970, so keys sort by time. The job
// list reads one page of keys from the owner's index (or the status or
// vendor index when it filters by exactly one status or by vendor) and the
// total from a count kept in memory: no scan. The counts are taken from the
// index keys when the store opens and follow every commit; they need no
// keys of their own, which every writer would otherwise contend for.
// (Badger locks its directory, so no other process changes the data.) Filters by provider, search, tags or
// several statuses scan the owner's index, loading each job.
type Badger struct {
	db       *badger.DB
	countsMu sync.Mutex
	counts   map[string]int             // list totals by index prefix
	queues   map[string][]string        // device → queue keys <queued>/<qrn>, sorted
	owned    map[quantum.Queue][]string // owner and device → queue keys, sorted
	// hook, when set (by tests), is called inside every critical section
	// with the method's name.
	hook      func(method string)
	log       *zap.Logger
	stopGC    chan struct{}
	gcDone    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// SchemaVersion is the layout of keys this build writes and reads.
const SchemaVersion = 1

// BadgerOption configures OpenBadger.
type BadgerOption func(*badgerConfig)

type badgerConfig struct {
	sync     bool
	inMemory bool
	log      *zap.Logger
	gcEvery  time.Duration
}

// WithSyncWrites makes every commit wait for the disk (default on): a job
// that was acknowledged survives a power loss.
func WithSyncWrites(on bool) BadgerOption { return func(c *badgerConfig) { c.sync = on } }

// WithInMemory keeps the database in memory only, for tests; dir is
// ignored.
func WithInMemory() BadgerOption { return func(c *badgerConfig) { c.inMemory = true } }

// WithLogger routes badger's own log lines, and the store's, to l.
func WithLogger(l *zap.Logger) BadgerOption { return func(c *badgerConfig) { c.log = l } }

// WithGCInterval sets how often value-log garbage collection runs
// (default 5 minutes); it also runs on Close.
func WithGCInterval(d time.Duration) BadgerOption { return func(c *badgerConfig) { c.gcEvery = d } }

// OpenBadger opens (or creates) the store in dir.
func OpenBadger(dir string, opts ...BadgerOption) (*Badger, error) {
	cfg := badgerConfig{sync: true, log: zap.NewNop(), gcEvery: 5 * time.Minute}
	for _, o := range opts {
		o(&cfg)
	}
	bo := badger.DefaultOptions(dir).
		WithSyncWrites(cfg.sync).
		WithLogger(zapBadgerLogger{cfg.log.Sugar()}).
		WithInMemory(cfg.inMemory)
	if cfg.inMemory {
		bo = bo.WithDir("").WithValueDir("")
	}
	db, err := badger.Open(bo)
	if err != nil {
		return nil, fmt.Errorf("store: open badger in %q: %w", dir, err)
	}
	b := &Badger{db: db, log: cfg.log, stopGC: make(chan struct{}), gcDone: make(chan struct{})}
	if err := b.checkSchema(); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := b.loadCounts(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: count jobs: %w", err)
	}
	go b.gcLoop(cfg.gcEvery)
	return b, nil
}

func (b *Badger) checkSchema() error {
	return b.update(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte("v"))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return txn.Set([]byte("v"), []byte(strconv.Itoa(SchemaVersion)))
		}
		if err != nil {
			return err
		}
		v, _ := item.ValueCopy(nil)
		n, err := strconv.Atoi(string(v))
		if err != nil || n > SchemaVersion {
			return fmt.Errorf("store: this database was written with schema version %q; this build reads version %d and will not touch it", v, SchemaVersion)
		}
		return nil
	})
}

func (b *Badger) gcLoop(every time.Duration) {
	defer close(b.gcDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-b.stopGC:
			return
		case <-t.C:
			b.gc()
		}
	}
}

// gc rewrites value-log files until badger finds none worth rewriting.
func (b *Badger) gc() {
	for b.db.RunValueLogGC(0.5) == nil {
	}
}

// Exclusive reports true: badger locks its directory, so no other process
// has this store open.
func (b *Badger) Exclusive() bool { return true }

// Close runs a last garbage collection and closes the database. It is safe
// to call more than once.
func (b *Badger) Close() error {
	b.closeOnce.Do(func() {
		close(b.stopGC)
		<-b.gcDone
		b.gc()
		b.closeErr = b.db.Close()
	})
	return b.closeErr
}

// maxRetries bounds the retries of a transaction that conflicts.
const maxRetries = 50

func (b *Badger) update(fn func(*badger.Txn) error) error {
	var err error
	for attempt := range maxRetries {
		if err = b.db.Update(fn); !errors.Is(err, badger.ErrConflict) {
			return err
		}
		time.Sleep(time.Duration(attempt*attempt) * 10 * time.Microsecond)
	}
	return fmt.Errorf("store: %d conflicting attempts: %w", maxRetries, err)
}

// record is a job as stored: every field, times in full precision.
type record struct {
	Name              string            `json:"name"`
	Shots             int               `json:"shots"`
	DeviceQRN         string            `json:"deviceQrn"`
	Tags              map[string]any    `json:"tags"`
	RuntimeOptions    map[string]any    `json:"runtimeOptions"`
	JobQRN            string            `json:"jobQrn"`
	BatchJobQRN       *string           `json:"batchJobQrn"`
	Vendor            string            `json:"vendor"`
	Provider          string            `json:"provider"`
	Status            quantum.JobStatus `json:"status"`
	StatusMsg         *string           `json:"statusMsg"`
	ExperimentType    string            `json:"experimentType"`
	CreatedAt         time.Time         `json:"createdAt"`
	EndedAt           *time.Time        `json:"endedAt"`
	ExecutionDuration int64             `json:"executionDuration"`
	Cost              float64           `json:"cost"`
	EstimatedCost     float64           `json:"estimatedCost"`
	Metadata          map[string]any    `json:"metadata"`
	Owner             string            `json:"owner"`
	UpdatedAt         time.Time         `json:"updatedAt"`
	QueuedAt          time.Time         `json:"queuedAt"`
	LeaseUntil        time.Time         `json:"leaseUntil"`
	MemoryNeed        int64             `json:"memoryNeed,omitempty"`
}

func toRecord(j *quantum.Job) *record {
	return &record{
		Name: j.Name, Shots: j.Shots, DeviceQRN: j.DeviceQRN, Tags: j.Tags, RuntimeOptions: j.RuntimeOptions,
		JobQRN: j.JobQRN, BatchJobQRN: j.BatchJobQRN, Vendor: j.Vendor, Provider: j.Provider, Status: j.Status,
		StatusMsg: j.StatusMsg, ExperimentType: j.ExperimentType, CreatedAt: j.TimeStamps.CreatedAt,
		EndedAt: j.TimeStamps.EndedAt, ExecutionDuration: j.TimeStamps.ExecutionDuration, Cost: j.Cost,
		EstimatedCost: j.EstimatedCost, Metadata: j.Metadata, Owner: j.Owner, UpdatedAt: j.UpdatedAt,
		QueuedAt: j.QueuedAt, LeaseUntil: j.LeaseUntil, MemoryNeed: j.MemoryNeed,
	}
}

func (r *record) job() *quantum.Job {
	return &quantum.Job{
		Name: r.Name, Shots: r.Shots, DeviceQRN: r.DeviceQRN, Tags: orEmpty(r.Tags), RuntimeOptions: orEmpty(r.RuntimeOptions),
		JobQRN: r.JobQRN, BatchJobQRN: r.BatchJobQRN, Vendor: r.Vendor, Provider: r.Provider, Status: r.Status,
		StatusMsg: r.StatusMsg, ExperimentType: r.ExperimentType,
		TimeStamps: quantum.TimeStamps{CreatedAt: r.CreatedAt, EndedAt: r.EndedAt, ExecutionDuration: r.ExecutionDuration},
		Cost:       r.Cost, EstimatedCost: r.EstimatedCost, Metadata: orEmpty(r.Metadata), Owner: r.Owner,
		UpdatedAt: r.UpdatedAt, QueuedAt: r.QueuedAt, LeaseUntil: r.LeaseUntil, MemoryNeed: r.MemoryNeed,
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
				m[k] = quantum.FromJSONNumbers(x)
			}
		}
	}
	return nil
}

func ts(t time.Time) string {
	n := t.UnixNano()
	if t.IsZero() || n < 0 {
		n = 0
	}
	return fmt.Sprintf("%020d", n)
}

// indexKeys are every key that points at the job besides j/<qrn>.
func (r *record) indexKeys() [][]byte {
	created := ts(r.CreatedAt) + "/" + r.JobQRN
	keys := []string{
		"o/" + r.Owner + "/" + created,
		"s/" + r.Owner + "/" + string(r.Status) + "/" + created,
		"w/" + r.Owner + "/" + r.Vendor + "/" + created,
		"u/" + string(r.Status) + "/" + ts(r.UpdatedAt) + "/" + r.JobQRN,
	}
	if r.Status == quantum.StatusQueued {
		keys = append(keys, "q/"+r.DeviceQRN+"/"+r.queueKey())
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = []byte(k)
	}
	return out
}

func (r *record) queue() quantum.Queue {
	return quantum.Queue{Device: r.DeviceQRN, Owner: r.Owner}
}

func (r *record) queueKey() string {
	at := r.QueuedAt
	if at.IsZero() {
		at = r.UpdatedAt
	}
	return ts(at) + "/" + r.JobQRN
}

// countKeys are the list totals a job counts in: its owner's, and by its
// status and vendor. They are the prefixes of its list index keys.
func countKeys(r *record) []string {
	return []string{
		"o/" + r.Owner + "/",
		"s/" + r.Owner + "/" + string(r.Status) + "/",
		"w/" + r.Owner + "/" + r.Vendor + "/",
	}
}

// deltas are what a transaction changes in the in-memory counts and
// queues, applied once it commits.
type deltas struct {
	counts map[string]int
	qDel   []queueEntry
	qAdd   []queueEntry
}

type queueEntry struct {
	q   quantum.Queue
	key string
}

func newDeltas() *deltas { return &deltas{counts: map[string]int{}} }

func (d *deltas) move(old, r *record) {
	if old != nil {
		for _, k := range countKeys(old) {
			d.counts[k]--
		}
		if old.Status == quantum.StatusQueued {
			d.qDel = append(d.qDel, queueEntry{old.queue(), old.queueKey()})
		}
	}
	if r != nil {
		for _, k := range countKeys(r) {
			d.counts[k]++
		}
		if r.Status == quantum.StatusQueued {
			d.qAdd = append(d.qAdd, queueEntry{r.queue(), r.queueKey()})
		}
	}
}

func (b *Badger) apply(d *deltas) {
	b.countsMu.Lock()
	defer b.countsMu.Unlock()
	for k, n := range d.counts {
		b.counts[k] += n
	}
	for _, e := range d.qDel {
		removeKey(b.queues, e.q.Device, e.key)
		removeKey(b.owned, e.q, e.key)
	}
	for _, e := range d.qAdd {
		insertKey(b.queues, e.q.Device, e.key)
		insertKey(b.owned, e.q, e.key)
	}
}

func removeKey[K comparable](queues map[K][]string, k K, key string) {
	q := queues[k]
	if i, ok := slices.BinarySearch(q, key); ok {
		q = slices.Delete(q, i, i+1)
	}
	if len(q) == 0 {
		delete(queues, k)
	} else {
		queues[k] = q
	}
}

func insertKey[K comparable](queues map[K][]string, k K, key string) {
	q := queues[k]
	if i, ok := slices.BinarySearch(q, key); !ok {
		queues[k] = slices.Insert(q, i, key)
	}
}

// queueKeys returns up to n of the queue's keys that come after the key
// after ("" for the first), oldest first. Resuming from a key rather than
// an index keeps a caller's place when keys before it go meanwhile.
func (b *Badger) queueKeys(q quantum.Queue, after string, n int) []string {
	b.countsMu.Lock()
	defer b.countsMu.Unlock()
	b.fault("queueKeys")
	keys := b.owned[q]
	i, found := slices.BinarySearch(keys, after)
	if found {
		i++
	}
	return slices.Clone(keys[i : i+min(n, len(keys)-i)])
}

func (b *Badger) count(prefix string) int {
	b.countsMu.Lock()
	defer b.countsMu.Unlock()
	b.fault("count")
	return b.counts[prefix]
}

// fault calls the test hook, if any, from inside a critical section.
func (b *Badger) fault(method string) {
	if b.hook != nil {
		b.hook(method)
	}
}

// loadCounts counts the list index keys and reads the queues.
func (b *Badger) loadCounts() error {
	b.counts = map[string]int{}
	b.queues = map[string][]string{}
	b.owned = map[quantum.Queue][]string{}
	return b.db.View(func(txn *badger.Txn) error {
		var keys []string
		if err := iterateKeys(txn, "q/", func(k []byte) bool {
			keys = append(keys, string(k[2:]))
			return true
		}); err != nil {
			return err
		}
		for _, key := range keys { // sorted
			device := key[:strings.IndexByte(key, '/')]
			qkey := key[len(device)+1:]
			r, err := getRecord(txn, lastSegment([]byte(qkey)))
			if err != nil {
				return err
			}
			b.queues[device] = append(b.queues[device], qkey)
			b.owned[r.queue()] = append(b.owned[r.queue()], qkey)
		}
		for _, p := range []string{"o/", "s/", "w/"} {
			if err := iterateKeys(txn, p, func(k []byte) bool {
				key := string(k)
				// the prefix is everything before <created>/<qrn>
				cut := strings.LastIndexByte(key, '/')
				cut = strings.LastIndexByte(key[:cut], '/')
				b.counts[key[:cut+1]]++
				return true
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

// put writes r and moves its index keys from old (nil for a new job),
// noting the count changes in d.
func put(txn *badger.Txn, old, r *record, d *deltas) error {
	if old != nil {
		for _, k := range old.indexKeys() {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
	}
	d.move(old, r)
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := txn.Set([]byte("j/"+r.JobQRN), data); err != nil {
		return err
	}
	for _, k := range r.indexKeys() {
		if err := txn.Set(k, nil); err != nil {
			return err
		}
	}
	return nil
}

func getRecord(txn *badger.Txn, qrn string) (*record, error) {
	item, err := txn.Get([]byte("j/" + qrn))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, quantum.ErrJobNotFound
	}
	if err != nil {
		return nil, err
	}
	var r record
	err = item.Value(func(v []byte) error { return decode(v, &r) })
	return &r, err
}

var _ quantum.Store = (*Badger)(nil)

func (b *Badger) CreateJob(ctx context.Context, job *quantum.Job, program quantum.Program) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var d *deltas
	err := b.update(func(txn *badger.Txn) error {
		b.fault("CreateJob")
		d = newDeltas()
		if _, err := txn.Get([]byte("j/" + job.JobQRN)); err == nil {
			return quantum.ErrJobExists
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		p, err := json.Marshal(program)
		if err != nil {
			return err
		}
		if err := txn.Set([]byte("p/"+job.JobQRN), p); err != nil {
			return err
		}
		return put(txn, nil, toRecord(job.Clone()), d)
	})
	if err == nil {
		b.apply(d)
	}
	return err
}

func (b *Badger) GetJob(ctx context.Context, qrn string) (*quantum.Job, error) {
	var j *quantum.Job
	err := b.db.View(func(txn *badger.Txn) error {
		b.fault("GetJob")
		r, err := getRecord(txn, qrn)
		if err == nil {
			j = r.job()
		}
		return err
	})
	return j, err
}

func (b *Badger) getJSON(key string, v any) error {
	return b.db.View(func(txn *badger.Txn) error {
		b.fault("get")
		item, err := txn.Get([]byte(key))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return quantum.ErrJobNotFound
		}
		if err != nil {
			return err
		}
		return item.Value(func(data []byte) error { return json.Unmarshal(data, v) })
	})
}

func (b *Badger) GetProgram(ctx context.Context, qrn string) (*quantum.Program, error) {
	var p quantum.Program
	if err := b.getJSON("p/"+qrn, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func (b *Badger) GetResult(ctx context.Context, qrn string) (map[string]int, error) {
	var counts map[string]int
	if err := b.getJSON("r/"+qrn, &counts); err != nil {
		return nil, err
	}
	return counts, nil
}

func (b *Badger) UpdateJob(ctx context.Context, qrn string, expect quantum.JobStatus, change func(*quantum.Job), result map[string]int) (*quantum.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *quantum.Job
	var d *deltas
	err := b.update(func(txn *badger.Txn) error {
		b.fault("UpdateJob")
		d = newDeltas()
		old, err := getRecord(txn, qrn)
		if err != nil {
			return err
		}
		if old.Status != expect || expect.IsTerminal() {
			return quantum.ErrStatusChanged
		}
		j := old.job()
		change(j)
		j.JobQRN, j.Owner, j.DeviceQRN = old.JobQRN, old.Owner, old.DeviceQRN
		j.TimeStamps.CreatedAt, j.Vendor = old.CreatedAt, old.Vendor // index keys depend on them
		if result != nil {
			data, err := json.Marshal(result)
			if err != nil {
				return err
			}
			if err := txn.Set([]byte("r/"+qrn), data); err != nil {
				return err
			}
		}
		if err := put(txn, old, toRecord(j), d); err != nil {
			return err
		}
		out = j.Clone()
		return nil
	})
	if err == nil {
		b.apply(d)
	}
	return out, err
}

func (b *Badger) DeleteJob(ctx context.Context, qrn string, expect quantum.JobStatus) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var d *deltas
	err := b.update(func(txn *badger.Txn) error {
		b.fault("DeleteJob")
		d = newDeltas()
		old, err := getRecord(txn, qrn)
		if err != nil {
			return err
		}
		if old.Status != expect {
			return quantum.ErrStatusChanged
		}
		d.move(old, nil)
		for _, k := range append(old.indexKeys(), []byte("j/"+qrn), []byte("p/"+qrn), []byte("r/"+qrn)) {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		b.apply(d)
	}
	return err
}

// lastSegment is the QRN at the end of an index key.
func lastSegment(key []byte) string {
	k := string(key)
	return k[strings.LastIndexByte(k, '/')+1:]
}

func (b *Badger) ListJobs(ctx context.Context, f quantum.JobFilter) ([]*quantum.Job, int, error) {
	var page []*quantum.Job
	total := 0
	err := b.db.View(func(txn *badger.Txn) error {
		prefix := "o/" + f.Owner + "/"
		rest := f // what the index does not answer
		switch {
		case len(f.Statuses) == 1:
			prefix = "s/" + f.Owner + "/" + string(f.Statuses[0]) + "/"
			rest.Statuses = nil
		case f.Vendor != "" && len(f.Statuses) == 0:
			prefix = "w/" + f.Owner + "/" + f.Vendor + "/"
			rest.Vendor = ""
		}
		scan := len(rest.Statuses) > 0 || rest.Vendor != "" || rest.Provider != "" || rest.Search != "" || len(rest.Tags) > 0
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues, opts.Reverse, opts.Prefix = false, true, []byte(prefix)
		it := txn.NewIterator(opts)
		defer it.Close()
		// The page is the matches numbered [first, last); computed so
		// that no Offset or Limit, however large, overflows.
		first := max(f.Offset, 0)
		last := first + min(max(f.Limit, 0), math.MaxInt-first)
		n := 0
		for it.Seek([]byte(prefix + "\xff")); it.ValidForPrefix([]byte(prefix)); it.Next() {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			b.fault("ListJobs")
			inPage := n >= first && n < last
			if !scan && !inPage {
				if n >= last {
					break
				}
				n++
				continue
			}
			r, err := getRecord(txn, lastSegment(it.Item().Key()))
			if err != nil {
				return err
			}
			j := r.job()
			if scan && !rest.Matches(j) {
				continue
			}
			if inPage {
				page = append(page, j)
			}
			n++
		}
		if scan {
			total = n
		} else {
			total = b.count(prefix)
		}
		return nil
	})
	return page, total, err
}

func (b *Badger) CountQueued(ctx context.Context, deviceQRN string) (int, error) {
	b.countsMu.Lock()
	defer b.countsMu.Unlock()
	b.fault("CountQueued")
	return len(b.queues[deviceQRN]), nil
}

func (b *Badger) CountJobs(ctx context.Context, owner string, statuses []quantum.JobStatus) (int, error) {
	b.countsMu.Lock()
	defer b.countsMu.Unlock()
	b.fault("CountJobs")
	n := 0
	for i, st := range statuses {
		if !slices.Contains(statuses[:i], st) { // each status once
			n += b.counts["s/"+owner+"/"+string(st)+"/"]
		}
	}
	return n, nil
}

// iterateKeys calls fn on each key with prefix, in order, until fn says stop.
func iterateKeys(txn *badger.Txn, prefix string, fn func(key []byte) bool) error {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues, opts.Prefix = false, []byte(prefix)
	it := txn.NewIterator(opts)
	defer it.Close()
	for it.Seek([]byte(prefix)); it.ValidForPrefix([]byte(prefix)); it.Next() {
		if !fn(it.Item().KeyCopy(nil)) {
			break
		}
	}
	return nil
}

func (b *Badger) QueuePosition(ctx context.Context, qrn string) (int, error) {
	var r *record
	err := b.db.View(func(txn *badger.Txn) error {
		b.fault("QueuePosition")
		var err error
		r, err = getRecord(txn, qrn)
		return err
	})
	if err != nil || r.Status != quantum.StatusQueued {
		return 0, err
	}
	b.countsMu.Lock()
	defer b.countsMu.Unlock()
	b.fault("QueuePosition")
	if i, ok := slices.BinarySearch(b.queues[r.DeviceQRN], r.queueKey()); ok {
		return i + 1, nil
	}
	return 0, nil
}

func (b *Badger) Queues(ctx context.Context) ([]quantum.Queue, error) {
	b.countsMu.Lock()
	defer b.countsMu.Unlock()
	b.fault("Queues")
	out := slices.Collect(maps.Keys(b.owned))
	slices.SortFunc(out, compareQueues)
	return out, nil
}

// claimBatch is how many queue keys ClaimJob looks at per step: the head
// is almost always live, so one step is almost always enough.
const claimBatch = 8

func (b *Badger) ClaimJob(ctx context.Context, c quantum.Claim) (*quantum.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *quantum.Job
	var d *deltas
	err := b.update(func(txn *badger.Txn) error {
		d = newDeltas()
		b.fault("ClaimJob")
		// The queue in memory names the candidates; the transaction checks
		// each, since another claim may have taken it and not yet been
		// applied to memory.
		var old *record
		for after := ""; old == nil; {
			keys := b.queueKeys(c.Queue, after, claimBatch)
			if len(keys) == 0 {
				return quantum.ErrNoJob
			}
			after = keys[len(keys)-1]
			for _, key := range keys {
				r, err := getRecord(txn, key[strings.IndexByte(key, '/')+1:])
				if errors.Is(err, quantum.ErrJobNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if r.Status == quantum.StatusQueued && r.queue() == c.Queue {
					old = r
					break
				}
			}
		}
		if old.MemoryNeed > c.MaxMemory {
			out = old.job()
			return quantum.ErrMemoryShort
		}
		j := old.job()
		j.Status, j.UpdatedAt, j.LeaseUntil = quantum.StatusRunning, c.Now, c.LeaseUntil
		if err := put(txn, old, toRecord(j), d); err != nil {
			return err
		}
		out = j
		return nil
	})
	if err == nil {
		b.apply(d)
	}
	if err != nil && !errors.Is(err, quantum.ErrMemoryShort) {
		out = nil
	}
	return out, err
}

func (b *Badger) Unfinished(ctx context.Context, statuses []quantum.JobStatus, before time.Time, limit int) ([]*quantum.Job, error) {
	var out []*quantum.Job
	err := b.db.View(func(txn *badger.Txn) error {
		b.fault("Unfinished")
		for _, st := range statuses {
			prefix := "u/" + string(st) + "/"
			var qrns []string
			bound := prefix + ts(before)
			if err := iterateKeys(txn, prefix, func(k []byte) bool {
				if !before.IsZero() && string(k) >= bound {
					return false
				}
				qrns = append(qrns, lastSegment(k))
				return len(qrns) < limit
			}); err != nil {
				return err
			}
			for _, q := range qrns {
				r, err := getRecord(txn, q)
				if err != nil {
					return err
				}
				out = append(out, r.job())
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortByUpdate(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// zapBadgerLogger routes badger's log lines to zap.
type zapBadgerLogger struct{ s *zap.SugaredLogger }

func (l zapBadgerLogger) Errorf(f string, a ...any) {
	l.s.Errorf("badger: "+strings.TrimSpace(f), a...)
}
func (l zapBadgerLogger) Warningf(f string, a ...any) {
	l.s.Warnf("badger: "+strings.TrimSpace(f), a...)
}
func (l zapBadgerLogger) Infof(f string, a ...any) { l.s.Infof("badger: "+strings.TrimSpace(f), a...) }
func (l zapBadgerLogger) Debugf(f string, a ...any) {
	l.s.Debugf("badger: "+strings.TrimSpace(f), a...)
}
