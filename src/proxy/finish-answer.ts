import type { StoredMessage } from '../store/types';
import type { RoundContext } from './chat-pipeline';
import { storeAnswer } from './store-answer';

/** How an answer ended. */
export interface AnswerEnd {
  message: Record<string, unknown>;
  model: string | null;
  finishReason: string | null;
  incomplete: { reason: string } | null;
}

/**
 * Stores the answer under the request's last turn with the memory calls of its rounds as
 * `ToolCall` nodes `CALLED_BY` it, then queues embeddings and synapses. A store failure here is
 * logged, not thrown: the client already has (or is about to get) its answer.
 */
export async function finishAnswer(context: RoundContext, end: AnswerEnd): Promise<StoredMessage | null> {
  const { deps, request, prepared, loop } = context;
  // Without memory (the store was down) there is nothing to store the answer under.
  if (context.memory === 'unavailable') return null;
  let stored: StoredMessage | null = null;
  try {
    stored = await storeAnswer({
      store: deps.store,
      scope: request.scope,
      parent: prepared.leaf,
      message: end.message,
      model: end.model ?? request.body.model,
      requestId: request.requestId,
      incomplete: end.incomplete,
      finishReason: end.finishReason,
    });
    if (stored && loop.executedCalls.length > 0) await deps.store.addToolCalls(request.scope, stored.id, loop.executedCalls);
  } catch (error) {
    deps.logger.error('could not store the answer', { requestId: request.requestId, error: (error as Error).message });
  }
  // Its own tool calls and the memory calls of its rounds are the only ones a request stores.
  const calledTools = Array.isArray(end.message['tool_calls']) || loop.executedCalls.length > 0;
  deps.afterAnswer?.({
    scope: request.scope,
    turns: [...prepared.created, ...(stored ? [stored] : [])],
    nearest: prepared.nearest,
    vectors: prepared.vectors,
    toolCallers: new Set(stored && calledTools ? [stored.id] : []),
    followUps: prepared.afterAnswer,
  });
  return stored;
}
