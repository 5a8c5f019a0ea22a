import type { UpstreamClient } from './upstream-client';

/** How long a background model call may take before its caller keeps what it had. */
const MODEL_CALL_TIMEOUT_MS = 60_000;

/**
 * One background question to a model through the upstream, with the proxy's own key: a system
 * instruction and a user message in, the answer's text out ('' when it has none). Summaries of
 * topics and of evicted turns both ask this way, never on a request's path.
 */
export async function askModel(
  upstream: UpstreamClient,
  question: { model: string; instructions: string; content: string; maxTokens: number },
): Promise<string> {
  const answer = await upstream.postJson({
    path: '/chat/completions',
    body: {
      model: question.model,
      messages: [
        { role: 'system', content: question.instructions },
        { role: 'user', content: question.content },
      ],
      max_tokens: question.maxTokens,
    },
    authorization: null,
    signal: AbortSignal.timeout(MODEL_CALL_TIMEOUT_MS),
  });
  const choices = answer.body['choices'];
  const content = Array.isArray(choices)
    ? (choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content
    : undefined;
  return typeof content === 'string' ? content : '';
}
