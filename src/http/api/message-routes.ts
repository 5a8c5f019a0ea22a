import type { Context, Hono } from 'hono';
import { InvalidRequestError, NotFoundError } from '../../errors';
import { appendMessages, editMessageContent } from '../../memory/manage-messages';
import { listMessagePage, type MessagePageQuery } from '../../memory/message-page';
import { retrieve } from '../../memory/retrieve';
import type { AppEnv } from '../app-env';
import { validateChatRequest } from '../validate-chat-request';
import { INSTANCE_PATH, type ApiDeps } from './api-deps';
import { messageJson, searchHitJson, synapseJson, toolCallJson } from './api-json';
import {
  flagParam,
  intParam,
  jsonObjectBody,
  pathMessageId,
  pathScope,
  rolesParam,
  stringField,
  timeParam,
} from './api-params';

/** Most turns one page lists. */
const MAX_PAGE = 1_000;
/** Most hits one search returns. */
const MAX_HITS = 100;

/** Registers the message routes of an instance: list, read, append, edit, delete, restore, search. */
export function registerMessageRoutes(app: Hono<AppEnv>, deps: ApiDeps): void {
  const messages = `${INSTANCE_PATH}/messages`;

  app.get(messages, async (c) => {
    const scope = pathScope(c);
    const page = await listMessagePage(deps.store, scope, pageQuery(c));
    return c.json({
      object: 'list',
      data: page.data.map(messageJson),
      next_cursor: page.nextCursor,
      has_more: page.hasMore,
    });
  });

  app.post(messages, async (c) => {
    const scope = pathScope(c);
    const body = await jsonObjectBody(c, deps.config.maxBodyBytes);
    const parentId = body['parent_id'] ?? null;
    if (parentId !== null && typeof parentId !== 'string') {
      throw new InvalidRequestError("'parent_id' must be a message id or null.", {
        param: 'parent_id',
        code: 'invalid_parameter',
      });
    }
    const turns = validateChatRequest(
      { model: 'memory', messages: body['messages'] },
      { maxMessages: deps.config.maxMessages },
    ).messages;
    turns.forEach((message, index) => {
      if (message['role'] === 'system' || message['role'] === 'developer') {
        throw new InvalidRequestError(
          `messages[${index}] is a ${String(message['role'])} message; those go upstream with each request and are not stored as turns.`,
          {
            param: `messages[${index}].role`,
            code: 'invalid_role',
          },
        );
      }
    });
    const outcome = await appendMessages(deps.editor, {
      scope,
      messages: turns,
      parentId,
      traceId: c.get('requestId'),
    });
    return c.json(
      { object: 'list', data: outcome.created.map(messageJson), leaf_id: outcome.leaf?.id ?? null },
      outcome.created.length > 0 ? 201 : 200,
    );
  });

  app.get(`${messages}/:id`, async (c) => {
    const scope = pathScope(c);
    const message = await deps.store.getMessage(scope, pathMessageId(c));
    if (!message)
      throw new NotFoundError(`No message ${c.req.param('id')} in this instance.`, 'id');
    const [chunks, toolCalls, partner, synapses] = await Promise.all([
      message.isChunk ? Promise.resolve([]) : deps.store.getChunks(scope, message.id),
      deps.store.getToolCallsByMessage(scope, message.id),
      deps.store.getRespondedWith(scope, message.id),
      deps.store.getSynapses(scope, message.id),
    ]);
    return c.json({
      ...messageJson(message),
      chunks: chunks.map(messageJson),
      tool_calls: toolCalls.map(toolCallJson),
      responded_with: partner ? messageJson(partner) : null,
      synapses: synapses.map(synapseJson),
    });
  });

  app.patch(`${messages}/:id`, async (c) => {
    const scope = pathScope(c);
    const id = pathMessageId(c);
    const body = await jsonObjectBody(c, deps.config.maxBodyBytes);
    const content = body['content'];
    const parts =
      Array.isArray(content) &&
      content.every(
        (part) => typeof part === 'object' && part !== null && typeof part.type === 'string',
      );
    if (typeof content !== 'string' && !parts) {
      throw new InvalidRequestError("'content' must be a string or an array of content parts.", {
        param: 'content',
        code: 'invalid_content',
      });
    }
    const edited = await editMessageContent(deps.editor, {
      scope,
      id,
      content: content as string | Record<string, unknown>[],
    });
    return c.json(messageJson(edited));
  });

  app.delete(`${messages}/:id`, async (c) => {
    const scope = pathScope(c);
    const id = pathMessageId(c);
    if (flagParam(c, 'purge')) {
      const removed = await deps.store.purgeMessage(scope, id);
      return c.json({
        object: 'memory.message.deleted',
        id,
        deleted: true,
        purged: true,
        removed: { messages: removed.messages, tool_calls: removed.toolCalls },
      });
    }
    return c.json(messageJson(await deps.store.setMessageDeleted(scope, id, true)));
  });

  app.post(`${messages}/:id/restore`, async (c) => {
    const scope = pathScope(c);
    const restored = await deps.store.setMessageDeleted(scope, pathMessageId(c), false);
    deps.editor.afterRestore();
    return c.json(messageJson(restored));
  });

  app.post(`${INSTANCE_PATH}/search`, async (c) => {
    const scope = pathScope(c);
    const body = await jsonObjectBody(c, deps.config.maxBodyBytes);
    const query = stringField(body, 'query');
    const limit = body['limit'] ?? 10;
    if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_HITS) {
      throw new InvalidRequestError(`'limit' must be a whole number from 1 to ${MAX_HITS}.`, {
        param: 'limit',
        code: 'invalid_parameter',
      });
    }
    const [vector] = await deps.embedder.embed([query]);
    const hits = await retrieve({
      store: deps.store,
      scope,
      text: query,
      vector: vector ?? null,
      exclude: new Set(),
      limit: limit as number,
    });
    return c.json({ object: 'list', data: hits.map(searchHitJson) });
  });
}

/** The listing's query parameters; point in time lists a page at a time, so it takes neither a branch nor a budget. */
function pageQuery(c: Context<AppEnv>): MessagePageQuery {
  const leafId = c.req.query('leaf') || undefined;
  const asOfSeq = intParam(c, 'as_of_seq', { min: 1, max: Number.MAX_SAFE_INTEGER });
  const tokenBudget = intParam(c, 'token_budget', { min: 1, max: 100_000_000 });
  const includeDeleted = flagParam(c, 'include_deleted');
  if (asOfSeq !== undefined && (leafId !== undefined || tokenBudget !== undefined)) {
    throw new InvalidRequestError(
      "'as_of_seq' lists the whole instance as it was; it cannot be combined with 'leaf' or 'token_budget'.",
      {
        param: 'as_of_seq',
        code: 'invalid_parameter',
      },
    );
  }
  if (
    includeDeleted &&
    (leafId !== undefined || tokenBudget !== undefined || asOfSeq !== undefined)
  ) {
    throw new InvalidRequestError(
      "'include_deleted' only applies to the plain listing (what a model sees never holds deleted turns).",
      {
        param: 'include_deleted',
        code: 'invalid_parameter',
      },
    );
  }
  return {
    limit: intParam(c, 'limit', { min: 1, max: MAX_PAGE }) ?? 100,
    cursor: intParam(c, 'cursor', { min: 0, max: Number.MAX_SAFE_INTEGER }),
    roles: rolesParam(c),
    fromTime: timeParam(c, 'from'),
    toTime: timeParam(c, 'to'),
    asOfSeq,
    leafId,
    tokenBudget,
    includeDeleted,
  };
}
