package sqlite

// applicationID marks a SQLite file as a memgate store ("MGAT"), so that
// opening some other program's database fails clearly instead of adding
// tables to it.
const applicationID = 0x4d474154

// migrations[i] upgrades the schema from version i to i+1. A released
// migration is never edited; changes are new entries.
var migrations = []string{
	// v1: memories with their trust metadata, relations for lineage and
	// supersession, and tombstones for forgotten memories.
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE memories (
	seq              INTEGER PRIMARY KEY,
	id               TEXT NOT NULL UNIQUE,
	user_id          TEXT NOT NULL,
	workspace_id     TEXT,
	project_id       TEXT,
	domain           TEXT,
	text             TEXT NOT NULL,
	source_authority TEXT,
	kind             TEXT,
	classification   TEXT,
	created_at       INTEGER NOT NULL,
	expires_at       INTEGER,
	revoked          INTEGER NOT NULL DEFAULT 0,
	revoked_at       INTEGER,
	revoked_reason   TEXT,
	audience         TEXT,
	embedding        BLOB NOT NULL
) STRICT;
CREATE INDEX memories_by_user ON memories(user_id, seq);

-- memory_id was derived from source_id. A source may be a forgotten memory:
-- the row stays, so descendants of a forgotten or revoked source are still
-- known.
CREATE TABLE lineage (
	memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
	source_id TEXT NOT NULL,
	PRIMARY KEY (memory_id, source_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX lineage_by_source ON lineage(source_id);

-- memory_id replaces superseded_id.
CREATE TABLE supersessions (
	memory_id     TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
	superseded_id TEXT NOT NULL,
	PRIMARY KEY (memory_id, superseded_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX supersessions_by_old ON supersessions(superseded_id);

CREATE TABLE tombstones (
	id           TEXT PRIMARY KEY,
	user_id      TEXT NOT NULL,
	forgotten_at INTEGER NOT NULL,
	reason       TEXT
) STRICT;
`,
	// v2: the audit trail (append-only, enforced by triggers), the
	// quarantine queue, and reviewers' verdicts as labelled examples.
	`
CREATE TABLE audit_events (
	seq          INTEGER PRIMARY KEY,
	kind         TEXT NOT NULL,
	at           INTEGER NOT NULL,
	task_id      TEXT,
	user_id      TEXT,
	principal_id TEXT,
	search_id    INTEGER,
	memory_id    TEXT,
	decision     TEXT,
	payload      TEXT NOT NULL
) STRICT;
CREATE INDEX audit_by_task ON audit_events(task_id, seq);
CREATE INDEX audit_by_user ON audit_events(user_id, seq);
CREATE INDEX audit_by_memory ON audit_events(memory_id, seq);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit_events BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit_events BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END;

CREATE TABLE quarantine (
	seq        INTEGER PRIMARY KEY,
	memory_id  TEXT NOT NULL,
	user_id    TEXT NOT NULL,
	task_id    TEXT,
	search_id  INTEGER,
	at         INTEGER NOT NULL,
	query      TEXT,
	context    TEXT NOT NULL,
	reasons    TEXT NOT NULL,
	status     TEXT NOT NULL DEFAULT 'pending',
	reviewer   TEXT,
	verdict_at INTEGER,
	note       TEXT
) STRICT;
CREATE INDEX quarantine_by_status ON quarantine(status, seq);

CREATE TABLE examples (
	seq       INTEGER PRIMARY KEY,
	memory_id TEXT NOT NULL,
	query     TEXT,
	context   TEXT NOT NULL,
	label     TEXT NOT NULL,
	source    TEXT NOT NULL,
	at        INTEGER NOT NULL
) STRICT;
`,
	// v3: find a user's revoked memories without scanning their others:
	// their values taint tool-call arguments in every task.
	`CREATE INDEX memories_revoked_by_user ON memories(user_id) WHERE revoked = 1;`,
	// v4: stats counts by authority and expired memories from these small
	// indexes instead of reading every row (and its vector) of the table.
	`
CREATE INDEX memories_by_authority ON memories(source_authority);
CREATE INDEX memories_expiring ON memories(expires_at) WHERE expires_at IS NOT NULL;
`,
	// v5: the API keys of memgate serve, stored as hashes of their secrets.
	`
CREATE TABLE api_keys (
	seq        INTEGER PRIMARY KEY,
	id         TEXT NOT NULL UNIQUE,
	hash       BLOB NOT NULL,
	principal  TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
) STRICT;
`,
	// v6: a memory's sequence number (a List cursor) is never given twice.
	// Forgetting deletes the row; this floor keeps the greatest number
	// deleted, and inserts number past it.
	`
CREATE TRIGGER memories_seq_floor AFTER DELETE ON memories
BEGIN
	INSERT INTO meta(key, value) VALUES ('memories_seq_floor', CAST(OLD.seq AS TEXT))
		ON CONFLICT(key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), OLD.seq) AS TEXT);
END;
`,
	// v7: a generation number that every change of what Get and Ancestors
	// read (memories, lineage, supersessions, tombstones) replaces with a
	// random one, in the changing transaction, whichever process or tool
	// makes it. A store keeps the records it decoded while the number stays
	// the same (see recordCache). Random rather than counted: a restore of
	// an older copy in place (SQLite's backup API fires no trigger) would
	// move a count back, and later writes could bring it to a number a
	// cache holds records of.
	`
CREATE TABLE generation (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
) STRICT;
INSERT INTO generation (id, n) VALUES (1, 0);
CREATE TRIGGER memories_generation_insert AFTER INSERT ON memories BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER memories_generation_update AFTER UPDATE ON memories BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER memories_generation_delete AFTER DELETE ON memories BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER lineage_generation_insert AFTER INSERT ON lineage BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER lineage_generation_update AFTER UPDATE ON lineage BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER lineage_generation_delete AFTER DELETE ON lineage BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER supersessions_generation_insert AFTER INSERT ON supersessions BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER supersessions_generation_update AFTER UPDATE ON supersessions BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER supersessions_generation_delete AFTER DELETE ON supersessions BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER tombstones_generation_insert AFTER INSERT ON tombstones BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER tombstones_generation_update AFTER UPDATE ON tombstones BEGIN UPDATE generation SET n = random(); END;
CREATE TRIGGER tombstones_generation_delete AFTER DELETE ON tombstones BEGIN UPDATE generation SET n = random(); END;
`,
	// v8: audit events are found by memory through a table the audit
	// writer fills after the events are acknowledged, in memory order and
	// while no admission waits, instead of an index every admission
	// updated in its own transaction: an admission's fifty decisions
	// landed on fifty leaves spread over the file. meta's
	// audit_memory_upto is the greatest seq the table covers; events past
	// it are found by scanning them (see memIndexer).
	`
DROP INDEX audit_by_memory;
CREATE TABLE audit_memory_index (
	memory_id TEXT NOT NULL,
	seq       INTEGER NOT NULL,
	PRIMARY KEY (memory_id, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO audit_memory_index (memory_id, seq)
	SELECT memory_id, seq FROM audit_events WHERE memory_id IS NOT NULL ORDER BY memory_id, seq;
INSERT INTO meta (key, value) SELECT 'audit_memory_upto', CAST(coalesce(max(seq), 0) AS TEXT) FROM audit_events;
`,
}
