import type { ChatOutcome, RoundContext } from './chat-pipeline';
import { finishAnswer } from './finish-answer';
import type { ToolCallLike } from './tool-loop';

/**
 * The non-streaming loop: each round is one upstream call; memory calls are run and the loop
 * goes on; an answer, or a call to one of the client's tools, ends it and goes back as
 * upstream sent it (memory calls removed, usage summed over every round).
 */
export async function runJsonRounds(context: RoundContext): Promise<ChatOutcome> {
  const { loop } = context;
  for (;;) {
    const offering = loop.offering;
    const answer = await context.call((call) => context.deps.upstream.postJson(call));
    const body = answer.body;
    loop.addUsage(body['usage']);
    const choice = firstChoice(body);
    const message = (choice?.['message'] ?? null) as Record<string, unknown> | null;
    const calls = (Array.isArray(message?.['tool_calls']) ? message['tool_calls'] : []) as ToolCallLike[];
    const { memory, client } = loop.split(calls);

    if (offering && memory.length > 0) {
      await loop.runRound(typeof message?.['content'] === 'string' ? message['content'] : null, memory);
      if (client.length === 0) continue;
    }
    if (message && memory.length > 0) {
      // A mixed round: the client gets only its own calls.
      message['tool_calls'] = client;
      if (client.length === 0) delete message['tool_calls'];
      if (choice && client.length === 0 && choice['finish_reason'] === 'tool_calls') choice['finish_reason'] = 'stop';
    }
    if (loop.rounds > 0 && loop.totalUsage) body['usage'] = loop.totalUsage;
    {
      await finishAnswer(context, {
        message: message ?? { role: 'assistant', content: null },
        model: typeof body['model'] === 'string' ? body['model'] : null,
        finishReason: typeof choice?.['finish_reason'] === 'string' ? choice['finish_reason'] : null,
        incomplete: null,
      });
    }
    return { kind: 'json', status: answer.status, headers: { ...answer.headers, ...context.headers() }, body };
  }
}

function firstChoice(body: Record<string, unknown>): Record<string, unknown> | null {
  const choices = body['choices'];
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const choice = choices[0];
  return typeof choice === 'object' && choice !== null ? (choice as Record<string, unknown>) : null;
}
