import type { ChatAccumulator } from './chat-accumulator';
import type { SseEvent } from './sse-parse';
import type { Usage } from './tool-loop';

type Chunk = {
  choices?: { index?: number; delta?: Record<string, unknown>; finish_reason?: string | null }[];
  usage?: Partial<Usage> | null;
  [key: string]: unknown;
};

/**
 * A frame filter for the relayed answer round: chunks pass byte for byte unless they carry a
 * memory tool call (removed: memory calls never reach the client) or the usage chunk of a
 * request that ran tool rounds (usage is summed over every round).
 */
export function filterMemoryCalls(memoryNames: ReadonlySet<string>, earlierUsage: Usage | null): (event: SseEvent) => string | null {
  const memoryIndexes = new Set<number>();
  let clientCalls = 0;
  return (event) => {
    const original = event.event && event.event !== 'message' ? `event: ${event.event}\ndata: ${event.data}\n\n` : `data: ${event.data}\n\n`;
    if (!event.data.includes('"tool_calls"') && !(earlierUsage && event.data.includes('"usage"'))) return original;
    let chunk: Chunk;
    try {
      chunk = JSON.parse(event.data) as Chunk;
    } catch {
      return original;
    }
    let changed = false;
    for (const choice of chunk.choices ?? []) {
      const calls = choice.delta?.['tool_calls'];
      if (Array.isArray(calls)) {
        const kept = (calls as { index?: number; function?: { name?: string } }[]).filter((call, position) => {
          const index = call.index ?? position;
          if (call.function?.name !== undefined) {
            if (memoryNames.has(call.function.name)) memoryIndexes.add(index);
            else clientCalls++;
          }
          return !memoryIndexes.has(index);
        });
        if (kept.length !== calls.length) {
          changed = true;
          if (kept.length > 0) choice.delta!['tool_calls'] = kept;
          else delete choice.delta!['tool_calls'];
        }
      }
      if (choice.finish_reason === 'tool_calls' && memoryIndexes.size > 0 && clientCalls === 0) {
        choice.finish_reason = 'stop';
        changed = true;
      }
    }
    if (earlierUsage && chunk.usage) {
      chunk.usage = addUsage(earlierUsage, chunk.usage);
      changed = true;
    }
    if (!changed) return original;
    const empty = (chunk.choices ?? []).every((choice) => Object.keys(choice.delta ?? {}).length === 0 && !choice.finish_reason) && !chunk.usage;
    return empty ? null : `data: ${JSON.stringify(chunk)}\n\n`;
  };
}

/** OpenAI-shaped stream frames for an answer assembled from a round that was read to the end. */
export async function* synthesizeStream(accumulator: ChatAccumulator, message: Record<string, unknown>, usage: Usage | null): AsyncGenerator<string> {
  const completion = accumulator.toCompletion() as { id?: string; created?: number; model?: string; system_fingerprint?: unknown };
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    system_fingerprint: completion.system_fingerprint ?? null,
  };
  const frame = (body: Record<string, unknown>) => `data: ${JSON.stringify({ ...base, ...body })}\n\n`;
  yield frame({ choices: [{ index: 0, delta: { role: 'assistant', content: message['content'] ?? null }, logprobs: null, finish_reason: null }] });
  const calls = (message['tool_calls'] ?? []) as { id: string; function: { name: string; arguments: string } }[];
  for (const [index, call] of calls.entries()) {
    yield frame({ choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }] }, logprobs: null, finish_reason: null }] });
  }
  yield frame({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }] });
  if (usage) yield frame({ choices: [], usage });
  yield 'data: [DONE]\n\n';
}

function addUsage(earlier: Usage, current: Partial<Usage>): Usage {
  return {
    ...current,
    prompt_tokens: earlier.prompt_tokens + (current.prompt_tokens ?? 0),
    completion_tokens: earlier.completion_tokens + (current.completion_tokens ?? 0),
    total_tokens: earlier.total_tokens + (current.total_tokens ?? 0),
  };
}
