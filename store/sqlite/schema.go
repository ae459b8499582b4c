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
}
