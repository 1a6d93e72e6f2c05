// Package badger is a storage.Store on disk, in a badger database: jobs
// outlive the process, and one Service at a time uses them (badger locks
// its directory).
//
//	st, err := badger.Open("./data")
//	...
//	svc, err := quantum.New(st)
//
// It has a package of its own so that a program that keeps its jobs in
// memory (store.NewMemory) never links badger.
package badger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	badgerdb "github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/internal/inproc"
	"github.com/qjobs/quantum/store/internal/ordered"
)

// Store is a storage.Store on disk (or in memory, for tests) in a badger
// database. Every change to a job and its index keys is one transaction;
// transactions that conflict are retried a bounded number of times.
//
// Keys (schema version 3):
//
//	v                                        schema version
//	j/<qrn>  p/<qrn>  r/<qrn>                job, program, result
//	c/<kind>/<id>/<n>/<qrn>                  chunks of a large program or result
//	o/<owner>/<created>/<qrn>                the owner's jobs by creation time
//	s/<owner>/<status>/<created>/<qrn>       … by status
//	w/<owner>/<vendor>/<created>/<qrn>       … by vendor
//	n/<owner>/<provider>/<created>/<qrn>     … by provider (version 2)
//	t/<owner>/<tag>/<value>/<created>/<qrn>  … by tag (version 2)
//	q/<device>/<queued>/<qrn>                QUEUED jobs of a device, oldest first
//	u/<status>/<updated>/<qrn>               every job by status and last change
//	a/…  e/…  g/…                            the credit ledger (version 3; see ledger.go)
//
// Times are 20-digit nanoseconds since 1970, so keys sort by time. Owners,
// statuses, vendors, providers, devices, tags and their values are key
// segments (see seg): escaped so that none holds a '/', and hashed when
// long. A tag value is typed: s<string>, i<integer> or b0/b1. The program
// and result are inline JSON or a manifest of chunks (see stage).
//
// In memory the store keeps the list totals (by owner, status, vendor and
// provider) and the queues, taken from the index keys when it opens;
// they need no keys of their own, which every writer would otherwise
// contend for. (Badger locks its directory, so no other process changes
// the data.) A transaction that commits applies its change to them
// before its method returns, as deltas that commute: a count moves by
// +1/-1, and a queue holds a key while the sum of the +1 (the job became
// QUEUED with that key) and -1 (it left) applied for it is positive.
// Commits on one job are serialised by badger's conflict detection (each
// reads j/<qrn>), so in commit order a key's deltas alternate +1, -1, …
// and their sum is 1 exactly when the last commit left the job QUEUED
// with that key, whatever order the deltas are applied in. So the
// in-memory state is exact once the writes in flight have returned, and
// never keeps a phantom; while they are in flight a reader may see a
// count or queue that lacks one of them. ClaimJob checks each candidate
// in its transaction, so it never hands out a job that is not QUEUED.
//
// A list reads one page of keys from the most selective index that the
// filter names: one status (or several, merging one walk per status), a
// vendor, a provider or one tag; the owner's when it names none. Filters
// the index does not answer (search, a second tag, …) are tested on each
// job read while walking it, at most the scan limit of jobs per list
// (WithScanLimit); a filter that would read more fails with
// storage.ErrScanLimit. A list that needs no such test reads only its
// page: its total is a count in memory, or, for a tag, a count of index
// keys.
type Store struct {
	inUse inproc.Guard
	db    *badgerdb.DB
	cfg   config

	// mu guards the state in memory that mirrors the data: counts and
	// queues (see the type's comment), and the hook.
	mu      sync.Mutex
	counts  map[string]int                         // list totals by index prefix
	queued  map[queueMark]int                      // queue key → +1s minus -1s applied
	devices map[string]*ordered.Set[string]        // device → queue keys <queued>/<qrn> with a positive mark
	owned   map[storage.Queue]*ordered.Set[string] // owner and device → the same
	// hook, when set (by tests), is called inside every critical section
	// with the method's name.
	hook      func(method string)
	log       *zap.Logger
	stopGC    chan struct{}
	gcDone    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

type queueMark struct {
	q   storage.Queue
	key string
}

// SchemaVersion is the layout of keys this build writes and reads. It
// opens a database of version 1, adding the keys version 2 added, and
// refuses a newer one. Version 3 added the credit ledger's keys, which
// need nothing of older data; it is a version so that a build that does
// not know them, and would leave reservations unsettled, refuses it.
const SchemaVersion = 3

// Defaults of the options.
const (
	// DefaultScanLimit is how many jobs one list may read to test a
	// filter that its index does not answer.
	DefaultScanLimit = 100_000
	// DefaultMaxValueBytes bounds a program or a result, as stored
	// (JSON): 256 MiB, above the largest result the simulator gives by
	// default (sim.DefaultMaxResultBytes of outcome keys, under 100 MiB
	// as JSON).
	DefaultMaxValueBytes = 256 << 20
	// DefaultGCInterval is how often value-log garbage collection runs.
	DefaultGCInterval = 5 * time.Minute
)

// Limits that are not options. A job's record (everything but its
// program and result: name, tags, options, metadata) is one value: on
// disk at most maxRecordDisk bytes of JSON, in memory at most badger's
// in-memory value limit, 1 MiB. A QRN is at most maxQRN bytes.
const (
	maxRecordDisk   = 16 << 20
	maxRecordMemory = 1 << 20
	maxQRN          = 1024
	// maxValueBound is the largest WithMaxValueBytes: chunk numbers have
	// six digits.
	maxValueBound = 64 << 30
)

// Option configures Open. An option given a value it does not
// accept makes Open fail, naming it.
type Option func(*config)

type config struct {
	sync      bool
	inMemory  bool
	log       *zap.Logger
	gcEvery   time.Duration
	scanLimit int
	maxValue  int64
	errs      []error
}

func (c *config) refuse(format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf("store: "+format, a...))
}

