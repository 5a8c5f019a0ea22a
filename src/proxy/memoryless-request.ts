import { lookupModel, type Config } from '../config/load-config';
import type { PreparedRequest } from '../memory/prepare-request';
import { computeBudget } from '../tokens/budget';
import { countMessagesTokens, countToolsTokens } from '../tokens/count-tokens';

/**
 * The request as the client sent it, for when the store is down and STORE_FAILURE_MODE=open:
 * nothing stored, nothing retrieved, the client's own messages forwarded unchanged.
 */
export function memorylessRequest(options: {
  body: Record<string, unknown> & { model: string; messages: Record<string, unknown>[] };
  config: Config;
  contextWindowOverride: number | null;
}): PreparedRequest {
  const { body, config } = options;
  const contextWindow =
    options.contextWindowOverride ??
    lookupModel(config.models, body.model)?.contextWindow ??
    config.defaultContextWindow;
  const reserve = body['max_completion_tokens'] ?? body['max_tokens'];
  const budget = computeBudget({
    contextWindow,
    responseReserve:
      typeof reserve === 'number'
        ? reserve
        : Math.min(config.defaultResponseReserve, Math.floor(contextWindow / 4)),
    toolsTokens: countToolsTokens(body['tools']),
    safetyMargin: config.safetyMargin,
  });
  const tokens = countMessagesTokens(body.messages);
  return {
    messages: body.messages,
    leaf: null,
    created: [],
    budget,
    contextWindow,
    contextTokens: tokens,
    pressure: tokens / budget,
    branchTokens: tokens,
    evicted: false,
    windowStartId: null,
    indexStrategy: null,
    summaryIncluded: false,
    afterAnswer: [],
    nearest: new Map(),
    vectors: new Map(),
  };
}
