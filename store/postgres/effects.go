package postgres

// moveEffects are the common table expressions that every statement
// writing jobs appends after its own, which must include moved (qrn,
// owner, device_qrn, old_status, status): the jobs it inserted (old_status
// NULL) or wrote. For those whose status changed they keep the owners'
// counts per status and notify the nodes, in the statement itself rather
// than in a trigger, which would copy every written row into transition
// tables and run its own queries, planned again on each call.
//
// counted adds to each (owner, status) count the statement changed, in
// (owner, status) order, on the shard of the connection's backend
// (pg_backend_pid() % 16, as migration 4 made them): its input is an
// aggregate of all of moved, so the job rows are locked before the first
// count, the order that keeps statements moving many jobs from
// deadlocking.
//
// following says whether some node follows every change (follow.go; its
// key is followClass's, one of followKeys): only read, so only locked,
// when the statement moved a job to a status other than QUEUED or
// CANCELLING, which are sent to every node anyway.
//
// notified sends the changes, each a JSON array [qrn, device, owner,
// status], on quantum_job_changes at commit in as few notifications as
// PostgreSQL's bound on a payload (under 8,000 bytes) allows: changes are
// grouped by their running length in 3,900-byte steps, so that no group
// passes 7,800 bytes; a change longer than 3,800 bytes (identifiers near
// their bound of 1 KiB, escaped) goes as null, which a listener takes for
// "changes may have been missed" (parseChanges). The statement's last
// SELECT must read notified (notifiedCount) for it to run: unlike a
// statement that writes, a SELECT in WITH runs only when read.
const moveEffects = `, counted AS (
	INSERT INTO quantum_job_counts (owner, status, shard, n)
	SELECT owner, status, (pg_backend_pid() % 16)::smallint, sum(d) FROM (
		SELECT owner, old_status AS status, -1 AS d FROM moved WHERE old_status <> status
		UNION ALL
		SELECT owner, status, 1 FROM moved WHERE old_status IS DISTINCT FROM status
	) m
	GROUP BY owner, status HAVING sum(d) <> 0 ORDER BY owner, status
	ON CONFLICT (owner, status, shard) DO UPDATE SET n = quantum_job_counts.n + excluded.n
), following AS (
	SELECT NOT pg_try_advisory_xact_lock(1903649140, pg_backend_pid() % 64) AS every
), notified AS (
	SELECT pg_notify('quantum_job_changes', '{"jobs":[' || string_agg(c, ',' ORDER BY qrn) || ']}')
	FROM (
		SELECT qrn, c, (sum(octet_length(c) + 1) OVER (ORDER BY qrn) - 1) / 3900 AS chunk
		FROM (
			SELECT qrn, CASE WHEN octet_length(c) > 3800 THEN 'null' ELSE c END AS c
			FROM (SELECT qrn, json_build_array(qrn, device_qrn, owner, status)::text AS c
				FROM moved WHERE old_status IS DISTINCT FROM status
				AND (status IN ('QUEUED', 'CANCELLING') OR (SELECT every FROM following))) changes
		) capped
	) grouped
	GROUP BY chunk
)`

// notifiedCount is what a statement with moveEffects reads of notified,
// in its last SELECT, so that the notifications are sent.
const notifiedCount = `(SELECT count(*) FROM notified) AS notifications`
