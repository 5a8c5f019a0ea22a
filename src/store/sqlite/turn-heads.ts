import type Database from 'better-sqlite3';
import type { ScoredId, Scope, TurnHead, TurnRole } from '../types';
import { IDS, IN_SCOPE, scopeParams, type ByIdsParams } from './scope-sql';

/** The columns of a TurnHead, in the order `headOf` reads them. */
export const HEAD_COLUMNS = 'id, role, seq, timestamp, deleted, is_chunk, chunk_parent_id';

/** The values of HEAD_COLUMNS, in that order. */
export type HeadValues = [
  id: string,
  role: TurnRole,
  seq: number,
  timestamp: number,
  deleted: number,
  isChunk: number,
  chunkParentId: string | null,
];

/** The heads of a scope's turns and chunks by id, as HeadValues. */
export function prepareHeadsByIds(db: Database.Database): Database.Statement<[ByIdsParams], HeadValues> {
  return db
    .prepare<[ByIdsParams], HeadValues>(
      `SELECT ${HEAD_COLUMNS} FROM messages INDEXED BY messages_id WHERE ${IN_SCOPE} AND id IN (${IDS})`,
    )
    .raw(true);
}

/** A row of HEAD_COLUMNS as a TurnHead; `at` is where they start in a longer row. */
export function headOf(values: HeadValues | readonly unknown[], at = 0): TurnHead {
  const head = values as readonly unknown[];
  return {
    id: head[at] as string,
    role: head[at + 1] as TurnRole,
    seq: head[at + 2] as number,
    timestamp: head[at + 3] as number,
    deleted: head[at + 4] !== 0,
    isChunk: head[at + 5] === 1,
    chunkParentId: head[at + 6] as string | null,
  };
}

/**
 * `hits` with the heads of the turns and chunks they name (searches asked `withMessages`): the
 * caller ranks them on that and loads whole turns only for what it shows. A hit whose row is
 * gone, or that names a tool call, goes without.
 */
export function withHeads<T extends ScoredId>(
  statement: Database.Statement<[ByIdsParams], HeadValues>,
  scope: Scope,
  hits: T[],
): T[] {
  if (hits.length === 0) return hits;
  const rows = statement.all({ ...scopeParams(scope), ids: JSON.stringify(hits.map((hit) => hit.id)) });
  const heads = new Map(rows.map((values) => [values[0], headOf(values)]));
  return hits.map((hit) => {
    const head = heads.get(hit.id);
    return head === undefined ? hit : { ...hit, head };
  });
}
