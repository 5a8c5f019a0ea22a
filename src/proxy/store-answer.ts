import { toNewMessage } from '../memory/normalize-message';
import type { MemoryStore } from '../store/memory-store';
import type { Scope, StoredMessage } from '../store/types';
import { countTokens } from '../tokens/count-tokens';

/** An answer to store under the turn it replies to. */
export interface AnswerToStore {
  store: MemoryStore;
  scope: Scope;
  /** The turn the answer replies to (null only when the request had no turns and the instance none). */
  parent: StoredMessage | null;
  /** The assistant message as a client would send it back in history. */
  message: Record<string, unknown>;
  model: string | null;
  requestId: string;
  /** Set when the answer stopped early (upstream failed mid-stream, client went away). */
  incomplete?: { reason: string } | null;
  finishReason?: string | null;
}

/**
 * Stores the assistant answer `REPLIES_TO` (and `RESPONDED_WITH` from) its user turn, and the
 * tool calls it made as `ToolCall` nodes `CALLED_BY` it. Returns the stored answer, or null when
 * there was nothing to store.
 */
export async function storeAnswer(answer: AnswerToStore): Promise<StoredMessage | null> {
  const content = answer.message['content'];
  const toolCalls = answer.message['tool_calls'];
  const empty =
    (content === null || content === undefined || content === '') && !Array.isArray(toolCalls);
  if (empty && !answer.incomplete) return null;
  const metadata: Record<string, unknown> = {};
  if (answer.finishReason) metadata['finish_reason'] = answer.finishReason;
  if (answer.incomplete) {
    metadata['incomplete'] = true;
    metadata['incomplete_reason'] = answer.incomplete.reason;
  }
  const newMessage = toNewMessage(replayable(answer.message), {
    model: answer.model,
    traceId: answer.requestId,
    metadata,
  });
  const [stored] = await answer.store.appendPath(answer.scope, {
    parentId: answer.parent?.id ?? null,
    messages: [newMessage],
  });
  if (!stored) return null;
  if (Array.isArray(toolCalls) && toolCalls.length > 0) {
    await answer.store.addToolCalls(
      answer.scope,
      stored.message.id,
      (toolCalls as { id: string; function: { name: string; arguments: string } }[]).map(
        (call) => ({
          callId: call.id,
          toolName: call.function.name,
          arguments: call.function.arguments,
          result: null,
          tokenCount: countTokens(call.function.arguments),
        }),
      ),
    );
  }
  return stored.message;
}

/** The fields of an answer that a chat request accepts back in history (no annotations, logprobs...). */
function replayable(message: Record<string, unknown>): Record<string, unknown> {
  const content = message['content'];
  const clean: Record<string, unknown> = {
    role: 'assistant',
    content: typeof content === 'string' || Array.isArray(content) ? content : null,
  };
  if (Array.isArray(message['tool_calls']) && message['tool_calls'].length > 0)
    clean['tool_calls'] = message['tool_calls'];
  if (typeof message['refusal'] === 'string') clean['refusal'] = message['refusal'];
  if (typeof message['name'] === 'string') clean['name'] = message['name'];
  return clean;
}
