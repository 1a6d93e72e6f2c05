-- Version 6: what a job was created with apart from what moves.
--
-- A job's row is written once at its create and again at each move
-- (queued, claimed, ended). Until version 5 every move wrote a new
-- version of a wide row (its tags, search terms and record) with an entry
-- in each of about ten indexes, most of which (the owner's lists by
-- provider, vendor and tags) never change with a move; the program and the
-- result were rows of their own, each with its index and a foreign key to
-- check; and every moved row sent a notification of its own.
--
-- Now quantum_job_requests holds what a create stores and no move
-- changes: the columns the lists filter on, with their indexes, and the
-- program. quantum_job_states keeps what moves: the status and the runner's
-- bookkeeping, the record, the result (written with the move that
-- completes the job), and only the indexes that follow the status. The two
-- rows of a job are inserted in one statement and deleted in one, so no
-- foreign key is needed to keep them together. And no trigger: each
-- statement that writes jobs keeps the owners' counts per status (the
-- table of version 4, unchanged) and notifies the nodes itself, a
-- notification per statement (per about 7 kB of changes), not per row
-- (the package's moveEffects).
--
-- Every job is kept: the migration copies the rows into the new tables,
-- in one transaction with its version row. The table of versions 1 to 5,
-- quantum_jobs, goes with its triggers, and its name is not taken again:
-- a node of an older build left running finds no table to write, rather
-- than one it would write half a job in.


CREATE TABLE quantum_job_requests (
	qrn        text COLLATE "C" PRIMARY KEY,
	owner      text COLLATE "C" NOT NULL,
	vendor     text COLLATE "C" NOT NULL,
	provider   text COLLATE "C" NOT NULL,
	created_ns bigint NOT NULL,
	search     text[] NOT NULL,
	tags       jsonb NOT NULL,
	idem_key   text COLLATE "C",
	format     text,
	data       text
);

CREATE TABLE quantum_job_states (
	qrn         text COLLATE "C" PRIMARY KEY,
	owner       text COLLATE "C" NOT NULL,
	device_qrn  text COLLATE "C" NOT NULL,
	status      text COLLATE "C" NOT NULL,
	created_ns  bigint NOT NULL,
	updated_ns  bigint NOT NULL,
	queued_ns   bigint NOT NULL,
	lease_ns    bigint,
	memory_need bigint NOT NULL,
	attempts    integer NOT NULL,
	node        text NOT NULL,
	record      json NOT NULL,
	result      json
) WITH (fillfactor = 80); -- room on the page for a move's new version

INSERT INTO quantum_job_requests (qrn, owner, vendor, provider, created_ns, search, tags, idem_key, format, data)
SELECT j.qrn, j.owner, j.vendor, j.provider, j.created_ns, j.search, j.tags, j.idem_key, p.format, p.data
FROM quantum_jobs j LEFT JOIN quantum_programs p ON p.qrn = j.qrn;

INSERT INTO quantum_job_states (qrn, owner, device_qrn, status, created_ns, updated_ns, queued_ns, lease_ns, memory_need,
	attempts, node, record, result)
SELECT j.qrn, j.owner, j.device_qrn, j.status, j.created_ns, j.updated_ns, j.queued_ns, j.lease_ns, j.memory_need,
	j.attempts, j.node, j.record, r.counts
FROM quantum_jobs j LEFT JOIN quantum_results r ON r.qrn = j.qrn;

DROP TABLE quantum_results;
DROP TABLE quantum_programs;
DROP TABLE quantum_jobs; -- and its triggers
DROP FUNCTION quantum_job_changed();
DROP FUNCTION quantum_jobs_counted();

-- An owner's jobs newest first, alone and with each filter that an index
-- answers; tags through the GIN index. Written once, at the create.
CREATE INDEX quantum_job_requests_owner ON quantum_job_requests (owner, created_ns DESC, qrn DESC);
CREATE INDEX quantum_job_requests_owner_provider ON quantum_job_requests (owner, provider, created_ns DESC, qrn DESC);
CREATE INDEX quantum_job_requests_owner_vendor ON quantum_job_requests (owner, vendor, created_ns DESC, qrn DESC);
CREATE INDEX quantum_job_requests_tags ON quantum_job_requests USING gin (tags jsonb_path_ops);
CREATE UNIQUE INDEX quantum_job_requests_idem_key ON quantum_job_requests (owner, idem_key) WHERE idem_key IS NOT NULL;

-- What follows the status: an owner's jobs by status; the queues; the
-- jobs before the queue and running ones (the intake's backlog, leases
-- to renew or take over).
CREATE INDEX quantum_job_states_owner_status ON quantum_job_states (owner, status, created_ns DESC, qrn DESC);
CREATE INDEX quantum_job_states_queue ON quantum_job_states (device_qrn, owner, queued_ns, qrn) WHERE status = 'QUEUED';
CREATE INDEX quantum_job_states_device_queue ON quantum_job_states (device_qrn, queued_ns, qrn) WHERE status = 'QUEUED';
CREATE INDEX quantum_job_states_unfinished ON quantum_job_states (status, updated_ns, qrn)
	WHERE status IN ('INITIALIZING', 'VALIDATING', 'RUNNING', 'CANCELLING');

-- The statistics of the jobs copied, for the planner; none for an empty
-- database, where they would tell the planner that the tables stay empty
-- (and the plans cached for the batched statements would scan them).
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM quantum_job_states) THEN
		ANALYZE quantum_job_requests;
		ANALYZE quantum_job_states;
	END IF;
END
$$;
