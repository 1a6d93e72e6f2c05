-- Version 2: idempotency keys. A job created with a key holds it for its
-- owner (NULL: no key, or a key that expired and was taken by a newer
-- job); the unique index makes one of two concurrent creates with one key
-- fail, on any node.

ALTER TABLE quantum_jobs ADD COLUMN idem_key text COLLATE "C";

CREATE UNIQUE INDEX quantum_jobs_idem_key ON quantum_jobs (owner, idem_key) WHERE idem_key IS NOT NULL;
