import { chatPath, user, valid, type BadCase, type CorpusScope } from './corpus-types';

/** Refused chat request bodies: malformed and truncated JSON, wrong types, messages that are not messages. */
export function badChatBodies(scope: CorpusScope): BadCase[] {
  const chat = chatPath(scope);
  const json = (
    name: string,
    body: unknown,
    expected: Omit<BadCase, 'name' | 'path'> = {},
  ): BadCase => ({ name, path: chat, body: JSON.stringify(body), ...expected });
  const cases: BadCase[] = [];

  // Malformed and truncated JSON.
  const text = JSON.stringify({
    model: 'gpt-4o-mini',
    stream: false,
    messages: [user('truncate me somewhere'), { role: 'assistant', content: 'ok' }],
  });
  for (let cut = 1; cut < text.length; cut += Math.ceil(text.length / 24))
    cases.push({
      name: `truncated at ${cut}`,
      path: chat,
      body: text.slice(0, cut),
      code: 'invalid_json',
    });
  for (const [name, body] of [
    ['trailing comma', '{"model":"m","messages":[{"role":"user","content":"x"},]}'],
    ['single quotes', "{'model':'m','messages':[]}"],
    ['unquoted keys', '{model:"m",messages:[]}'],
    ['NaN', '{"model":"m","max_tokens":NaN,"messages":[]}'],
    ['comment', '{"model":"m", /* hi */ "messages":[]}'],
    ['two objects', '{"model":"m"}{"messages":[]}'],
    ['bare word', 'hello'],
    ['unterminated string', '{"model":"m'],
    ['control character in string', '{"model":"m\u0001","messages":[]}'],
    ['lone backslash escape', '{"model":"\\x41","messages":[]}'],
  ] as const) {
    cases.push({ name: `malformed JSON: ${name}`, path: chat, body, code: 'invalid_json' });
  }
  cases.push({ name: 'empty body', path: chat, body: '', code: 'invalid_body' });
  cases.push({ name: 'no body', path: chat, code: 'invalid_body' });
  for (const value of ['null', 'true', '42', '"text"', '[]', '[{"model":"m"}]', '   ']) {
    cases.push({
      name: `body ${value.trim() || 'whitespace'}`,
      path: chat,
      body: value,
      code: value.trim() === '' ? 'invalid_json' : 'invalid_body',
    });
  }

  // Wrong types for every field the proxy or upstream reads.
  for (const model of [42, null, true, [], {}, '', '   '])
    cases.push(json(`model ${JSON.stringify(model)}`, { ...valid(), model }, { param: 'model' }));
  cases.push(json('model missing', { messages: [user()] }, { param: 'model' }));
  for (const messages of ['hi', 42, {}, null, true])
    cases.push(
      json(
        `messages ${JSON.stringify(messages)}`,
        { ...valid(), messages },
        { param: 'messages', code: 'invalid_messages' },
      ),
    );
  cases.push(json('messages missing', { model: 'm' }, { param: 'messages' }));
  cases.push(
    json(
      'messages empty',
      { model: 'm', messages: [] },
      { param: 'messages', code: 'empty_messages' },
    ),
  );
  const fieldValues: Record<string, unknown[]> = {
    stream: ['yes', 1, 'true', {}, []],
    stream_options: ['x', 1, [], true],
    tools: [
      'x',
      {},
      1,
      [1],
      [{}],
      [{ type: 'function' }],
      [{ type: 'function', function: {} }],
      [{ type: 'function', function: { name: 3 } }],
      [null],
    ],
    max_tokens: [-1, 0, 1.5, '10', {}, true],
    max_completion_tokens: [-1, 0, 2.5, '10', []],
    n: [0, -1, 1.5, '2'],
    temperature: ['hot', {}, [], true],
    top_p: ['x', [], false],
    presence_penalty: ['x', {}],
    frequency_penalty: [[], 'x'],
    seed: [1.5, 'x', {}],
    user: [42, {}, []],
    logprobs: ['yes', 1],
    top_logprobs: ['x', 1.5],
    parallel_tool_calls: ['no', 0],
    logit_bias: ['x', [], 1],
    metadata: ['x', [], 2],
    response_format: ['json', 1, []],
    stop: [42, {}, true],
    tool_choice: [42, [], true],
    store: ['yes', 1],
    modalities: ['text', {}],
    service_tier: [5, {}],
    reasoning_effort: [1, {}],
  };
  for (const [field, values] of Object.entries(fieldValues)) {
    for (const value of values)
      cases.push(
        json(
          `${field} ${JSON.stringify(value)}`,
          { ...valid(), [field]: value },
          { param: field.startsWith('tools') && Array.isArray(value) ? 'tools[0]' : field },
        ),
      );
  }

  // Messages that are not messages.
  const message = (name: string, messages: unknown[], param?: string, code?: string) =>
    cases.push(
      json(
        `message: ${name}`,
        { model: 'm', messages },
        { ...(param ? { param } : {}), ...(code ? { code } : {}) },
      ),
    );
  for (const entry of [null, 42, 'hi', [], true])
    message(`entry ${JSON.stringify(entry)}`, [entry], 'messages[0]', 'invalid_message');
  for (const role of [undefined, 42, 'wizard', 'System', 'tool ', '', null, 'root', 'model'])
    message(
      `role ${JSON.stringify(role)}`,
      [{ role, content: 'x' }],
      'messages[0].role',
      'invalid_role',
    );
  for (const content of [
    42,
    {},
    true,
    [],
    [42],
    [{}],
    [{ type: 'text' }],
    [{ type: 'text', text: 5 }],
    [null],
    [[]],
    null,
  ]) {
    message(
      `user content ${JSON.stringify(content)}`,
      [user(content)],
      'messages[0].content',
      'invalid_content',
    );
  }
  message('user content missing', [{ role: 'user' }], 'messages[0].content', 'invalid_content');
  message(
    'system content null',
    [{ role: 'system', content: null }, user()],
    'messages[0].content',
    'invalid_content',
  );
  message(
    'name not a string',
    [{ role: 'user', content: 'x', name: 42 }],
    'messages[0].name',
    'invalid_type',
  );
  message(
    'assistant with nothing',
    [user(), { role: 'assistant', content: null }],
    'messages[1].content',
    'invalid_content',
  );
  for (const calls of [
    'x',
    {},
    [{}],
    [{ id: 1, function: { name: 'f', arguments: '{}' } }],
    [{ id: 'a', function: { name: 'f' } }],
    [{ id: 'a', function: { name: 'f', arguments: {} } }],
    [null],
  ]) {
    message(
      `tool_calls ${JSON.stringify(calls)}`,
      [user(), { role: 'assistant', content: 'calling', tool_calls: calls }],
      undefined,
      'invalid_tool_calls',
    );
  }
  const call = { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } };
  message(
    'tool without tool_call_id',
    [
      user(),
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', content: 'r' },
    ],
    'messages[2].tool_call_id',
    'invalid_tool_message',
  );
  message(
    'tool_call_id not a string',
    [
      user(),
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 5, content: 'r' },
    ],
    'messages[2].tool_call_id',
    'invalid_tool_message',
  );
  message(
    'tool_call_id empty',
    [
      user(),
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: '', content: 'r' },
    ],
    'messages[2].tool_call_id',
    'invalid_tool_message',
  );
  message(
    'tool result without any call',
    [user(), { role: 'tool', tool_call_id: 'call_1', content: 'r' }],
    'messages[1].tool_call_id',
    'invalid_tool_message',
  );
  message(
    'tool result for another call',
    [
      user(),
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_2', content: 'r' },
    ],
    'messages[2].tool_call_id',
    'invalid_tool_message',
  );
  message(
    'tool result alone, nothing stored calls it',
    [{ role: 'tool', tool_call_id: 'call_never_made', content: 'r' }],
    'messages',
    'invalid_tool_message',
  );
  message(
    'function message without a name',
    [user(), { role: 'function', content: 'r' }],
    'messages[1].name',
    'invalid_tool_message',
  );
  message(
    'too many messages',
    Array.from({ length: scope.maxMessages + 1 }, (_, index) => user(`m${index}`)),
    'messages',
    'too_many_messages',
  );
  message(
    'newest message larger than the context budget',
    [user('lorem ipsum '.repeat(20_000))],
    'messages',
    'context_length_exceeded',
  );
  return cases;
}
