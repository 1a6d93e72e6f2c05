package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// Store is a storage.Store in a PostgreSQL database, shared by every
// Service (node) that opens it. It is safe for concurrent use.
type Store struct {
	pool     *pgxpool.Pool
	batch    *pgxpool.Pool // for the batched statements, creates and counts, with generic plans cached
	moves    *pgxpool.Pool // for the group's compare-and-sets (casWrites): generic plans through indexes
	maxValue int64
	hints    hints
	writes   group[write]      // UpdateJob's compare-and-sets, many jobs a statement
	creates  group[createCall] // creates, many jobs a statement (creates.go)
	growth   *growth           // analyzes the job tables while they are young
	follow   follow            // FollowAll's callers and the feed's locks
}

var (
	_ storage.Store        = (*Store)(nil)
	_ storage.FollowedFeed = (*Store)(nil)
)

// Option configures Open.
type Option func(*config)

type config struct {
	maxValue int64
	refused  error
	tracer   pgx.QueryTracer // tests' round-trip counter (export_test.go)
}

// DefaultMaxValueBytes bounds a program or a result unless
// WithMaxValueBytes says otherwise.
const DefaultMaxValueBytes = 256 << 20

// WithMaxValueBytes bounds, in bytes of JSON, a job's program and its
// result (default DefaultMaxValueBytes; at most 512 MiB, below
// PostgreSQL's 1 GiB bound on one value). Larger ones are refused with
// storage.ErrTooLarge.
func WithMaxValueBytes(n int64) Option {
	return func(c *config) {
		if n < 1024 || n > 512<<20 {
			c.refused = fmt.Errorf("postgres: WithMaxValueBytes(%d): must be from 1 KiB to 512 MiB", n)
		}
		c.maxValue = n
	}
}

