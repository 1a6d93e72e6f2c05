-- Version 1: jobs, their programs and results, the indexes the service's
-- queries use, and the notifications other nodes listen to.

CREATE TABLE quantum_jobs (
	qrn         text COLLATE "C" PRIMARY KEY,
	owner       text COLLATE "C" NOT NULL,
	device_qrn  text COLLATE "C" NOT NULL,
	status      text COLLATE "C" NOT NULL,
	vendor      text COLLATE "C" NOT NULL,
	provider    text COLLATE "C" NOT NULL,
	created_ns  bigint NOT NULL,
	updated_ns  bigint NOT NULL,
	queued_ns   bigint NOT NULL,
	lease_ns    bigint,
	memory_need bigint NOT NULL,
	attempts    integer NOT NULL,
	node        text NOT NULL,
	search      text[] NOT NULL,
	tags        jsonb NOT NULL,
	record      json NOT NULL
);

-- An owner's jobs newest first, alone and with each filter that an index
-- answers; tags through the GIN index.
CREATE INDEX quantum_jobs_owner ON quantum_jobs (owner, created_ns DESC, qrn DESC);
CREATE INDEX quantum_jobs_owner_status ON quantum_jobs (owner, status, created_ns DESC, qrn DESC);
CREATE INDEX quantum_jobs_owner_provider ON quantum_jobs (owner, provider, created_ns DESC, qrn DESC);
CREATE INDEX quantum_jobs_owner_vendor ON quantum_jobs (owner, vendor, created_ns DESC, qrn DESC);
CREATE INDEX quantum_jobs_tags ON quantum_jobs USING gin (tags jsonb_path_ops);

-- The queues: QUEUED jobs per device and owner in order (claims, and the
-- list of queues), and per device (queue depth and position).
CREATE INDEX quantum_jobs_queue ON quantum_jobs (device_qrn, owner, queued_ns, qrn) WHERE status = 'QUEUED';
CREATE INDEX quantum_jobs_device_queue ON quantum_jobs (device_qrn, queued_ns, qrn) WHERE status = 'QUEUED';

-- Jobs before the queue and running ones (the intake's backlog, leases to
-- renew or take over), by their last change.
CREATE INDEX quantum_jobs_unfinished ON quantum_jobs (status, updated_ns, qrn)
	WHERE status IN ('INITIALIZING', 'VALIDATING', 'RUNNING', 'CANCELLING');

-- How many jobs each owner has in each status, kept by a trigger in the
-- transaction of every change, so that an owner's totals (a list without
-- filters or by status, the active-job limit) cost one index probe per
-- status, not a count of the owner's jobs.
CREATE TABLE quantum_job_counts (
	owner  text COLLATE "C" NOT NULL,
	status text COLLATE "C" NOT NULL,
	n      bigint NOT NULL,
	PRIMARY KEY (owner, status)
);

CREATE FUNCTION quantum_job_count(who text, st text, delta integer) RETURNS void LANGUAGE sql AS $$
	INSERT INTO quantum_job_counts (owner, status, n) VALUES (who, st, delta)
	ON CONFLICT (owner, status) DO UPDATE SET n = quantum_job_counts.n + delta;
$$;

-- A move updates its two counts in the order of the statuses' names, the
-- same order in every transaction, so that moves never deadlock.
CREATE FUNCTION quantum_job_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		PERFORM quantum_job_count(NEW.owner, NEW.status, 1);
	ELSIF TG_OP = 'DELETE' THEN
		PERFORM quantum_job_count(OLD.owner, OLD.status, -1);
	ELSIF NEW.status <> OLD.status THEN
		IF OLD.status < NEW.status THEN
			PERFORM quantum_job_count(OLD.owner, OLD.status, -1);
			PERFORM quantum_job_count(NEW.owner, NEW.status, 1);
		ELSE
			PERFORM quantum_job_count(NEW.owner, NEW.status, 1);
			PERFORM quantum_job_count(OLD.owner, OLD.status, -1);
		END IF;
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER quantum_job_counted AFTER INSERT OR DELETE OR UPDATE OF status ON quantum_jobs
	FOR EACH ROW EXECUTE FUNCTION quantum_job_counted();

CREATE TABLE quantum_programs (
	qrn    text COLLATE "C" PRIMARY KEY REFERENCES quantum_jobs (qrn) ON DELETE CASCADE,
	format text NOT NULL,
	data   text NOT NULL
);

CREATE TABLE quantum_results (
	qrn    text COLLATE "C" PRIMARY KEY REFERENCES quantum_jobs (qrn) ON DELETE CASCADE,
	counts json NOT NULL
);

-- Every new job and every change of status is announced to the nodes
-- listening on quantum_job_changes, when its transaction commits.
CREATE FUNCTION quantum_job_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
		PERFORM pg_notify('quantum_job_changes', json_build_object(
			'qrn', NEW.qrn, 'device', NEW.device_qrn, 'owner', NEW.owner, 'status', NEW.status)::text);
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER quantum_job_changed AFTER INSERT OR UPDATE OF status ON quantum_jobs
	FOR EACH ROW EXECUTE FUNCTION quantum_job_changed();
