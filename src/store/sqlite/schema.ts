import type Database from 'better-sqlite3';
import { INSTANCE_STATES_SCHEMA } from './admin-statements';
import { IDEMPOTENCY_SCHEMA } from './idempotency-table';
import { MAINTENANCE_SCHEMA } from './maintenance-statements';

/**
 * The schema version this code writes, kept in `PRAGMA user_version`. 2 added the named
 * indexes statements pin with INDEXED BY; the DDL is idempotent, so running it upgrades a 1.
 * 3 gave the full-text index each turn's scope (see SCOPE_TOKEN); upgrading rebuilds it.
 * 4 added messages_scope_pk and messages_scope_pending; 5 made the first partial, as
 * messages_scope_embedded, since the planner read whole instances through it (the DDL creates
 * both on upgrade). 6 added summary_epochs. 7 creates the idempotency, instance-state and
 * background-job tables here; they used to be created by each connection on first use, and
 * DDL one process runs while another loads the schema fails the other's full-text table
 * ("vtable constructor failed"), so no DDL may run outside a migration. 8 indexes turns for
 * full text in batches (full-text-queue.ts): a turn's insert only queues its pk. 9 added the
 * turn epoch (turn_changes) that a process's cache of turns checks (turn-cache.ts). 10 dropped
 * the trigger that queued each inserted turn: the statements that insert turns queue them.
 */
export const SCHEMA_VERSION = 10;

/**
 * SQL of the word the full-text index stores in the `scope` column of the turn `row` names:
 * the hex of its partition and instance. A query ANDs it, so FTS5 ranks the turns of one
 * instance instead of every match in the store and dropping the others afterwards
 * (full-text-search.ts builds the same word).
 */
export const scopeTokenSql = (row: string) => `'s' || hex(${row}.partition) || 'i' || hex(${row}.instance)`;

// Column order matters: SQLite reads a row front to back, so the small columns come first,
// the embedding next (a vector scan stops there) and the unbounded content and raw JSON last.
// `pk` is an explicit INTEGER PRIMARY KEY because the external-content FTS tables point at it
// and an implicit rowid may change on VACUUM.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  pk INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  seq INTEGER NOT NULL,
  timestamp INTEGER NOT NULL,
  token_count INTEGER NOT NULL,
  branch_tokens INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  parent_id TEXT,
  model TEXT,
  trace_id TEXT,
  edited INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0,
  is_chunk INTEGER NOT NULL DEFAULT 0,
  chunk_index INTEGER,
  chunk_parent_id TEXT,
  snippet TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  edit_history TEXT NOT NULL DEFAULT '[]',
  embedding BLOB,
  content TEXT NOT NULL,
  raw TEXT NOT NULL
) STRICT;

-- Indexes that statements name with INDEXED BY: without statistics SQLite prefers an index
-- that yields seq order over the selective one and would scan the whole instance.
CREATE UNIQUE INDEX IF NOT EXISTS messages_id ON messages (id);
CREATE INDEX IF NOT EXISTS messages_scope_seq ON messages (partition, instance, seq);
CREATE INDEX IF NOT EXISTS messages_scope_hash ON messages (partition, instance, content_hash);
-- Serves both child listing (prefix) and the dedupe lookup of appendPath, even for the many
-- roots (parent_id NULL) of a long-lived instance.
CREATE INDEX IF NOT EXISTS messages_scope_parent
  ON messages (partition, instance, parent_id, content_hash);
CREATE INDEX IF NOT EXISTS messages_scope_time ON messages (partition, instance, timestamp);
CREATE INDEX IF NOT EXISTS messages_chunk_parent
  ON messages (chunk_parent_id, chunk_index) WHERE chunk_parent_id IS NOT NULL;
-- Keeps the startup sweep cheap once nearly everything has its embedding.
CREATE INDEX IF NOT EXISTS messages_pending_embedding
  ON messages (pk) WHERE embedding IS NULL AND deleted = 0 AND content <> '';
-- A vector index catching up on other processes' writes reads one scope's rows: the vectors
-- stored since a pk (an index ends with the rowid, so these are in pk order within a scope),
-- and the rows still waiting for their embedding, which under load are thousands store-wide.
-- Both are partial, so no statement without their conditions reads an instance through them.
CREATE INDEX IF NOT EXISTS messages_scope_embedded
  ON messages (partition, instance) WHERE embedding IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_scope_pending
  ON messages (partition, instance) WHERE embedding IS NULL AND deleted = 0 AND content <> '';

