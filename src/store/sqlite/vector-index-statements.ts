import type Database from 'better-sqlite3';
import type { ScopeParams } from './scope-sql';
import { HEAD_COLUMNS } from './turn-heads';

/** A row as the loading statements return it: pk and Float32 BLOB. */
export type PkVectorRow = [pk: number, embedding: Uint8Array];

// `+partition` and `+instance` keep the planner on the rowid: with the scope's indexes it would
// read every turn of the instance to find a handful of rows by pk.
const BY_PK_IN_SCOPE = '+partition = @partition AND +instance = @instance';

/** Statements that load a scope's vectors into its in-memory index and rescore candidates. */
export function prepareVectorIndexStatements(db: Database.Database) {
  return {
    // Deleted rows load too: a restore brings them back without a new vector, and candidates
    // are checked against the table anyway. Turns come newest first, a page at a time (turns
    // have unique seqs; chunks have seq 0).
    vectorPage: db
      .prepare<ScopeParams & { beforeSeq: number; limit: number }, [number, number, Uint8Array]>(
        `SELECT pk, seq, embedding FROM messages INDEXED BY messages_scope_seq
          WHERE partition = @partition AND instance = @instance AND seq > 0 AND seq < @beforeSeq
            AND embedding IS NOT NULL
          ORDER BY seq DESC LIMIT @limit`,
      )
      .raw(),
    chunkVectors: db
      .prepare<ScopeParams, PkVectorRow>(
        `SELECT pk, embedding FROM messages INDEXED BY messages_scope_seq
          WHERE partition = @partition AND instance = @instance AND seq = 0
            AND embedding IS NOT NULL`,
      )
      .raw(),
    // Rows of the scope stored since a pk (by other connections, which the index did not see).
    vectorsAfter: db
      .prepare<ScopeParams & { afterPk: number }, PkVectorRow>(
        `SELECT pk, embedding FROM messages INDEXED BY messages_scope_embedded
          WHERE partition = @partition AND instance = @instance AND pk > @afterPk
            AND embedding IS NOT NULL`,
      )
      .raw(),
    vectorsByPks: db
      .prepare<ScopeParams & { pks: string }, PkVectorRow>(
        `SELECT pk, embedding FROM messages
          WHERE pk IN (SELECT value FROM json_each(@pks)) AND ${BY_PK_IN_SCOPE}
            AND embedding IS NOT NULL`,
      )
      .raw(),
    // The candidates still standing (not deleted, with a vector of the query's length): their
    // heads as one JSON array of [pk, ...head], and their vectors as one BLOB, in the same order
    // (both aggregates step through the same rows). A Buffer per candidate's BLOB cost ~2.5 us
    // to make and collect, more than reading the row: 24 candidates took 65-72 us read one row
    // at a time, 39 us this way (bench/NOTES.md). group_concat copies a BLOB's bytes as they are
    // in a UTF-8 database (schema.ts), and the cast gives them back as a BLOB. The head is what
    // a search's caller ranks on: read here with the vector, it needs no read of its own.
    candidates: db
      .prepare<ScopeParams & { pks: string; bytes: number }, [heads: string, vectors: Uint8Array | null]>(
        `SELECT json_group_array(json_array(pk, ${HEAD_COLUMNS})), CAST(group_concat(embedding, '') AS BLOB)
           FROM messages
          WHERE pk IN (SELECT value FROM json_each(@pks)) AND ${BY_PK_IN_SCOPE}
            AND deleted = 0 AND length(embedding) = @bytes`,
      )
      .raw(),
    // Turns of the scope still waiting for their embedding: the scope's part of the pending rows,
    // which store-wide are thousands under load.
    pendingPks: db
      .prepare<ScopeParams & { upToPk: number }, number>(
        `SELECT pk FROM messages INDEXED BY messages_scope_pending
          WHERE partition = @partition AND instance = @instance AND pk <= @upToPk
            AND embedding IS NULL AND deleted = 0 AND content <> ''`,
      )
      .pluck(),
    // Turns of the scope, from the index alone: how large a scope about to load is.
    turnCount: db
      .prepare<ScopeParams, number>(
        `SELECT count(*) FROM messages INDEXED BY messages_scope_seq
          WHERE partition = @partition AND instance = @instance AND seq > 0`,
      )
      .pluck(),
    lastPk: db.prepare<[], number | null>('SELECT max(pk) FROM messages').pluck(),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
  };
}

/** The statements of prepareVectorIndexStatements. */
export type VectorIndexStatements = ReturnType<typeof prepareVectorIndexStatements>;
