import type { StoredMessage } from '../../store/types';
import type { ToolOutput } from './fit-result';
import { loadMessages, requireMessage } from './load-messages';
import { messageItem } from './message-item';
import { toMessageJson, withPreview } from './to-message-json';
import type { MemoryToolContext, ToolHandler } from './tool-handler';

/** get_message_by_id, get_messages_by_ids, get_message_with_chunks and get_conversation_thread. */
export const messageTools: Record<string, ToolHandler> = {
  get_message_by_id: async (context, args) => {
    const message = await requireMessage(context, args['message_id'] as string);
    const fields: Record<string, unknown> = {};
    // A message too long for this call is cut; its chunks let the model read the rest.
    if (message.tokenCount > context.maxResultTokens && !message.isChunk) {
      const chunks = await context.store.getChunks(context.scope, message.id);
      if (chunks.length > 0)
        fields['hint'] =
          `this message has ${chunks.length} chunks; read it in parts with get_message_with_chunks`;
    }
    return {
      fields,
      lists: [{ key: 'message', single: true, pageWith: 'get_message_with_chunks' }],
      items: [messageItem(message, 'message')],
    };
  },

  get_messages_by_ids: async (context, args) => {
    const ids = args['message_ids'] as string[];
    const messages = await loadMessages(context, ids);
    const found = new Set(messages.map((message) => message.id));
    return {
      fields: { not_found: [...new Set(ids.filter((id) => !found.has(id)))] },
      lists: [{ key: 'messages', pageWith: 'get_messages_by_ids' }],
      items: messages.map((message) => messageItem(message, 'messages')),
    };
  },

  get_message_with_chunks: async (context, args) => {
    const turn = await turnOf(context, await requireMessage(context, args['message_id'] as string));
    const chunks = await context.store.getChunks(context.scope, turn.id);
    const lists = [
      { key: 'message', single: true, pageWith: 'get_message_by_id' },
      { key: 'chunks', pageWith: 'get_messages_by_ids' },
    ];
    if (chunks.length === 0)
      return { fields: { chunk_count: 0 }, lists, items: [messageItem(turn, 'message')] };
    // The chunks hold the full text, so the turn itself is shown as a preview, not twice.
    const preview = withPreview(toMessageJson(turn), context.snippetLength);
    return {
      fields: { chunk_count: chunks.length },
      lists,
      items: [
        { id: turn.id, list: 'message', value: preview },
        ...chunks.map((chunk) => messageItem(chunk, 'chunks')),
      ],
    };
  },

  get_conversation_thread: async (context, args) => {
    const turn = await turnOf(context, await requireMessage(context, args['message_id'] as string));
    const depth = (args['depth'] as number | undefined) ?? 10;
    const [branch, replies] = await Promise.all([
      context.store.getBranch(context.scope, turn.id, { limit: depth }),
      context.store.getChildren(context.scope, turn.id),
    ]);
    const output: ToolOutput = {
      fields: { message_id: turn.id },
      lists: [
        { key: 'thread', pageWith: 'get_messages_by_ids' },
        { key: 'replies', pageWith: 'get_messages_by_ids' },
      ],
      // Kept nearest first, shown oldest first: a cut thread loses its oldest turns.
      items: [
        ...branch.map((message, index) => messageItem(message, 'thread', branch.length - index)),
        ...replies.filter((reply) => !reply.deleted).map((reply) => messageItem(reply, 'replies')),
      ],
    };
    return output;
  },
};

/** The turn a chunk belongs to (a turn is its own turn). */
async function turnOf(context: MemoryToolContext, message: StoredMessage): Promise<StoredMessage> {
  if (!message.isChunk || !message.chunkParentId) return message;
  return requireMessage(context, message.chunkParentId);
}
