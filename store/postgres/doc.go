// Package postgres is a storage.Store in PostgreSQL (through pgx), which
// several Services — nodes, in one process or many machines — share, for
// capacity and for availability: a node can stop or die, and another
// takes over its jobs once their leases expire.
//
//	st, err := postgres.Open(ctx, "postgres://quantum@db/quantum")
//	...
//	svc, err := quantum.New(st, quantum.WithNode("node-a"))
//
// It is not a storage.ExclusiveStore: any number of Services may use one
// database. It is a storage.ChangeFeed: the nodes hear of each other's
// changes through LISTEN/NOTIFY, so a job created on one node wakes the
// idle workers of every node at once, and a cancel received by one node
// stops the job on the node that runs it.
//
// # How it works
//
// Every change of a job is a compare-and-set. UpdateJob applies the
// change to the job as this Store last wrote or read it (a hint: the
// record and the row version, xmin, that held it) and writes it back with
// one UPDATE whose condition is the status expected and that row version:
// whatever any node wrote in between makes the write fail, and the job is
// read again and the change applied again. The writes that callers make
// at the same time go in one statement (a group commit: a write finds
// either nobody writing, and goes at once, or a statement on its way, and
// joins the next), with their results, and each caller learns whether its
// own compare-and-set held. A move that settles credits, and a job that
// keeps changing under the writes, lock the row in a transaction instead
// (SELECT … FOR UPDATE, then the write, the result and the settlement).
// The hints are never an answer to a read, and a stale one costs a round
// trip, never a wrong write.
//
// ClaimJobs (storage.BatchClaimer) claims for all of a node's free workers
// in one statement: it finds the queues (a skip through the queue index),
// ranks them in the runner's turns, locks each queue's oldest jobs that
// no concurrent claim holds (FOR UPDATE SKIP LOCKED), takes them in the
// turns' order while their memory fits, moves them to RUNNING with a
// lease, the node's name and one more attempt, and returns them with
// their programs. ClaimJob does the same for one queue and one job. Queue
// depth, queue positions and list totals are counted in the database,
// never cached in a process, so every node gives the same answer.
//
// Locks are taken in one order in every statement and transaction, so
// that none deadlock: job rows (by QRN in a batch of writes; a claim's
// never wait), then the counts of jobs per owner and status (in a
// statement trigger at the statement's end, sorted), then credit
// accounts. The batched statements run on a second, small pool whose
// plans are generic and cached.
//
// # Schema
//
// Open applies the embedded, numbered migrations (migrations/*.sql) under
// a PostgreSQL advisory lock, so that nodes starting together migrate
// once; quantum_schema_migrations records the versions applied. A
// database at a version newer than the build is refused (ErrSchemaTooNew)
// rather than misread.
//
// A job is two rows (migration 6): what its create stored and no move
// changes, in quantum_job_requests, and what moves, in
// quantum_job_states. The two are inserted in one statement and deleted
// in one. (The table of versions 1 to 5, quantum_jobs, is gone: a node
// of an older build finds nothing it could write.) A move writes
// the job's row alone, with an entry in the few indexes that follow the
// status; the indexes of the owner's lists by provider, vendor and tags
// are written once, at the create. The creates a node makes at the same
// time are inserted together, in one statement (creates.go), and each
// is counted against its owner's bound after those before it.
//
// quantum_job_requests holds the columns the lists filter on, and the
// program:
//
//	qrn, owner, vendor, provider   text, "C" collation (byte order, as Go compares)
//	created_ns                     bigint, nanoseconds since 1970
//	search                         text[], lower-cased name, QRN and device QRN
//	tags                           jsonb, the job's tags
//	idem_key                       text, the idempotency key the job holds (NULL: none, or expired and taken)
//	format, data                   the program
//
//	quantum_job_requests_owner           (owner, created_ns DESC, qrn DESC)            an owner's jobs, newest first
//	quantum_job_requests_owner_provider  (owner, provider, created_ns DESC, qrn DESC)  … by provider
//	quantum_job_requests_owner_vendor    (owner, vendor, created_ns DESC, qrn DESC)    … by vendor
//	quantum_job_requests_tags            GIN (tags jsonb_path_ops)                     … by tags (tags @> filter)
//	quantum_job_requests_idem_key        UNIQUE (owner, idem_key) WHERE idem_key IS NOT NULL
//	                                     one job per key and owner, on every node; a create first frees a key whose job expired
//
// quantum_job_states holds the job as it is now. Its record column (json)
// is the whole storage.JobRecord, times to the nanosecond; result (json) its
// measurement counts, written with the move that completes it; the other
// columns are copies of what the queries select and order by:
//
//	qrn, owner, device_qrn, status   text, "C" collation
//	created_ns, updated_ns           bigint, nanoseconds since 1970
//	queued_ns                        bigint, the job's place in its queue
//	lease_ns                         bigint, when a RUNNING job's lease ends (NULL: none)
//	memory_need, attempts, node      the runner's bookkeeping
//
//	quantum_job_states_owner_status  (owner, status, created_ns DESC, qrn DESC)         an owner's jobs by status
//	quantum_job_states_queue         (device_qrn, owner, queued_ns, qrn) WHERE QUEUED   claims, the list of queues
//	quantum_job_states_device_queue  (device_qrn, queued_ns, qrn) WHERE QUEUED          queue depth and position
//	quantum_job_states_unfinished    (status, updated_ns, qrn) WHERE INITIALIZING, VALIDATING, RUNNING or CANCELLING
//	                                 the intake's backlog; running jobs, whose leases the sweepers check
//
// A search filter reads the owner's requests that the other filters leave.
//
// quantum_job_counts (owner, status, shard, n) counts each owner's jobs
// per status, for CountJobs and list totals: a count is the sum of its
// shards. Each statement that writes jobs keeps it itself (no trigger:
// see moveEffects): once, from the rows it inserted, moved or deleted, in
// (owner, status) order, each connection adding to the shard of its
// backend's process ID modulo 16, so that moves made at once by many
// connections do not queue on one row.
//
// quantum_credit_accounts (owner, balance, reserved, entries) and
// quantum_credit_entries (owner, n, kind, amount, held, job_qrn,
// grant_id, note, at_ns) are the credit ledger (storage.CreditLedger), in
// micro-credits. A create reserves with a conditional UPDATE of the
// account (balance - reserved >= the amount) in the job's transaction, so
// that creates on many nodes cannot overdraw it; a job's move to a
// terminal status settles in its own transaction, the account's row
// locked after the job's. The unique index quantum_credit_grants on
// (owner, grant_id) records a grant with an ID once.
//
// The same statements notify the channel quantum_job_changes, at commit,
// of the jobs a statement created or moved to another status: one
// notification per statement (per about 7 kB of changes), with a JSON
// payload {"jobs": [[qrn, device, owner, status], …]} (no job data).
// Only the moves to QUEUED and CANCELLING, which every node's workers act
// on, are always sent; the others only while some node follows every
// change (storage.FollowedFeed: a Service does while it has watchers of
// jobs). A node that follows holds a shared advisory lock on each of 64
// keys (1903649140, 0 … 63) on its listening connection, and a statement
// that moved a job to another status tries the exclusive lock on its
// backend's key: if it cannot have it, it sends every change (follow.go).
package postgres
