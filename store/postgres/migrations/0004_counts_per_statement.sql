-- Version 4: the counts of each owner's jobs per status are kept once per
-- statement rather than once per row, and in shards. A statement that
-- moves many jobs (a batch of claims, of ends) changes each count it
-- touches once, at its end, in the order of (owner, status): the same
-- order in every statement, so that statements moving many jobs never
-- deadlock on the counts, and hold them only from their end to their
-- commit. And each connection adds to a shard of its own (its backend's
-- process ID modulo 16), so that the moves of one owner's jobs made by
-- many connections at once do not wait for each other's commits on one
-- row: a count is the sum of its shards (a shard may be below zero).

DROP TRIGGER quantum_job_counted ON quantum_jobs;
DROP FUNCTION quantum_job_counted();
DROP FUNCTION quantum_job_count(text, text, integer);

ALTER TABLE quantum_job_counts ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE quantum_job_counts DROP CONSTRAINT quantum_job_counts_pkey;
ALTER TABLE quantum_job_counts ADD PRIMARY KEY (owner, status, shard);

CREATE FUNCTION quantum_jobs_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO quantum_job_counts (owner, status, shard, n)
		SELECT owner, status, (pg_backend_pid() % 16)::smallint, count(*) FROM new_jobs GROUP BY owner, status ORDER BY owner, status
		ON CONFLICT (owner, status, shard) DO UPDATE SET n = quantum_job_counts.n + excluded.n;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO quantum_job_counts (owner, status, shard, n)
		SELECT owner, status, (pg_backend_pid() % 16)::smallint, -count(*) FROM old_jobs GROUP BY owner, status ORDER BY owner, status
		ON CONFLICT (owner, status, shard) DO UPDATE SET n = quantum_job_counts.n + excluded.n;
	ELSE
		INSERT INTO quantum_job_counts (owner, status, shard, n)
		SELECT owner, status, (pg_backend_pid() % 16)::smallint, sum(d) FROM (
			SELECT o.owner, o.status, -1 AS d FROM old_jobs o JOIN new_jobs n ON n.qrn = o.qrn WHERE n.status <> o.status
			UNION ALL
			SELECT n.owner, n.status, 1 AS d FROM old_jobs o JOIN new_jobs n ON n.qrn = o.qrn WHERE n.status <> o.status
		) moves
		GROUP BY owner, status HAVING sum(d) <> 0 ORDER BY owner, status
		ON CONFLICT (owner, status, shard) DO UPDATE SET n = quantum_job_counts.n + excluded.n;
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER quantum_job_counted AFTER INSERT ON quantum_jobs
	REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION quantum_jobs_counted();
CREATE TRIGGER quantum_job_counted_update AFTER UPDATE ON quantum_jobs
	REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION quantum_jobs_counted();
CREATE TRIGGER quantum_job_counted_delete AFTER DELETE ON quantum_jobs
	REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION quantum_jobs_counted();