// WithSyncWrites makes every commit wait for the disk (default on): a job
// that was acknowledged survives a power loss. Commits that run at once
// share one wait.
func WithSyncWrites(on bool) Option { return func(c *config) { c.sync = on } }

// WithInMemory keeps the database in memory only, for tests; dir is
// ignored. A job's record is then at most 1 MiB.
func WithInMemory() Option { return func(c *config) { c.inMemory = true } }

// WithLogger routes badger's own log lines, and the store's, to l
// (default: none). A nil l makes Open fail.
func WithLogger(l *zap.Logger) Option {
	return func(c *config) {
		if l == nil {
			c.refuse("WithLogger(nil): give a logger, or zap.NewNop() for none")
			return
		}
		c.log = l
	}
}

// WithGCInterval sets how often value-log garbage collection runs
// (default DefaultGCInterval); it also runs on Close. An interval that is
// not positive makes Open fail.
func WithGCInterval(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.refuse("WithGCInterval(%v): the interval must be positive", d)
			return
		}
		c.gcEvery = d
	}
}

// WithScanLimit sets how many jobs one list may read to test filters
// that its index does not answer (default DefaultScanLimit); a list that
// would read more fails with storage.ErrScanLimit. A limit below 1 makes
// Open fail.
func WithScanLimit(n int) Option {
	return func(c *config) {
		if n < 1 {
			c.refuse("WithScanLimit(%d): the limit must be at least 1", n)
			return
		}
		c.scanLimit = n
	}
}

// WithMaxValueBytes bounds a program or a result as stored (its JSON;
// default DefaultMaxValueBytes): a larger one is refused with an error
// that wraps storage.ErrTooLarge. A bound below 1 makes Open fail.
func WithMaxValueBytes(n int64) Option {
	return func(c *config) {
		if n < 1 || n > maxValueBound {
			c.refuse("WithMaxValueBytes(%d): the bound must be from 1 to %d", n, int64(maxValueBound))
			return
		}
		c.maxValue = n
	}
}

