package postgres

// claimOne is claimJobs for a claim of one job ($7 = 1), which takes
// entry 0 of the turns' plan: the queue served first ($2, $3) if it is
// open, else the queue of owner rank 0 and device rank 0, ranked as
// claimJobs ranks them (owners after the last served, $4, first, by ID;
// an owner's devices after the one it was last served, $5 and $6,
// first); its oldest job not locked by another claim, if its memory
// need is within $8, else that job as short. It answers as claimJobs
// does, with a plan of about half as many nodes: a claim costs about as
// much to start as to run, and a node with one free worker claims one
// job at a time (TestClaimOneAsClaimJobs holds the two to one answer).
const claimOne = "\nWITH RECURSIVE " + queueCTEs + `, pick AS (
	SELECT o.device, o.owner FROM open o
	LEFT JOIN unnest($5::text[], $6::text[]) AS l(owner, device) ON l.owner = o.owner
	ORDER BY (o.device = $2 AND o.owner = $3) DESC, o.owner <= $4::text, o.owner, o.device <= coalesce(l.device, ''), o.device
	LIMIT 1
), locked AS (
	SELECT qrn, greatest(memory_need, 0) AS need FROM quantum_job_states
	WHERE device_qrn = (SELECT device FROM pick) AND owner = (SELECT owner FROM pick) AND status = 'QUEUED'
	ORDER BY queued_ns, qrn LIMIT 1 FOR UPDATE SKIP LOCKED
), short AS (
	SELECT qrn FROM locked WHERE need > $8 AND $7 > 0
), claimed AS (
	UPDATE quantum_job_states j SET status = 'RUNNING', updated_ns = greatest(j.updated_ns, $9), lease_ns = $10, attempts = j.attempts + 1, node = $11,
		record = (left(j.record::text, -1) || CASE WHEN j.updated_ns > $9 THEN $13 ELSE $12 END || ',"Attempts":' || (j.attempts + 1) || '}')::json
	WHERE j.qrn = (SELECT qrn FROM locked WHERE need <= $8 AND $7 > 0)
	RETURNING j.qrn, j.xmin::text::bigint AS xmin, j.record, j.owner, j.device_qrn
), moved AS (
	SELECT qrn, owner, device_qrn, 'QUEUED'::text AS old_status, 'RUNNING'::text AS status FROM claimed
)` + moveEffects + `
SELECT 0::bigint, c.xmin, c.record, r.format, r.data, (SELECT version FROM quantum_controls_version)
FROM claimed c LEFT JOIN quantum_job_requests r ON r.qrn = c.qrn, ` + notifiedCount + `
UNION ALL
SELECT -1, 0::bigint, (SELECT j.record FROM quantum_job_states j WHERE j.qrn = s.qrn), NULL::text, NULL::text, 0::bigint FROM short s`
