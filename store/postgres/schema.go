package postgres

// migrations[i] upgrades the schema from version i to i+1; version v is
// recorded in schema_migrations when migrations[v-1] is applied. A released
// migration is never edited; changes are new entries.
//
// Conventions:
//   - Every table of a user's data carries user_id, and the relations
//     (lineage, supersessions) reference their memory by (user_id, id), so
//     that a link can only join memories of one user. The store-wide tables
//     (meta, api_keys, schema_migrations) hold no user's data.
//   - Ids and labels are text COLLATE "C": compared and sorted by bytes, as
//     Go and SQLite compare strings.
//   - Free text (a memory's text, reasons, queries, notes, audit payloads)
//     is bytea: PostgreSQL's text refuses NUL and invalid UTF-8, which
//     SQLite and Go strings keep, and every string must read back byte for
//     byte.
//   - Times are int8 nanoseconds since 1970 (UTC), as in store/sqlite:
//     timestamptz keeps only microseconds.
//   - Sequence numbers (memories, audit events, review items, examples) are
//     bigserial; the store allocates the audit trail's and the memories'
//     under an advisory lock so that they commit in order (see lock).
var migrations = []string{
	// v1: memories with their trust metadata, relations for lineage and
	// supersession, tombstones for forgotten memories, and the store's
	// settings (the embedder identity).
	`
CREATE TABLE meta (
	key   text COLLATE "C" PRIMARY KEY,
	value text NOT NULL
);

CREATE TABLE memories (
	seq              bigserial PRIMARY KEY,
	id               text COLLATE "C" NOT NULL UNIQUE,
	user_id          text COLLATE "C" NOT NULL,
	workspace_id     text COLLATE "C",
	project_id       text COLLATE "C",
	domain           text COLLATE "C",
	text             bytea NOT NULL,
	source_authority text COLLATE "C",
	kind             text COLLATE "C",
	classification   text COLLATE "C",
	created_at       int8 NOT NULL,
	expires_at       int8,
	revoked          boolean NOT NULL DEFAULT false,
	revoked_at       int8,
	revoked_reason   bytea,
	audience         text[] COLLATE "C",
	embedding        bytea NOT NULL,
	UNIQUE (user_id, id)
);
CREATE INDEX memories_by_user ON memories (user_id, seq);
-- A user's revoked memories taint tool-call arguments in every task.
CREATE INDEX memories_revoked_by_user ON memories (user_id, seq) WHERE revoked;
CREATE INDEX memories_by_authority ON memories (source_authority);
CREATE INDEX memories_expiring ON memories (expires_at) WHERE expires_at IS NOT NULL;

-- memory_id was derived from source_id, a memory of the same user. A source
-- may be a forgotten memory: the row stays, so descendants of a forgotten or
-- revoked source are still known.
CREATE TABLE lineage (
	user_id   text COLLATE "C" NOT NULL,
	memory_id text COLLATE "C" NOT NULL,
	source_id text COLLATE "C" NOT NULL,
	PRIMARY KEY (memory_id, source_id),
	FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
);
CREATE INDEX lineage_by_source ON lineage (source_id);

-- memory_id replaces superseded_id, a memory of the same user.
CREATE TABLE supersessions (
	user_id       text COLLATE "C" NOT NULL,
	memory_id     text COLLATE "C" NOT NULL,
	superseded_id text COLLATE "C" NOT NULL,
	PRIMARY KEY (memory_id, superseded_id),
	FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
);
CREATE INDEX supersessions_by_old ON supersessions (superseded_id);

CREATE TABLE tombstones (
	id           text COLLATE "C" PRIMARY KEY,
	user_id      text COLLATE "C" NOT NULL,
	forgotten_at int8 NOT NULL,
	reason       bytea
);

-- Ids are never reused: a forgotten memory's id stays taken. The store
-- checks it before inserting; this trigger holds whoever writes.
CREATE FUNCTION memgate_id_not_forgotten() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM tombstones t WHERE t.id = NEW.id) THEN
		RAISE EXCEPTION 'id % is already taken by a forgotten memory', NEW.id USING ERRCODE = 'unique_violation';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER memories_id_not_forgotten BEFORE INSERT OR UPDATE OF id ON memories
	FOR EACH ROW EXECUTE FUNCTION memgate_id_not_forgotten();
`,
	// v2: the audit trail (append-only, enforced by triggers), the
	// quarantine queue, and reviewers' verdicts as labelled examples.
	`
CREATE TABLE audit_events (
	seq          bigserial PRIMARY KEY,
	kind         text COLLATE "C" NOT NULL,
	at           int8 NOT NULL,
	task_id      text COLLATE "C",
	user_id      text COLLATE "C",
	principal_id text COLLATE "C",
	search_id    int8,
	memory_id    text COLLATE "C",
	decision     text COLLATE "C",
	payload      bytea NOT NULL
);
CREATE INDEX audit_by_task ON audit_events (task_id, seq);
CREATE INDEX audit_by_user ON audit_events (user_id, seq);
CREATE INDEX audit_by_memory ON audit_events (memory_id, seq);
CREATE INDEX audit_by_search ON audit_events (search_id, seq) WHERE search_id IS NOT NULL;

CREATE FUNCTION memgate_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'the audit trail is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_events
	FOR EACH ROW EXECUTE FUNCTION memgate_audit_append_only();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit_events
	FOR EACH STATEMENT EXECUTE FUNCTION memgate_audit_append_only();

CREATE TABLE quarantine (
	seq        bigserial PRIMARY KEY,
	memory_id  text COLLATE "C" NOT NULL,
	user_id    text COLLATE "C" NOT NULL,
	task_id    text COLLATE "C",
	search_id  int8,
	at         int8 NOT NULL,
	query      bytea,
	context    bytea NOT NULL,
	reasons    bytea NOT NULL,
	status     text COLLATE "C" NOT NULL DEFAULT 'pending',
	reviewer   text COLLATE "C",
	verdict_at int8,
	note       bytea
);
CREATE INDEX quarantine_by_status ON quarantine (status, seq);
CREATE INDEX quarantine_by_user ON quarantine (user_id, seq);

CREATE TABLE examples (
	seq         bigserial PRIMARY KEY,
	user_id     text COLLATE "C" NOT NULL,
	memory_id   text COLLATE "C" NOT NULL,
	review_item int8,
	query       bytea,
	context     bytea NOT NULL,
	label       text COLLATE "C" NOT NULL,
	source      text COLLATE "C" NOT NULL,
	at          int8 NOT NULL
);
`,
	// v3: the API keys of memgate serve, stored as hashes of their secrets.
	`
CREATE TABLE api_keys (
	seq        bigserial PRIMARY KEY,
	id         text COLLATE "C" NOT NULL UNIQUE,
	hash       bytea NOT NULL,
	principal  text NOT NULL,
	created_at int8 NOT NULL,
	revoked_at int8
);
`,
	// v4: the index outbox (see store.Outbox). Statement-level triggers on
	// memories record, in the writing transaction, every memory a statement
	// inserts, updates or deletes, once the meta key index_outbox is set
	// (EnableOutbox). They hold whoever writes: the store, a restore, a
	// hand-written UPDATE. recorded_at is nanoseconds by the server's clock.
	`
CREATE TABLE index_outbox (
	seq         bigserial PRIMARY KEY,
	user_id     text COLLATE "C" NOT NULL,
	memory_id   text COLLATE "C" NOT NULL,
	recorded_at int8 NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000000)::int8
);

CREATE FUNCTION memgate_outbox_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM meta WHERE key = 'index_outbox') THEN
		INSERT INTO index_outbox (user_id, memory_id) SELECT user_id, id FROM changed ORDER BY seq;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER memories_outbox_insert AFTER INSERT ON memories
	REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memgate_outbox_new();
CREATE TRIGGER memories_outbox_update AFTER UPDATE ON memories
	REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memgate_outbox_new();
CREATE TRIGGER memories_outbox_delete AFTER DELETE ON memories
	REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memgate_outbox_new();
`,
}