// Open opens (or creates) the store in dir.
func Open(dir string, opts ...Option) (*Store, error) {
	cfg := config{sync: true, log: zap.NewNop(), gcEvery: DefaultGCInterval, scanLimit: DefaultScanLimit, maxValue: DefaultMaxValueBytes}
	for _, o := range opts {
		if o == nil {
			cfg.refuse("a nil Option")
			continue
		}
		o(&cfg)
	}
	if err := errors.Join(cfg.errs...); err != nil {
		return nil, err
	}
	bo := badgerdb.DefaultOptions(dir).
		WithSyncWrites(cfg.sync).
		WithLogger(zapBadgerLogger{cfg.log.Sugar()}).
		WithInMemory(cfg.inMemory)
	if cfg.inMemory {
		bo = bo.WithDir("").WithValueDir("")
	}
	db, err := badgerdb.Open(bo)
	if err != nil {
		return nil, fmt.Errorf("store: open badger in %q: %w", dir, err)
	}
	b := &Store{db: db, cfg: cfg, log: cfg.log, stopGC: make(chan struct{}), gcDone: make(chan struct{})}
	for _, step := range []struct {
		what string
		fn   func() error
	}{{"schema", b.checkSchema}, {"chunks", b.dropOrphanChunks}, {"counts", b.loadCounts}} {
		if err := step.fn(); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("store: open badger in %q: %s: %w", dir, step.what, err)
		}
	}
	go b.gcLoop(cfg.gcEvery)
	return b, nil
}

func (b *Store) maxRecord() int {
	if b.cfg.inMemory {
		return maxRecordMemory
	}
	return maxRecordDisk
}

func (b *Store) gcLoop(every time.Duration) {
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
func (b *Store) gc() {
	for b.db.RunValueLogGC(0.5) == nil {
	}
}

// Close runs a last garbage collection and closes the database. It is safe
// to call more than once.
func (b *Store) Close() error {
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

func (b *Store) update(fn func(*badgerdb.Txn) error) error {
	var err error
	for attempt := range maxRetries {
		if err = b.db.Update(fn); !errors.Is(err, badgerdb.ErrConflict) {
			return clean(err)
		}
		time.Sleep(time.Duration(attempt*attempt) * 10 * time.Microsecond)
	}
	return fmt.Errorf("store: %d conflicting attempts: %w", maxRetries, err)
}

// badgerTooLarge matches the start of badger's error for a key or value
// over its limit, which goes on with a hex dump of the data.
var badgerTooLarge = regexp.MustCompile(`(Key|Value) with size (\d+) exceeded (\d+) limit`)

// clean keeps job data out of the errors the store returns: badger's
// errors for a key or value too large carry a dump of it. (The store
// checks sizes before it writes, so these are a last resort.)
func clean(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, badgerdb.ErrTxnTooBig) {
		return fmt.Errorf("store: the change is larger than one badger transaction holds: %w", storage.ErrTooLarge)
	}
	msg := err.Error()
	if m := badgerTooLarge.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("store: a %s of %s bytes is larger than badger's limit of %s bytes: %w", strings.ToLower(m[1]), m[2], m[3], storage.ErrTooLarge)
	}
	if strings.Contains(msg, "exceeded") {
		return fmt.Errorf("store: a key or value is larger than badger holds: %w", storage.ErrTooLarge)
	}
	return err
}

func tooLarge(what string, size, limit int64) error {
	return fmt.Errorf("store: the %s (%d bytes) is larger than the %d bytes the store holds: %w", what, size, limit, storage.ErrTooLarge)
}

// deltas are what a transaction changes in the in-memory counts and
// queues, applied once it commits.
type deltas struct {
	counts map[string]int
	queue  []queueDelta
}

type queueDelta struct {
	mark queueMark
	n    int
}

func newDeltas() *deltas { return &deltas{counts: map[string]int{}} }

func (d *deltas) move(old, r *record) {
	if old != nil {
		for _, k := range old.countPrefixes() {
			d.counts[k]--
		}
	}
	if r != nil {
		for _, k := range r.countPrefixes() {
			d.counts[k]++
		}
	}
	wasQueued := old != nil && old.Status == qtype.StatusQueued
	isQueued := r != nil && r.Status == qtype.StatusQueued
	if wasQueued && isQueued && old.queue() == r.queue() && old.queueKey() == r.queueKey() {
		return // the job keeps its place
	}
	if wasQueued {
		d.queue = append(d.queue, queueDelta{queueMark{old.queue(), old.queueKey()}, -1})
	}
	if isQueued {
		d.queue = append(d.queue, queueDelta{queueMark{r.queue(), r.queueKey()}, +1})
	}
}

// apply adds a committed transaction's deltas to the state in memory.
func (b *Store) apply(d *deltas) {
	b.fault("apply") // outside the lock: tests widen the gap after the commit here
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, n := range d.counts {
		if n == 0 {
			continue
		}
		if b.counts[k] += n; b.counts[k] == 0 {
			delete(b.counts, k)
		}
	}
	for _, e := range d.queue {
		b.mark(e.mark, e.n)
	}
}

