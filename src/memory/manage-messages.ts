import type { MemoryStore } from '../store/memory-store';
import type { NewToolCall, Scope, StoredMessage } from '../store/types';
import { countTokens } from '../tokens/count-tokens';
import { ingestTurns } from './ingest';
import { messageText, toNewMessage } from './normalize-message';

/** What writing memory outside a chat call needs: the store, and where finished turns go to be embedded and linked. */
export interface MemoryEditor {
  store: MemoryStore;
  /** Queues embedding, chunking and synapses of turns (the app's background queue + embedAndLink). */
  afterWrite: (scope: Scope, turns: StoredMessage[]) => void;
  /**
   * Queues finishing what restored turns lack: a turn deleted before the background embedded it
   * was skipped then, and would otherwise wait for the next start to be embedded and linked.
   */
  afterRestore: () => void;
}

/** What an append stored. */
export interface AppendOutcome {
  /** The last turn of the batch, stored now or before. */
  leaf: StoredMessage | null;
  /** Turns stored by this call, oldest first (none when every turn was stored before). */
  created: StoredMessage[];
}

/**
 * Appends client-shaped messages (system messages removed by the caller) as a chat request's
 * turns would be stored: normalized by normalize-message, then matched against the stored tree
 * by ingest (a retry stores nothing twice), or appended under `parentId` when one is given.
 * Tool calls of new assistant turns become ToolCall nodes, with the result of a tool message
 * of the same batch that answers them; new turns are queued for embedding.
 */
export async function appendMessages(
  editor: MemoryEditor,
  input: {
    scope: Scope;
    messages: Record<string, unknown>[];
    parentId: string | null;
    traceId: string;
  },
): Promise<AppendOutcome> {
  const { store } = editor;
  const { scope } = input;
  const turns = input.messages.map((message) => toNewMessage(message, { traceId: input.traceId }));
  let outcome: AppendOutcome;
  if (input.parentId === null) {
    outcome = await ingestTurns(store, scope, turns);
  } else {
    const appended = await store.appendPath(scope, { parentId: input.parentId, messages: turns });
    outcome = {
      leaf: appended.at(-1)?.message ?? null,
      created: appended.filter((turn) => turn.created).map((turn) => turn.message),
    };
  }
  const results = toolResults(input.messages);
  for (const turn of outcome.created) {
    const calls = toolCallsOf(turn, results);
    if (calls.length > 0) await store.addToolCalls(scope, turn.id, calls);
  }
  if (outcome.created.length > 0) editor.afterWrite(scope, outcome.created);
  return outcome;
}

/**
 * Replaces a turn's text (a string or content parts, as a client would send it): the store
 * keeps the old version in edit_history and clears the turn's embedding, chunks and synapses,
 * which are then rebuilt in the background.
 */
export async function editMessageContent(
  editor: MemoryEditor,
  input: { scope: Scope; id: string; content: string | Record<string, unknown>[] },
): Promise<StoredMessage> {
  const { store } = editor;
  const current = await store.getMessage(input.scope, input.id);
  // A missing turn or a chunk: let the store refuse it with its own error.
  const raw =
    current && !current.isChunk
      ? { ...current.raw, content: input.content }
      : { role: 'user', content: input.content };
  const normalized = toNewMessage(raw);
  const edited = await store.editMessage(input.scope, input.id, {
    content: messageText(input.content),
    raw,
    contentHash: normalized.contentHash,
    tokenCount: normalized.tokenCount,
  });
  editor.afterWrite(input.scope, [edited]);
  return edited;
}

/** Tool results of a batch by the call they answer. */
function toolResults(messages: Record<string, unknown>[]): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message['role'] === 'tool' && typeof message['tool_call_id'] === 'string') {
      results.set(message['tool_call_id'], messageText(message['content']));
    }
  }
  return results;
}

function toolCallsOf(turn: StoredMessage, results: Map<string, string>): NewToolCall[] {
  const calls = turn.raw['tool_calls'];
  if (turn.role !== 'assistant' || !Array.isArray(calls)) return [];
  return (calls as { id: string; function: { name: string; arguments: string } }[]).map((call) => ({
    callId: call.id,
    toolName: call.function.name,
    arguments: call.function.arguments,
    result: results.get(call.id) ?? null,
    tokenCount: countTokens(call.function.arguments),
  }));
}
