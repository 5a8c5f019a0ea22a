import type { ListMessagesOptions } from './memory-store';
import type { AsOfOptions } from './management-types';
import type { Scope, StoredMessage } from './types';
import { makeSnippet } from '../text/snippet';

/** What a point-in-time listing needs from a store. */
interface TurnLister {
  listMessages(scope: Scope, options: ListMessagesOptions): Promise<StoredMessage[]>;
}

/**
 * Turns with seq <= options.seq as they read when turn `seq` was stored: a turn edited later
 * shows the text it had then (edit_history keeps each replaced text with the time it was
 * replaced), and only the edits made before then. Both adapters answer messagesAsOf with this.
 */
export async function messagesAsOf(
  store: TurnLister,
  scope: Scope,
  options: AsOfOptions,
): Promise<StoredMessage[]> {
  if (options.limit <= 0 || options.seq < 1) return [];
  const [boundary] = await store.listMessages(scope, {
    beforeSeq: options.seq + 1,
    order: 'desc',
    limit: 1,
    includeDeleted: true,
  });
  const turns = await store.listMessages(scope, {
    beforeSeq: options.seq + 1,
    ...(options.afterSeq === undefined ? {} : { afterSeq: options.afterSeq }),
    limit: options.limit,
  });
  if (!boundary) return turns;
  return turns.map((turn) => rewind(turn, boundary.timestamp));
}

/** The turn as it read at `time`: the first text replaced after then was the text at then. */
export function rewind(turn: StoredMessage, time: number): StoredMessage {
  const later = turn.editHistory.findIndex((entry) => entry.timestamp > time);
  if (later === -1) return turn;
  const content = turn.editHistory[later]!.content;
  const raw = typeof turn.raw['content'] === 'string' ? { ...turn.raw, content } : turn.raw;
  const editHistory = turn.editHistory.slice(0, later);
  return {
    ...turn,
    content,
    raw,
    snippet: makeSnippet(content),
    edited: editHistory.length > 0,
    editHistory,
  };
}