// mark adds n to a queue key's mark, putting the key in its queues when
// the mark becomes positive and taking it out when it stops being so.
// The caller holds b.mu.
func (b *Store) mark(m queueMark, n int) {
	before := b.queued[m]
	after := before + n
	if after == 0 {
		delete(b.queued, m)
	} else {
		b.queued[m] = after
	}
	switch {
	case before <= 0 && after > 0:
		ordered.InsertIn(b.devices, m.q.Device, m.key, strings.Compare)
		ordered.InsertIn(b.owned, m.q, m.key, strings.Compare)
	case before > 0 && after <= 0:
		ordered.DeleteIn(b.devices, m.q.Device, m.key)
		ordered.DeleteIn(b.owned, m.q, m.key)
	}
}

// queueKeys returns up to n of the queue's keys that come after the key
// after ("" for the first), oldest first. Resuming from a key rather than
// an index keeps a caller's place when keys before it go meanwhile.
func (b *Store) queueKeys(q storage.Queue, after string, n int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fault("queueKeys")
	set := b.owned[q]
	if set == nil {
		return nil
	}
	c := set.Seek(after)
	if c.Valid() && c.Key() == after {
		c.Next()
	}
	var out []string
	for ; c.Valid() && len(out) < n; c.Next() {
		out = append(out, c.Key())
	}
	return out
}

// fault calls the test hook, if any, from inside a critical section.
func (b *Store) fault(method string) {
	if b.hook != nil {
		b.hook(method)
	}
}

