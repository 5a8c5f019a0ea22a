import type { TurnHead, TurnRole } from '../types';

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
