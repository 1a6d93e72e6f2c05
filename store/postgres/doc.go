// Package postgres is a quantum.Store in PostgreSQL (through pgx), which
// several Services — nodes, in one process or many machines — share, for
// capacity and for availability: a node can stop or die, and another
// takes over its jobs once their leases expire.
//
//	st, err := postgres.Open(ctx, "postgres://quantum@db/quantum")
//	...
//	svc, err := quantum.New(st, quantum.WithNode("node-a"))
//
// It is not a quantum.ExclusiveStore: any number of Services may use one
// database. It is a quantum.ChangeFeed: the nodes hear of each other's
// changes through LISTEN/NOTIFY, so a job created on one node wakes the
// idle workers of every node at once, and a cancel received by one node
// stops the job on the node that runs it.
//
// # How it works
//
// Every change of a job is a compare-and-set: UpdateJob locks the job's
// row (SELECT … FOR UPDATE), checks the status it expects, and writes the
// row back in the same transaction, with the result when there is one.
// ClaimJob takes the oldest QUEUED job of a queue that no concurrent
// claim holds (FOR UPDATE SKIP LOCKED), moves it to RUNNING with a lease
// and the claiming node's name, and counts the attempt, in one
// transaction. Queue depth, queue positions and list totals are counted
// in the database, never cached in a process, so every node gives the
// same answer.
//
// # Schema
//
// Open applies the embedded, numbered migrations (migrations/*.sql) under
// a PostgreSQL advisory lock, so that nodes starting together migrate
// once; quantum_schema_migrations records the versions applied. A
// database at a version newer than the build is refused (ErrSchemaTooNew)
// rather than misread.
//
// quantum_jobs holds one row per job. Its record column (json) is the
// whole quantum.JobRecord, times to the nanosecond; the other columns
// are copies of what the queries select and order by:
//
//	qrn, owner, device_qrn, status, vendor, provider   text, "C" collation (byte order, as Go compares)
//	created_ns, updated_ns                             bigint, nanoseconds since 1970
//	queued_ns                                          bigint, the job's place in its queue
//	lease_ns                                           bigint, when a RUNNING job's lease ends (NULL: none)
//	memory_need, attempts, node                        the runner's bookkeeping
//	search                                             text[], lower-cased name, QRN and device QRN
//	tags                                               jsonb, the job's tags
//	idem_key                                           text, the idempotency key the job holds (NULL: none, or expired and taken)
//
// Its indexes serve the service's queries:
//
//	quantum_jobs_owner           (owner, created_ns DESC, qrn DESC)            an owner's jobs, newest first
//	quantum_jobs_owner_status    (owner, status, created_ns DESC, qrn DESC)    … by status, and CountJobs
//	quantum_jobs_owner_provider  (owner, provider, created_ns DESC, qrn DESC)  … by provider
//	quantum_jobs_owner_vendor    (owner, vendor, created_ns DESC, qrn DESC)    … by vendor
//	quantum_jobs_tags            GIN (tags jsonb_path_ops)                     … by tags (tags @> filter)
//	quantum_jobs_queue           (device_qrn, owner, queued_ns, qrn) WHERE QUEUED   claims, the list of queues
//	quantum_jobs_device_queue    (device_qrn, queued_ns, qrn) WHERE QUEUED          queue depth and position
//	quantum_jobs_unfinished      (status, updated_ns, qrn) WHERE INITIALIZING, VALIDATING, RUNNING or CANCELLING
//	                             the intake's backlog; running jobs, whose leases the sweepers check
//	quantum_jobs_idem_key        UNIQUE (owner, idem_key) WHERE idem_key IS NOT NULL
//	                             one job per key and owner, on every node; a create first frees a key whose job expired
//
// A search filter reads the owner's jobs that the other filters leave.
//
// quantum_programs (qrn, format, data) and quantum_results (qrn, counts
// json) hold each job's program and measurement counts; they are deleted
// with their job (ON DELETE CASCADE).
//
// quantum_credit_accounts (owner, balance, reserved, entries) and
// quantum_credit_entries (owner, n, kind, amount, held, job_qrn,
// grant_id, note, at_ns) are the credit ledger (quantum.CreditLedger), in
// micro-credits. A create reserves with a conditional UPDATE of the
// account (balance - reserved >= the amount) in the job's transaction, so
// that creates on many nodes cannot overdraw it; a job's move to a
// terminal status settles in its own transaction, the account's row
// locked after the job's. The unique index quantum_credit_grants on
// (owner, grant_id) records a grant with an ID once.
//
// A trigger on quantum_jobs notifies the channel quantum_job_changes, at
// commit, of every new job and every change of status, with a JSON
// payload {"qrn", "device", "owner", "status"} (no job data).
package postgres
