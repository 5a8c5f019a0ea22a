import type Database from 'better-sqlite3';
import { messageRows } from './message-row';
import { HEAD_COLUMNS, type HeadValues } from './turn-heads';
import {
  IDS,
  IN_SCOPE,
  qualifiedColumns,
  SELECT_MESSAGES_BY_ID,
  type ByIdParams,
  type ScopeParams,
} from './scope-sql';

/** HEAD_COLUMNS of the neighbouring turn `n`. */
const HEAD_NEIGHBOUR_COLUMNS = qualifiedColumns(HEAD_COLUMNS, 'n');

/** Statements of the graph: RESPONDED_WITH and SYNAPSE edges, and neighbour expansion. */
export function prepareGraphStatements(db: Database.Database) {
  return {
    // A user turn answered several times (regenerations) is paired with its latest answer.
    respondedWith: messageRows(
      db.prepare<ByIdParams, unknown[]>(
        `${SELECT_MESSAGES_BY_ID} AND deleted = 0 AND id IN (
         SELECT to_id FROM edges WHERE type = 'RESPONDED_WITH' AND from_id = @id AND ${IN_SCOPE}
         UNION ALL
         SELECT from_id FROM edges WHERE type = 'RESPONDED_WITH' AND to_id = @id AND ${IN_SCOPE})
       ORDER BY seq DESC LIMIT 1`,
      ),
    ),
    insertEdge: db.prepare<
      ScopeParams & {
        type: 'SYNAPSE' | 'RESPONDED_WITH';
        fromId: string;
        toId: string;
        score: number;
      }
    >(
      `INSERT INTO edges (type, partition, instance, from_id, to_id, score)
       VALUES (@type, @partition, @instance, @fromId, @toId, @score)
       ON CONFLICT (from_id, type, to_id) DO NOTHING`,
    ),
    // Both ends must be turns of the scope, so a synapse can never link two scopes.
    upsertSynapse: db.prepare<ScopeParams & { fromId: string; toId: string; score: number }>(
      `INSERT INTO edges (type, partition, instance, from_id, to_id, score)
       SELECT 'SYNAPSE', @partition, @instance, @fromId, @toId, @score
       WHERE EXISTS (SELECT 1 FROM messages WHERE ${IN_SCOPE} AND id = @fromId)
         AND EXISTS (SELECT 1 FROM messages WHERE ${IN_SCOPE} AND id = @toId)
       ON CONFLICT (from_id, type, to_id) DO UPDATE SET score = excluded.score`,
    ),
    synapsesOf: db.prepare<ByIdParams, { fromId: string; toId: string; score: number }>(
      `SELECT e.from_id AS fromId, e.to_id AS toId, e.score AS score
         FROM edges e JOIN messages other ON other.id = e.to_id
        WHERE e.type = 'SYNAPSE' AND e.from_id = @id AND e.partition = @partition
          AND e.instance = @instance AND other.deleted = 0
       UNION ALL
       SELECT e.from_id, e.to_id, e.score
         FROM edges e JOIN messages other ON other.id = e.from_id
        WHERE e.type = 'SYNAPSE' AND e.to_id = @id AND e.partition = @partition
          AND e.instance = @instance AND other.deleted = 0
       ORDER BY score DESC, fromId, toId`,
    ),

    // Every link of the given turns to a live turn of the scope; the store keeps each
    // neighbour's strongest. Grouping and ordering here took half the statement's time, for a
    // few dozen rows that JavaScript sorts in microseconds.
    // Each link with the head of the turn it leads to (turn-heads.ts), as arrays.
    neighbourLinks: db.prepare<
      ScopeParams & {
        ids: string;
        respondedWithScore: number;
        repliesToScore: number;
      },
      [fromId: string, via: 'SYNAPSE' | 'RESPONDED_WITH' | 'REPLIES_TO', score: number, ...head: HeadValues]
    >(
      `WITH given (id) AS (${IDS}),
       linked (id, from_id, via, score) AS (
         SELECT to_id, from_id, type,
                CASE type WHEN 'SYNAPSE' THEN score ELSE @respondedWithScore END
           FROM edges WHERE from_id IN (SELECT id FROM given) AND ${IN_SCOPE}
         UNION ALL
         SELECT from_id, to_id, type,
                CASE type WHEN 'SYNAPSE' THEN score ELSE @respondedWithScore END
           FROM edges WHERE to_id IN (SELECT id FROM given) AND ${IN_SCOPE}
         UNION ALL
         SELECT parent_id, id, 'REPLIES_TO', @repliesToScore FROM messages INDEXED BY messages_id
          WHERE ${IN_SCOPE} AND id IN (SELECT id FROM given) AND parent_id IS NOT NULL
         UNION ALL
         SELECT id, parent_id, 'REPLIES_TO', @repliesToScore FROM messages
          WHERE ${IN_SCOPE} AND parent_id IN (SELECT id FROM given) AND is_chunk = 0)
       SELECT linked.from_id, linked.via, linked.score, ${HEAD_NEIGHBOUR_COLUMNS}
         FROM linked JOIN messages n INDEXED BY messages_id ON n.id = linked.id
        WHERE n.partition = @partition AND n.instance = @instance AND n.deleted = 0
          AND linked.id NOT IN (SELECT id FROM given)`,
    ).raw(true),
  };
}
