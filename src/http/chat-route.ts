import type { Context, Hono } from 'hono';
import { InvalidRequestError } from '../errors';
import { runChat, type ChatDeps } from '../proxy/chat-pipeline';
import { forwardedAuthorization } from './access-control';
import type { AppEnv } from './app-env';
import { IdempotentReplies } from './idempotent-replies';
import { readJsonBody } from './read-json-body';
import { resolveScope } from './scope';
import { sseResponse } from './sse-response';
import { validateChatRequest } from './validate-chat-request';

/** Registers POST chat/completions on the scoped and the plain /v1 paths; `replies` serves Idempotency-Key retries. */
export function registerChatRoutes(app: Hono<AppEnv>, deps: ChatDeps, replies: IdempotentReplies): void {
  const handler = async (c: Context<AppEnv>) => {
    const scope = resolveScope({ partition: c.req.param('partition'), instance: c.req.param('instance') }, (name) => c.req.header(name));
    const body = validateChatRequest(await readJsonBody(c.req.raw, deps.config.maxBodyBytes), { maxMessages: deps.config.maxMessages });
    const key = IdempotentReplies.keyOf(c.req.header('idempotency-key'));
    const requestId = c.get('requestId');
    // Contents are private: they reach the log only when an operator asked for debug output.
    deps.logger.debug('chat request', { requestId, partition: scope.partition, instance: scope.instance, messages: body.messages });
    const run = () =>
      runChat(deps, {
        scope,
        body,
        authorization: forwardedAuthorization(c),
        requestId,
        contextWindowOverride: contextWindowHeader(c.req.header('x-memory-context-window')),
        signal: c.req.raw.signal,
      });
    const outcome = key === null ? await run() : await replies.run({ scope, key, body, requestId }, run);
    if (outcome.kind === 'stream') return sseResponse(outcome.frames, outcome.headers);
    return c.json(outcome.body as object, outcome.status as 200, outcome.headers);
  };
  app.post('/partition/:partition/instance/:instance/v1/chat/completions', handler);
  app.post('/v1/chat/completions', handler);
}

function contextWindowHeader(value: string | undefined): number | null {
  if (value === undefined) return null;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 100 || parsed > 10_000_000) {
    throw new InvalidRequestError('x-memory-context-window must be a whole number of tokens between 100 and 10000000.', {
      param: 'x-memory-context-window',
      code: 'invalid_header',
    });
  }
  return parsed;
}