// loadCounts counts the list index keys and reads the queues.
func (b *Store) loadCounts() error {
	b.counts = map[string]int{}
	b.queued = map[queueMark]int{}
	b.devices = map[string]*ordered.Set[string]{}
	b.owned = map[storage.Queue]*ordered.Set[string]{}
	return b.db.View(func(txn *badgerdb.Txn) error {
		var qrns []string
		if err := iterateKeys(txn, "q/", func(k []byte) bool {
			key := string(k)
			dev := strings.IndexByte(key[2:], '/') + 3 // the device is one segment
			qrns = append(qrns, key[dev+tailLen:])
			return true
		}); err != nil {
			return err
		}
		for _, qrn := range qrns {
			r, err := getRecord(txn, qrn)
			if err != nil {
				return err
			}
			b.mark(queueMark{r.queue(), r.queueKey()}, 1)
		}
		for _, p := range []string{"o/", "s/", "w/", "n/"} {
			if err := iterateKeys(txn, p, func(k []byte) bool {
				b.counts[countPrefix(string(k))]++
				return true
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

// put writes r (as data) and moves its index keys from old (nil for a new
// job), noting the changes to the state in memory in d. Keys that both
// have stay as they are.
func put(txn *badgerdb.Txn, old, r *record, data []byte, d *deltas) error {
	keys := r.indexKeys()
	var had []string
	if old != nil {
		had = old.indexKeys()
	}
	for _, k := range missing(had, keys) {
		if err := txn.Delete([]byte(k)); err != nil {
			return err
		}
	}
	d.move(old, r)
	if err := txn.Set([]byte("j/"+r.JobQRN), data); err != nil {
		return err
	}
	for _, k := range missing(keys, had) {
		if err := txn.Set([]byte(k), nil); err != nil {
			return err
		}
	}
	return nil
}

// missing returns the keys of a that b lacks.
func missing(a, b []string) []string {
	var out []string
	if len(a)*len(b) <= 256 {
		for _, k := range a {
			if !slices.Contains(b, k) {
				out = append(out, k)
			}
		}
		return out
	}
	in := make(map[string]bool, len(b))
	for _, k := range b {
		in[k] = true
	}
	for _, k := range a {
		if !in[k] {
			out = append(out, k)
		}
	}
	return out
}

func getRecord(txn *badgerdb.Txn, qrn string) (*record, error) {
	item, err := txn.Get([]byte("j/" + qrn))
	if errors.Is(err, badgerdb.ErrKeyNotFound) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, err
	}
	var r record
	err = item.Value(func(v []byte) error { return decode(v, &r) })
	return &r, err
}

var _ storage.ExclusiveStore = (*Store)(nil)

// Acquire marks the store in use by one Service; storage.ErrStoreInUse
// while another holds it. The returned release may be called more than
// once.
func (b *Store) Acquire() (release func(), err error) { return b.inUse.Acquire() }

// marshalRecord is j as stored, or an ErrTooLarge error.
func (b *Store) marshalRecord(j *storage.JobRecord) (*record, []byte, error) {
	if len(j.JobQRN) > maxQRN {
		return nil, nil, tooLarge("job QRN", int64(len(j.JobQRN)), maxQRN)
	}
	r := toRecord(j)
	data, err := json.Marshal(r)
	if err != nil {
		return nil, nil, fmt.Errorf("store: encode the job: %w", err)
	}
	if len(data) > b.maxRecord() {
		return nil, nil, tooLarge("job record (name, tags, options, metadata)", int64(len(data)), int64(b.maxRecord()))
	}
	return r, data, nil
}

func (b *Store) CreateJob(ctx context.Context, job *storage.JobRecord, program qtype.Program) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, data, err := b.marshalRecord(job)
	if err != nil {
		return err
	}
	p, err := json.Marshal(program)
	if err != nil {
		return fmt.Errorf("store: encode the program: %w", err)
	}
	if int64(len(p)) > b.cfg.maxValue {
		return tooLarge("program", int64(len(p)), b.cfg.maxValue)
	}
	pv, drop, err := b.stage("p", job.JobQRN, p)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			drop()
		}
	}()
	var d *deltas
	err = b.update(func(txn *badgerdb.Txn) error {
		b.fault("CreateJob")
		d = newDeltas()
		if _, err := txn.Get([]byte("j/" + job.JobQRN)); err == nil {
			return storage.ErrJobExists
		} else if !errors.Is(err, badgerdb.ErrKeyNotFound) {
			return err
		}
		if err := takeKey(txn, r); err != nil {
			return err
		}
		if err := reserve(txn, job); err != nil {
			return err
		}
		if err := setBlob(txn, "p", job.JobQRN, pv); err != nil {
			return err
		}
		return put(txn, nil, r, data, d)
	})
	if err == nil {
		committed = true
		b.apply(d)
	}
	return err
}

// takeKey gives r's idempotency key to r, unless a job created within
// the window before it holds it. Badger's transactions conflict on the
// key read here, so of concurrent creates with one key one commits and
// the others retry, and then find it taken.
func takeKey(txn *badgerdb.Txn, r *record) error {
	if r.IdempotencyKey == "" {
		return nil
	}
	k := keyIndex(r.Owner, r.IdempotencyKey)
	holder, err := keyHolder(txn, k)
	if err != nil {
		return err
	}
	if holder != nil && holder.CreatedAt.After(r.CreatedAt.Add(-storage.IdempotencyWindow)) {
		return fmt.Errorf("store: job %s: %w", holder.JobQRN, storage.ErrDuplicateKey)
	}
	return txn.Set(k, []byte(r.JobQRN))
}

// releaseKey drops the idempotency key of a job being deleted, if the job
// still holds it.
func releaseKey(txn *badgerdb.Txn, r *record) error {
	if r.IdempotencyKey == "" {
		return nil
	}
	k := keyIndex(r.Owner, r.IdempotencyKey)
	item, err := txn.Get(k)
	if errors.Is(err, badgerdb.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	qrn, err := item.ValueCopy(nil)
	if err != nil || string(qrn) != r.JobQRN {
		return err
	}
	return txn.Delete(k)
}

// keyHolder is the job an idempotency key points at, or nil.
func keyHolder(txn *badgerdb.Txn, k []byte) (*record, error) {
	item, err := txn.Get(k)
	if errors.Is(err, badgerdb.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	qrn, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	r, err := getRecord(txn, string(qrn))
	if errors.Is(err, storage.ErrJobNotFound) {
		return nil, nil
	}
	return r, err
}

func (b *Store) JobByIdempotencyKey(ctx context.Context, owner, key string, since time.Time) (*storage.JobRecord, error) {
	if key == "" {
		return nil, storage.ErrJobNotFound
	}
	var j *storage.JobRecord
	err := b.db.View(func(txn *badgerdb.Txn) error {
		b.fault("JobByIdempotencyKey")
		r, err := keyHolder(txn, keyIndex(owner, key))
		switch {
		case err != nil:
			return err
		case r == nil || r.CreatedAt.Before(since):
			return storage.ErrJobNotFound
		}
		j = r.job()
		return nil
	})
	return j, err
}

func (b *Store) GetJob(ctx context.Context, qrn string) (*storage.JobRecord, error) {
	var j *storage.JobRecord
	err := b.db.View(func(txn *badgerdb.Txn) error {
		b.fault("GetJob")
		r, err := getRecord(txn, qrn)
		if err == nil {
			j = r.job()
		}
		return err
	})
	return j, err
}

func (b *Store) getBlobJSON(kind, qrn string, v any) error {
	var data []byte
	err := b.db.View(func(txn *badgerdb.Txn) error {
		b.fault("get")
		var err error
		data, err = getBlob(txn, kind, qrn)
		return err
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("store: decode the %s of job %s: %w", kindName(kind), qrn, err)
	}
	return nil
}

func (b *Store) GetProgram(ctx context.Context, qrn string) (*qtype.Program, error) {
	var p qtype.Program
	if err := b.getBlobJSON("p", qrn, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func (b *Store) GetResult(ctx context.Context, qrn string) (*qtype.Result, error) {
	var r qtype.Result
	if err := b.getBlobJSON("r", qrn, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func (b *Store) UpdateJob(ctx context.Context, qrn string, expect qtype.JobStatus, change func(*storage.JobRecord), result *qtype.Result) (*storage.JobRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rv []byte
	drop := func() {}
	if result != nil {
		data, err := json.Marshal(result)
		if err != nil {
			return nil, fmt.Errorf("store: encode the result: %w", err)
		}
		if int64(len(data)) > b.cfg.maxValue {
			return nil, tooLarge("result", int64(len(data)), b.cfg.maxValue)
		}
		if rv, drop, err = b.stage("r", qrn, data); err != nil {
			return nil, err
		}
	}
	committed := false
	defer func() { // also when change panics
		if !committed {
			drop()
		}
	}()
	var out *storage.JobRecord
	var d *deltas
	err := b.update(func(txn *badgerdb.Txn) error {
		b.fault("UpdateJob")
		d = newDeltas()
		old, err := getRecord(txn, qrn)
		if err != nil {
			return err
		}
		if old.Status != expect || expect.IsTerminal() {
			return storage.ErrStatusChanged
		}
		j := old.job()
		change(j)
		// Identity never changes.
		j.JobQRN, j.Owner, j.DeviceQRN, j.TimeStamps.CreatedAt = old.JobQRN, old.Owner, old.DeviceQRN, old.CreatedAt
		j.IdempotencyKey, j.RequestHash, j.Reserved = old.IdempotencyKey, old.RequestHash, old.Reserved
		r, data, err := b.marshalRecord(j)
		if err != nil {
			return err
		}
		if err := settle(txn, old, j); err != nil {
			return err
		}
		if rv != nil {
			if err := setBlob(txn, "r", qrn, rv); err != nil {
				return err
			}
		}
		if err := put(txn, old, r, data, d); err != nil {
			return err
		}
		out = j.Clone()
		return nil
	})
	if err != nil {
		return nil, err
	}
	committed = true
	b.apply(d)
	return out, nil
}

func (b *Store) DeleteJob(ctx context.Context, qrn string, expect qtype.JobStatus) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var d *deltas
	err := b.update(func(txn *badgerdb.Txn) error {
		b.fault("DeleteJob")
		d = newDeltas()
		old, err := getRecord(txn, qrn)
		if err != nil {
			return err
		}
		if old.Status != expect {
			return storage.ErrStatusChanged
		}
		d.move(old, nil)
		if err := releaseKey(txn, old); err != nil {
			return err
		}
		for _, k := range append(old.indexKeys(), "j/"+qrn) {
			if err := txn.Delete([]byte(k)); err != nil {
				return err
			}
		}
		for _, kind := range []string{"p", "r"} {
			if err := deleteBlob(txn, kind, qrn, nil); err != nil {
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

func (b *Store) CountQueued(ctx context.Context, deviceQRN string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fault("CountQueued")
	if q := b.devices[deviceQRN]; q != nil {
		return q.Len(), nil
	}
	return 0, nil
}

func (b *Store) CountJobs(ctx context.Context, owner string, statuses []qtype.JobStatus) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fault("CountJobs")
	n := 0
	for i, st := range statuses {
		if !slices.Contains(statuses[:i], st) { // each status once
			n += b.counts[statusPrefix(owner, st)]
		}
	}
	return n, nil
}

// iterateKeys calls fn on each key with prefix, in order, until fn says stop.
func iterateKeys(txn *badgerdb.Txn, prefix string, fn func(key []byte) bool) error {
	opts := badgerdb.DefaultIteratorOptions
	opts.PrefetchValues, opts.Prefix = false, []byte(prefix)
	it := txn.NewIterator(opts)
	defer it.Close()
	for it.Seek([]byte(prefix)); it.ValidForPrefix([]byte(prefix)); it.Next() {
		if !fn(it.Item().Key()) {
			break
		}
	}
	return nil
}

func (b *Store) QueuePosition(ctx context.Context, qrn string) (int, error) {
	var r *record
	err := b.db.View(func(txn *badgerdb.Txn) error {
		b.fault("QueuePosition")
		var err error
		r, err = getRecord(txn, qrn)
		return err
	})
	if err != nil || r.Status != qtype.StatusQueued {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fault("QueuePosition")
	if q := b.devices[r.DeviceQRN]; q != nil {
		if i, ok := q.Rank(r.queueKey()); ok {
			return i + 1, nil
		}
	}
	return 0, nil
}

func (b *Store) Queues(ctx context.Context) ([]storage.Queue, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fault("Queues")
	out := slices.Collect(maps.Keys(b.owned))
	slices.SortFunc(out, inproc.CompareQueues)
	return out, nil
}

// claimBatch is how many queue keys ClaimJob looks at per step: the head
// is almost always live, so one step is almost always enough.
const claimBatch = 8

func (b *Store) ClaimJob(ctx context.Context, c storage.Claim) (*storage.JobRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *storage.JobRecord
	var d *deltas
	err := b.update(func(txn *badgerdb.Txn) error {
		d = newDeltas()
		b.fault("ClaimJob")
		// The queue in memory names the candidates; the transaction checks
		// each, since another change may have taken it and not yet been
		// applied to memory.
		var old *record
		for after := ""; old == nil; {
			keys := b.queueKeys(c.Queue, after, claimBatch)
			if len(keys) == 0 {
				return storage.ErrNoJob
			}
			after = keys[len(keys)-1]
			for _, key := range keys {
				r, err := getRecord(txn, key[tailLen:])
				if errors.Is(err, storage.ErrJobNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if r.Status == qtype.StatusQueued && r.queue() == c.Queue && r.queueKey() == key {
					old = r
					break
				}
			}
		}
		if old.MemoryNeed > c.MaxMemory {
			out = old.job()
			return storage.ErrMemoryShort
		}
		j := old.job()
		// c.Now was read before this claim found the job, which may have
		// been queued since: a job's changes never go back in time.
		j.Status, j.UpdatedAt, j.LeaseUntil, j.Node = qtype.StatusRunning, laterOf(c.Now, old.UpdatedAt), c.LeaseUntil, c.Node
		j.Attempts++
		r, data, err := b.marshalRecord(j)
		if err != nil {
			return err
		}
		if err := put(txn, old, r, data, d); err != nil {
			return err
		}
		out = j
		return nil
	})
	if err == nil {
		b.apply(d)
	}
	if err != nil && !errors.Is(err, storage.ErrMemoryShort) {
		out = nil
	}
	return out, err
}

func (b *Store) Unfinished(ctx context.Context, statuses []qtype.JobStatus, before time.Time, limit int) ([]*storage.JobRecord, error) {
	var out []*storage.JobRecord
	if limit <= 0 {
		return nil, nil
	}
	err := b.db.View(func(txn *badgerdb.Txn) error {
		b.fault("Unfinished")
		for i, st := range statuses {
			if slices.Contains(statuses[:i], st) {
				continue
			}
			prefix := changedPrefix(st)
			var qrns []string
			bound := prefix + ts(before)
			if err := iterateKeys(txn, prefix, func(k []byte) bool {
				if !before.IsZero() && string(k) >= bound {
					return false
				}
				qrns = append(qrns, string(k[len(prefix)+tailLen:]))
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
	inproc.SortByUpdate(out)
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

// MaxResultBytes is the bound on a result (and a program) as stored: its
// JSON. It makes Store a storetest.ResultLimiter.
func (b *Store) MaxResultBytes() int64 { return b.cfg.maxValue }

func laterOf(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}