CREATE TABLE IF NOT EXISTS edges (
  pk INTEGER PRIMARY KEY,
  type TEXT NOT NULL CHECK (type IN ('SYNAPSE', 'RESPONDED_WITH')),
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  score REAL NOT NULL,
  UNIQUE (from_id, type, to_id)
) STRICT;

CREATE INDEX IF NOT EXISTS edges_to ON edges (to_id, type);

CREATE TABLE IF NOT EXISTS tool_calls (
  pk INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  message_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  timestamp INTEGER NOT NULL,
  token_count INTEGER NOT NULL,
  duration_ms INTEGER,
  embedding BLOB,
  arguments TEXT NOT NULL,
  result TEXT
) STRICT;

CREATE UNIQUE INDEX IF NOT EXISTS tool_calls_id ON tool_calls (id);
-- One call id per message: what makes addToolCalls idempotent.
CREATE UNIQUE INDEX IF NOT EXISTS tool_calls_message_call ON tool_calls (message_id, call_id);
CREATE INDEX IF NOT EXISTS tool_calls_scope ON tool_calls (partition, instance);
CREATE INDEX IF NOT EXISTS tool_calls_pending_embedding
  ON tool_calls (pk) WHERE embedding IS NULL;

CREATE TABLE IF NOT EXISTS instance_counters (
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  PRIMARY KEY (partition, instance)
) STRICT, WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS core_memory (
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  name TEXT NOT NULL,
  content TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (partition, instance, name)
) STRICT;

-- Moves on with every change that drops an instance's summaries: a summary is stored only
-- while the epoch read before its turns is still current.
CREATE TABLE IF NOT EXISTS summary_epochs (
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  PRIMARY KEY (partition, instance)
) STRICT, WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS summaries (
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  boundary_id TEXT NOT NULL,
  content TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  turns INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (partition, instance, boundary_id)
) STRICT;

-- Moves whenever a stored turn changes or goes (an insert or a vector leaves it alone): a
-- process caching turns (turn-cache.ts) drops them all when it sees the epoch move.
CREATE TABLE IF NOT EXISTS turn_changes (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL
) STRICT;
INSERT OR IGNORE INTO turn_changes (id, epoch) VALUES (1, 0);
CREATE TRIGGER IF NOT EXISTS messages_changed
  AFTER UPDATE OF id, partition, instance, role, seq, timestamp, token_count, branch_tokens,
    content_hash, parent_id, model, trace_id, edited, deleted, is_chunk, chunk_index,
    chunk_parent_id, snippet, metadata, edit_history, content, raw ON messages BEGIN
  UPDATE turn_changes SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER IF NOT EXISTS messages_removed AFTER DELETE ON messages BEGIN
  UPDATE turn_changes SET epoch = epoch + 1 WHERE id = 1;
END;

CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5 (
  content,
  scope,
  content = 'messages',
  content_rowid = 'pk',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Turns are indexed for full text in batches, not one by one as they are stored: FTS5 writes a
-- segment at every commit, and a turn indexed in its own transaction cost ~3x one indexed with
-- a hundred others (bench/NOTES.md). The store queues an inserted turn's pk here in the same
-- transaction (no trigger: an insert that fires one is a statement of several writes, which
-- SQLite journals page by page, ~15% of a bulk load's time); FullTextQueue moves the
-- queued turns into messages_fts. A turn still queued is not in the index, so deleting or
-- editing it leaves the index alone (the batch reads its row as it is then).
CREATE TABLE IF NOT EXISTS messages_fts_queue (pk INTEGER PRIMARY KEY) STRICT;
CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, content, scope)
    SELECT 'delete', old.pk, old.content, ${scopeTokenSql('old')}
     WHERE NOT EXISTS (SELECT 1 FROM messages_fts_queue WHERE pk = old.pk);
  DELETE FROM messages_fts_queue WHERE pk = old.pk;
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE OF content ON messages
  WHEN NOT EXISTS (SELECT 1 FROM messages_fts_queue WHERE pk = old.pk) BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, content, scope)
    VALUES ('delete', old.pk, old.content, ${scopeTokenSql('old')});
  INSERT INTO messages_fts (rowid, content, scope) VALUES (new.pk, new.content, ${scopeTokenSql('new')});
END;