// Open connects to the database named by dsn (a URL such as
// "postgres://user:pass@host:5432/db" or "host=… dbname=…"; pool settings
// such as pool_max_conns are read from it too), brings its schema to this
// build's version, and returns the Store. Several nodes may open one
// database at once: they migrate it one at a time. A database whose
// schema is newer than this build gives ErrSchemaTooNew.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	cfg := config{maxValue: DefaultMaxValueBytes}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.refused != nil {
		return nil, cfg.refused
	}
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err) // pgx leaves the password out
	}
	// The batched statements (claims of several jobs, moves of several
	// jobs), the creates and the counts of an owner's jobs have a pool of
	// their own, whose plans are made once and cached: they name their
	// statuses as constants or read by primary key, so a generic plan is
	// as good as any, and planning one of them afresh each time costs
	// about as much as running it.
	bc := pc.Copy()
	bc.MinConns = 0
	if _, set := bc.ConnConfig.RuntimeParams["plan_cache_mode"]; !set {
		bc.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	}
	if cfg.tracer != nil {
		bc.ConnConfig.Tracer = cfg.tracer
	}
	// The group's writes, one statement at a time a node (group), have a
	// pool of their own, where scans of whole tables are off: a write
	// finds each of its jobs by primary key, but its generic plan is made
	// once, perhaps while the tables are nearly empty, when a scan looks
	// cheapest; kept, it would read every job at each write as the table
	// grows. Planning it afresh each time costs more than running it.
	mc := bc.Copy()
	mc.MaxConns = 2
	if _, set := mc.ConnConfig.RuntimeParams["enable_seqscan"]; !set {
		mc.ConnConfig.RuntimeParams["enable_seqscan"] = "off"
	}
	if _, set := pc.ConnConfig.RuntimeParams["plan_cache_mode"]; !set {
		// A plan made for the values at hand: a generic plan cannot use
		// the partial queue indexes, nor tell a rare status from a common one.
		pc.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	if cfg.tracer != nil {
		pc.ConnConfig.Tracer = cfg.tracer
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	batch, err := pgxpool.NewWithConfig(ctx, bc)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	moves, err := pgxpool.NewWithConfig(ctx, mc)
	if err != nil {
		pool.Close()
		batch.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		batch.Close()
		moves.Close()
		return nil, err
	}
	st := &Store{pool: pool, batch: batch, moves: moves, maxValue: cfg.maxValue}
	st.writes = group[write]{max: maxBatch, send: st.sendWrites}
	st.creates = group[createCall]{max: maxBatch, send: st.sendCreates}
	rows, err := st.jobRows(ctx)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	st.growth = newGrowth(rows, st.analyzeJobs)
	return st, nil
}

// Close closes the connections. Jobs and their leases stay in the
// database for the other nodes.
func (s *Store) Close() {
	if s.growth != nil {
		s.growth.stop()
	}
	s.pool.Close()
	s.batch.Close()
	s.moves.Close()
}

// MaxResultBytes is the bound on a result (WithMaxValueBytes).
func (s *Store) MaxResultBytes() int64 { return s.maxValue }

// maxKey bounds the identifiers that the indexes hold (PostgreSQL refuses
// a B-tree entry over about 2.7 kB).
const maxKey = 1024

// maxRecord bounds a job's own JSON: name, tags, options and metadata.
const maxRecord = 16 << 20

func tooLarge(what string, size, limit int64) error {
	return fmt.Errorf("postgres: %s of %d bytes is over the bound of %d: %w", what, size, limit, storage.ErrTooLarge)
}

// stored is a job record as the record column holds it: the JobRecord's
// JSON, with its times to the nanosecond (the API's form keeps
// milliseconds).
type stored struct {
	*storage.JobRecord
	CreatedAt time.Time  `json:"createdAtExact"`
	EndedAt   *time.Time `json:"endedAtExact,omitempty"`
}

// row is a job as written: the columns the queries use, and the record.
type row struct {
	j      *storage.JobRecord
	record []byte
	tags   []byte
	search []string
}

func encode(j *storage.JobRecord) (*row, error) {
	for _, k := range []struct{ what, v string }{
		{"job QRN", j.JobQRN}, {"owner", j.Owner}, {"device QRN", j.DeviceQRN},
		{"vendor", j.Vendor}, {"provider", j.Provider}, {"node", j.Node},
		{"idempotency key", j.IdempotencyKey},
	} {
		if len(k.v) > maxKey {
			return nil, tooLarge(k.what, int64(len(k.v)), maxKey)
		}
	}
	record, err := json.Marshal(stored{JobRecord: j, CreatedAt: j.TimeStamps.CreatedAt, EndedAt: j.TimeStamps.EndedAt})
	if err != nil {
		return nil, fmt.Errorf("postgres: encode the job: %w", err)
	}
	if len(record) > maxRecord {
		return nil, tooLarge("job record (name, tags, options, metadata)", int64(len(record)), maxRecord)
	}
	tags, err := json.Marshal(orEmpty(j.Tags))
	if err != nil {
		return nil, fmt.Errorf("postgres: encode the tags: %w", err)
	}
	search := []string{strings.ToLower(j.Name), strings.ToLower(j.JobQRN), strings.ToLower(j.DeviceQRN)}
	return &row{j: j, record: record, tags: tags, search: search}, nil
}

func decode(data []byte) (*storage.JobRecord, error) {
	st := stored{JobRecord: &storage.JobRecord{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("postgres: decode a job: %w", err)
	}
	j := st.JobRecord
	j.TimeStamps.CreatedAt, j.TimeStamps.EndedAt = st.CreatedAt, st.EndedAt
	j.QueuePosition = nil
	for _, m := range []*map[string]any{&j.Tags, &j.RuntimeOptions, &j.Metadata} {
		*m = orEmpty(*m)
		for k, v := range *m {
			(*m)[k] = qtype.FromJSONNumbers(v)
		}
	}
	return j, nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// nanos is t in nanoseconds since 1970, for the columns that order jobs:
// exact (timestamptz keeps microseconds), clamped to int64's range.
func nanos(t time.Time) int64 {
	switch {
	case t.IsZero() || t.Year() < 1678:
		return math.MinInt64
	case t.Year() > 2261:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// queueNanos is the job's place in its queue: QueuedAt, or UpdatedAt
// when that is zero.
func queueNanos(j *storage.JobRecord) int64 {
	if j.QueuedAt.IsZero() {
		return nanos(j.UpdatedAt)
	}
	return nanos(j.QueuedAt)
}

// leaseNanos is LeaseUntil, or NULL when there is none.
func leaseNanos(j *storage.JobRecord) *int64 {
	if j.LeaseUntil.IsZero() {
		return nil
	}
	n := nanos(j.LeaseUntil)
	return &n
}

// isUniqueViolation reports a duplicate primary key.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
