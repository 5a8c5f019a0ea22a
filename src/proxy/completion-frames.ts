/** A stored `chat.completion` body, as far as replaying it needs. */
interface CompletionLike {
  id?: unknown;
  created?: unknown;
  model?: unknown;
  system_fingerprint?: unknown;
  service_tier?: unknown;
  usage?: unknown;
  choices?: unknown;
}

interface ChoiceLike {
  index?: number;
  message?: {
    content?: unknown;
    refusal?: unknown;
    tool_calls?: { id: string; type?: string; function: { name: string; arguments: string } }[];
  };
  finish_reason?: unknown;
}

/**
 * The SSE frames of a finished completion, as OpenAI would have streamed it: per choice a role
 * chunk, its content, its tool calls with stable index and id, a finish chunk; then the usage
 * chunk when asked for, then `[DONE]`. Used to replay a stored answer to a streaming retry.
 */
export function* completionFrames(
  completion: CompletionLike,
  options: { includeUsage: boolean },
): Generator<string> {
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    system_fingerprint: completion.system_fingerprint ?? null,
    ...(completion.service_tier !== undefined ? { service_tier: completion.service_tier } : {}),
  };
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
  const choices = (Array.isArray(completion.choices) ? completion.choices : []) as ChoiceLike[];
  for (const [position, choice] of choices.entries()) {
    const index = choice.index ?? position;
    const message = choice.message ?? {};
    const delta = (fields: Record<string, unknown>, finish: unknown = null) => [
      { index, delta: fields, logprobs: null, finish_reason: finish },
    ];
    yield frame(delta({ role: 'assistant', content: '', refusal: null }));
    if (typeof message.content === 'string' && message.content !== '')
      yield frame(delta({ content: message.content }));
    if (typeof message.refusal === 'string' && message.refusal !== '')
      yield frame(delta({ refusal: message.refusal }));
    for (const [callIndex, call] of (message.tool_calls ?? []).entries()) {
      yield frame(
        delta({
          tool_calls: [
            {
              index: callIndex,
              id: call.id,
              type: call.type ?? 'function',
              function: { name: call.function.name, arguments: call.function.arguments },
            },
          ],
        }),
      );
    }
    yield frame(delta({}, choice.finish_reason ?? 'stop'));
  }
  if (options.includeUsage && completion.usage) yield frame([], { usage: completion.usage });
  yield 'data: [DONE]\n\n';
}
