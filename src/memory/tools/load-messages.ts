import type { StoredMessage } from '../../store/types';
import type { MemoryToolContext } from './tool-handler';
import { ToolError } from './tool-error';

/**
 * Loads turns or chunks by id in the order asked, leaving out unknown and deleted ones, and
 * chunks whose turn was deleted: a deleted turn must not come back through its chunks.
 */
export async function loadMessages(
  context: MemoryToolContext,
  ids: string[],
): Promise<StoredMessage[]> {
  const { store, scope } = context;
  const found = (await store.getMessages(scope, [...new Set(ids)])).filter(
    (message) => !message.deleted,
  );
  const parentIds = [
    ...new Set(
      found.flatMap((message) =>
        message.isChunk && message.chunkParentId ? [message.chunkParentId] : [],
      ),
    ),
  ];
  const liveParents = new Set(
    (await store.getMessages(scope, parentIds))
      .filter((parent) => !parent.deleted)
      .map((parent) => parent.id),
  );
  const byId = new Map(
    found
      .filter((message) => !message.isChunk || liveParents.has(message.chunkParentId ?? ''))
      .map((message) => [message.id, message]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Loads one turn or chunk, or throws a ToolError the model can act on when there is none. */
export async function requireMessage(
  context: MemoryToolContext,
  id: string,
): Promise<StoredMessage> {
  const [message] = await loadMessages(context, [id]);
  if (!message) throw new ToolError(unknownMessage(id));
  return message;
}

/** The error text for an id that names no stored message. */
export function unknownMessage(id: string): string {
  return `no stored message has id ${JSON.stringify(id)}; use an id from the memory index or from another memory tool's result (search with search_and_retrieve to find one)`;
}
