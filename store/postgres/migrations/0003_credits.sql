-- Version 3: the credit ledger. An account per owner, in micro-credits:
-- its balance (the sum of its entries' amount), what unfinished jobs hold
-- of it (the sum of their held) and how many entries it has; and the
-- entries, numbered 1, 2, 3… per owner. A grant with an idempotency ID is
-- recorded once per owner, on every node: the unique index refuses a
-- second.

CREATE TABLE quantum_credit_accounts (
	owner    text COLLATE "C" PRIMARY KEY,
	balance  bigint NOT NULL,
	reserved bigint NOT NULL,
	entries  bigint NOT NULL
);

CREATE TABLE quantum_credit_entries (
	owner    text COLLATE "C" NOT NULL,
	n        bigint NOT NULL,
	kind     text NOT NULL,
	amount   bigint NOT NULL,
	held     bigint NOT NULL,
	job_qrn  text COLLATE "C",
	grant_id text COLLATE "C",
	note     text NOT NULL,
	at_ns    bigint NOT NULL,
	PRIMARY KEY (owner, n)
);

CREATE UNIQUE INDEX quantum_credit_grants ON quantum_credit_entries (owner, grant_id) WHERE grant_id IS NOT NULL;
