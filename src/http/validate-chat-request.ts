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
  checkPositiveInteger(request, 'n');
  for (const [field, kind] of Object.entries(FIELD_KINDS)) checkKind(request, field, kind);
  if (Array.isArray(request['tools'])) validateTools(request['tools']);
  return request as ChatRequestBody;
}

/** What the proxy checks of the request fields it passes on: types only, as servers differ in ranges. */
type FieldKind = 'number' | 'integer' | 'string' | 'boolean' | 'object' | 'array' | 'string|array' | 'string|object';

/** Fields of OpenAI's chat request a wrong type would only make upstream refuse, after the turn was stored. */
const FIELD_KINDS: Record<string, FieldKind> = {
  temperature: 'number',
  top_p: 'number',
  presence_penalty: 'number',
  frequency_penalty: 'number',
  seed: 'integer',
  top_logprobs: 'integer',
  logprobs: 'boolean',
  parallel_tool_calls: 'boolean',
  store: 'boolean',
  user: 'string',
  reasoning_effort: 'string',
  service_tier: 'string',
  logit_bias: 'object',
  metadata: 'object',
  response_format: 'object',
  modalities: 'array',
  stop: 'string|array',
  tool_choice: 'string|object',
};

function checkKind(request: Record<string, unknown>, field: string, kind: FieldKind): void {
  const value = request[field];
  if (value === undefined || value === null) return;
  const isObject = typeof value === 'object' && !Array.isArray(value);
  const ok = kind.split('|').some((one) =>
    one === 'integer' ? Number.isInteger(value) : one === 'array' ? Array.isArray(value) : one === 'object' ? isObject : typeof value === one && (one !== 'number' || Number.isFinite(value)),
  );
  if (!ok) throw new InvalidRequestError(`'${field}' must be ${kind.split('|').map(article).join(' or ')}.`, { param: field, code: 'invalid_type' });
}

function article(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

function validateTools(tools: unknown[]): void {
  tools.forEach((tool, index) => {
    const record = tool as { type?: unknown; function?: { name?: unknown } } | null;
    const fn = record?.function;
    if (typeof record !== 'object' || record === null || typeof record.type !== 'string' || (record.type === 'function' && (typeof fn !== 'object' || fn === null || typeof fn.name !== 'string' || fn.name === ''))) {
      throw new InvalidRequestError(`tools[${index}] must be an object with a type, and a function with a name for type "function".`, { param: `tools[${index}]`, code: 'invalid_tools' });
    }
  });
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
    (Array.isArray(content) && content.length > 0 && content.every(validPart)) ||
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
  if (record['tool_calls'] !== undefined && record['tool_calls'] !== null) validateToolCalls(record['tool_calls'], `${param}.tool_calls`);
  if (record['name'] !== undefined && record['name'] !== null && typeof record['name'] !== 'string') {
    throw new InvalidRequestError(`${param}.name must be a string.`, { param: `${param}.name`, code: 'invalid_type' });
  }
  if (role === 'function' && typeof record['name'] !== 'string') {
    throw new InvalidRequestError(`${param} is a function message without a name.`, { param: `${param}.name`, code: 'invalid_tool_message' });
  }
  if (role === 'tool' && (typeof record['tool_call_id'] !== 'string' || record['tool_call_id'] === '')) {
    throw new InvalidRequestError(`${param} is a tool message without a tool_call_id.`, { param: `${param}.tool_call_id`, code: 'invalid_tool_message' });
  }
}

/** A content part: an object with a type; a text part carries its text as a string. */
function validPart(part: unknown): boolean {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) return false;
  const record = part as { type?: unknown; text?: unknown };
  if (typeof record.type !== 'string') return false;
  return record.type !== 'text' || typeof record.text === 'string';
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
