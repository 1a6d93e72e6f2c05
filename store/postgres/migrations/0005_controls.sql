-- Version 5: the controls of the control API (storage.ControlStore), kept
-- here so that every node sharing the database applies them: each
-- device's controls, their version (one row; every change adds one and
-- notifies the job changes' channel with {"controls": version}), and the
-- API keys the control API adds (their SHA-256 only, never a key).

CREATE TABLE quantum_device_controls (
	device         text PRIMARY KEY,
	status         text NOT NULL,
	status_msg     text,
	next_available text,
	avg_queue_time integer,
	latency_ns     bigint NOT NULL DEFAULT 0,
	held           boolean NOT NULL DEFAULT false,
	failures       integer NOT NULL DEFAULT 0,
	fail_message   text NOT NULL DEFAULT ''
);

CREATE TABLE quantum_controls_version (
	one     boolean PRIMARY KEY DEFAULT true CHECK (one),
	version bigint NOT NULL
);
INSERT INTO quantum_controls_version (one, version) VALUES (true, 0);

CREATE TABLE quantum_api_keys (
	hash        bytea PRIMARY KEY,
	user_id     text NOT NULL,
	org_user_id text NOT NULL,
	org_id      text NOT NULL,
	name        text NOT NULL,
	created_ns  bigint NOT NULL
);
CREATE INDEX quantum_api_keys_user ON quantum_api_keys (user_id);