CREATE VIRTUAL TABLE IF NOT EXISTS tool_calls_fts USING fts5 (
  tool_name,
  arguments,
  result,
  content = 'tool_calls',
  content_rowid = 'pk',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER IF NOT EXISTS tool_calls_fts_insert AFTER INSERT ON tool_calls BEGIN
  INSERT INTO tool_calls_fts (rowid, tool_name, arguments, result)
    VALUES (new.pk, new.tool_name, new.arguments, new.result);
END;
CREATE TRIGGER IF NOT EXISTS tool_calls_fts_delete AFTER DELETE ON tool_calls BEGIN
  INSERT INTO tool_calls_fts (tool_calls_fts, rowid, tool_name, arguments, result)
    VALUES ('delete', old.pk, old.tool_name, old.arguments, old.result);
END;
CREATE TRIGGER IF NOT EXISTS tool_calls_fts_update
  AFTER UPDATE OF tool_name, arguments, result ON tool_calls BEGIN
  INSERT INTO tool_calls_fts (tool_calls_fts, rowid, tool_name, arguments, result)
    VALUES ('delete', old.pk, old.tool_name, old.arguments, old.result);
  INSERT INTO tool_calls_fts (rowid, tool_name, arguments, result)
    VALUES (new.pk, new.tool_name, new.arguments, new.result);
END;
`;

/** Sets the connection pragmas every process sharing the file must agree on. */
export function configureConnection(db: Database.Database): void {
  // SQLite's default, stated because the vector rescoring relies on it: text in a UTF-8
  // database holds a BLOB's bytes unchanged (vector-index-statements.ts). It takes effect only
  // when the file is created, and is ignored afterwards.
  db.pragma("encoding = 'UTF-8'");
  // WAL lets readers in other proxy processes run while one writes.
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across application crashes in WAL mode; only a power loss can drop
  // the last transactions, which the embedded default can accept.
  db.pragma('synchronous = NORMAL');
  // Integrity is enforced by scoped checks in the store (a foreign key cannot say "same
  // partition and instance") and SQLite would need extra single-column indexes to check them.
  db.pragma('foreign_keys = OFF');
  // 64 MiB of page cache (default 2 MiB): past ~10^5 turns, retrieval reads rows, index and
  // full-text pages scattered over the file, and each miss is a read from the OS.
  db.pragma('cache_size = -65536');
}

/** Creates or upgrades the schema; safe when several processes start at once. */
export function migrateSchema(db: Database.Database): void {
  if (readVersion(db) === SCHEMA_VERSION) return;
  db.transaction(() => {
    // Re-read under the write lock: another process may have migrated meanwhile.
    const version = readVersion(db);
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `memory.sqlite has schema version ${version}, newer than this proxy understands (${SCHEMA_VERSION})`,
      );
    }
    if (version === SCHEMA_VERSION) return;
    if (version < 3) db.exec(DROP_UNSCOPED_FULL_TEXT);
    // Every turn stored until now is indexed; the triggers that queue the next ones replace
    // those that indexed each turn as it was stored.
    if (version < 8) db.exec(DROP_FULL_TEXT_TRIGGERS);
    // The statements that insert turns queue them themselves (statements.ts, queueFullText).
    db.exec('DROP TRIGGER IF EXISTS messages_fts_insert');
    db.exec('DROP INDEX IF EXISTS messages_scope_pk');
    db.exec(SCHEMA);
    db.exec(INSTANCE_STATES_SCHEMA);
    db.exec(IDEMPOTENCY_SCHEMA);
    db.exec(MAINTENANCE_SCHEMA);
    // Topics tables made before summaries remembered their quotes lack the column.
    const topicColumns = db.pragma('table_info(topics)') as { name: string }[];
    if (!topicColumns.some((column) => column.name === 'highlight_ids')) {
      db.exec(`ALTER TABLE topics ADD COLUMN highlight_ids TEXT NOT NULL DEFAULT '[]'`);
    }
    // Turns stored before version 3 go into the rebuilt full-text index (none in a new file).
    if (version < 3) db.exec(INDEX_STORED_TURNS);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

const DROP_FULL_TEXT_TRIGGERS = `
DROP TRIGGER IF EXISTS messages_fts_insert;
DROP TRIGGER IF EXISTS messages_fts_delete;
DROP TRIGGER IF EXISTS messages_fts_update;
`;

const DROP_UNSCOPED_FULL_TEXT = `${DROP_FULL_TEXT_TRIGGERS}
DROP TABLE IF EXISTS messages_fts;
`;

const INDEX_STORED_TURNS = `INSERT INTO messages_fts (rowid, content, scope)
  SELECT pk, content, ${scopeTokenSql('messages')} FROM messages`;

function readVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
