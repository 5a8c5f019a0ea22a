import { InvalidRequestError } from '../errors';
import { CLIENT_ROLES } from '../memory/normalize-message';

/** A chat request that passed validation; fields the proxy does not own stay untouched. */
export interface ChatRequestBody extends Record<string, unknown> {
  model: string;
  messages: Record<string, unknown>[];
  stream?: boolean;
}

/** Checks the fields the proxy relies on, with OpenAI-style messages naming the bad parameter. */
export function validateChatRequest(body: unknown, limits: { maxMessages: number }): ChatRequestBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('The request body must be a JSON object.', { code: 'invalid_body' });
  }
  const request = body as Record<string, unknown>;
  if (typeof request['model'] !== 'string' || request['model'].trim() === '') {
    throw new InvalidRequestError('You must provide a model parameter (a non-empty string).', { param: 'model', code: 'missing_model' });
  }
  const messages = request['messages'];
  if (!Array.isArray(messages)) {
    throw new InvalidRequestError("'messages' must be an array of message objects.", { param: 'messages', code: 'invalid_messages' });
  }
  if (messages.length === 0) {
    throw new InvalidRequestError("'messages' must contain at least one message.", { param: 'messages', code: 'empty_messages' });
  }
  if (messages.length > limits.maxMessages) {
    throw new InvalidRequestError(`'messages' has ${messages.length} entries; the limit is ${limits.maxMessages}.`, { param: 'messages', code: 'too_many_messages' });
  }
  messages.forEach((message, index) => validateMessage(message, index));
  validateToolResults(messages as Record<string, unknown>[]);
  checkOptional(request, 'stream', 'boolean');
  checkOptional(request, 'tools', 'array');
  checkOptional(request, 'stream_options', 'object');
  checkPositiveInteger(request, 'max_tokens');
  checkPositiveInteger(request, 'max_completion_tokens');
  return request as ChatRequestBody;
}

function validateMessage(message: unknown, index: number): void {
  const param = `messages[${index}]`;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new InvalidRequestError(`${param} must be an object with a role and content.`, { param, code: 'invalid_message' });
  }
  const record = message as Record<string, unknown>;
  const role = record['role'];
  if (typeof role !== 'string' || !(CLIENT_ROLES as readonly string[]).includes(role)) {
    throw new InvalidRequestError(
      `${param}.role must be one of ${CLIENT_ROLES.join(', ')}; got ${JSON.stringify(role ?? null)}.`,
      { param: `${param}.role`, code: 'invalid_role' },
    );
  }
  const content = record['content'];
  const hasToolCalls = Array.isArray(record['tool_calls']) && record['tool_calls'].length > 0;
  const contentOk =
    typeof content === 'string' ||
    (Array.isArray(content) && content.every((part) => typeof part === 'object' && part !== null && typeof (part as { type?: unknown }).type === 'string')) ||
    ((content === null || content === undefined) && role === 'assistant');
  if (!contentOk) {
    throw new InvalidRequestError(
      `${param}.content must be a string or an array of content parts${role === 'assistant' ? ' (or null with tool_calls)' : ''}.`,
      { param: `${param}.content`, code: 'invalid_content' },
    );
  }
  if (role === 'assistant' && (content === null || content === undefined) && !hasToolCalls && record['refusal'] === undefined) {
    throw new InvalidRequestError(`${param} is an assistant message with neither content nor tool_calls.`, { param: `${param}.content`, code: 'invalid_content' });
  }
  if (record['tool_calls'] !== undefined) validateToolCalls(record['tool_calls'], `${param}.tool_calls`);
  if (role === 'tool' && typeof record['tool_call_id'] !== 'string') {
    throw new InvalidRequestError(`${param} is a tool message without a tool_call_id.`, { param: `${param}.tool_call_id`, code: 'invalid_tool_message' });
  }
}

function validateToolCalls(value: unknown, param: string): void {
  if (!Array.isArray(value)) throw new InvalidRequestError(`${param} must be an array.`, { param, code: 'invalid_tool_calls' });
  value.forEach((call, index) => {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    if (typeof (call as { id?: unknown } | null)?.id !== 'string' || typeof fn?.name !== 'string' || typeof fn.arguments !== 'string') {
      throw new InvalidRequestError(`${param}[${index}] must have an id, function.name and function.arguments (a string).`, {
        param: `${param}[${index}]`,
        code: 'invalid_tool_calls',
      });
    }
  });
}

/** A tool message must answer a call made by an earlier assistant message of the same request. */
function validateToolResults(messages: Record<string, unknown>[]): void {
  const calls = new Set<string>();
  let sawTurn = false;
  messages.forEach((message, index) => {
    if (Array.isArray(message['tool_calls'])) {
      for (const call of message['tool_calls'] as { id: string }[]) calls.add(call.id);
    }
    // A tool result that opens the request answers a call the store already holds.
    if (message['role'] === 'tool' && sawTurn && !calls.has(message['tool_call_id'] as string)) {
      throw new InvalidRequestError(
        `messages[${index}] answers tool_call_id ${JSON.stringify(message['tool_call_id'])}, which no earlier assistant message called.`,
        { param: `messages[${index}].tool_call_id`, code: 'invalid_tool_message' },
      );
    }
    if (message['role'] !== 'system' && message['role'] !== 'developer' && message['role'] !== 'tool') sawTurn = true;
  });
}

function checkOptional(request: Record<string, unknown>, field: string, kind: 'boolean' | 'array' | 'object'): void {
  const value = request[field];
  if (value === undefined || value === null) return;
  const ok = kind === 'array' ? Array.isArray(value) : kind === 'object' ? typeof value === 'object' && !Array.isArray(value) : typeof value === kind;
  if (!ok) throw new InvalidRequestError(`'${field}' must be ${kind === 'array' ? 'an array' : `a${kind === 'object' ? 'n' : ''} ${kind}`}.`, { param: field, code: 'invalid_type' });
}

function checkPositiveInteger(request: Record<string, unknown>, field: string): void {
  const value = request[field];
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidRequestError(`'${field}' must be a positive integer.`, { param: field, code: 'invalid_type' });
  }
}
