import { chatPath, user, valid, type BadCase, type CorpusScope } from './corpus-types';

/** Refused chat requests by their envelope: sizes, nesting, encodings, scope names, headers, methods, routes. */
export function badChatTransport(scope: CorpusScope): BadCase[] {
  const chat = chatPath(scope);
  const cases: BadCase[] = [];

  // Sizes and nesting.
  const huge = JSON.stringify({
    model: 'm',
    messages: [user('x'.repeat(scope.maxBodyBytes + 10))],
  });
  cases.push({
    name: 'body over MAX_BODY_BYTES',
    path: chat,
    body: huge,
    status: 413,
    code: 'request_too_large',
  });
  cases.push({
    name: 'chunked body over MAX_BODY_BYTES (no content-length)',
    path: chat,
    body: () => chunked(huge),
    status: 413,
    code: 'request_too_large',
  });
  cases.push({
    name: 'deeply nested array body',
    path: chat,
    body: `${'['.repeat(5000)}${']'.repeat(5000)}`,
    code: 'json_too_deep',
  });
  cases.push({
    name: 'deeply nested field',
    path: chat,
    body: `{"model":"m","messages":[{"role":"user","content":"x","extra":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}]}`,
    code: 'json_too_deep',
  });
  cases.push({
    name: 'deeply nested content parts',
    path: chat,
    body: `{"model":"m","messages":[{"role":"user","content":[{"type":"input_json","data":${'['.repeat(400)}${']'.repeat(400)}}]}]}`,
    code: 'json_too_deep',
  });

  // Invalid UTF-8.
  const prefix = new TextEncoder().encode('{"model":"m","messages":[{"role":"user","content":"');
  const suffix = new TextEncoder().encode('"}]}');
  for (const [name, bytes] of [
    ['lone continuation byte', [0x80]],
    ['overlong slash', [0xc0, 0xaf]],
    ['UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['truncated 3-byte sequence', [0xe2, 0x82]],
    ['byte 0xFF', [0xff]],
    ['code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ] as const) {
    cases.push({
      name: `invalid UTF-8: ${name}`,
      path: chat,
      body: new Uint8Array([...prefix, 0x61, ...bytes, 0x62, ...suffix]),
      code: 'invalid_encoding',
    });
  }
  cases.push({
    name: 'invalid UTF-8 outside strings',
    path: chat,
    body: new Uint8Array([0x7b, 0xfe, 0x7d]),
    code: 'invalid_encoding',
  });

  // Hostile partition and instance names, in the path and in headers.
  const body = JSON.stringify(valid());
  const hostile = [
    '..%2Fx',
    'a%20b',
    "x'%7D)-%5Br%5D-()",
    '%D0%B0lice',
    '%EF%BD%81lice',
    'al%E2%80%8Dice',
    'x'.repeat(129),
    '%00',
    'a%2Fb',
    'a%09b',
    '%F0%9F%98%80',
    'a%22b',
    'a%5Cb',
    'MATCH%20(n)%20DETACH%20DELETE%20n',
  ];
  for (const name of hostile) {
    cases.push({
      name: `partition path ${name}`,
      path: `/partition/${name}/instance/${scope.instance}/v1/chat/completions`,
      body,
      code: 'invalid_partition',
      param: 'partition',
    });
    cases.push({
      name: `instance path ${name}`,
      path: `/partition/${scope.partition}/instance/${name}/v1/chat/completions`,
      body,
      code: 'invalid_instance',
      param: 'instance',
    });
  }
  // The URL standard resolves these dot segments before the request leaves the client: no route matches.
  for (const name of ['.', '..', '%2E', '%2E%2E', '.%2e']) {
    cases.push({
      name: `partition path ${name} (resolved by the URL)`,
      path: `/partition/${name}/instance/${scope.instance}/v1/chat/completions`,
      body,
      status: 404,
      code: 'not_found',
    });
  }
  for (const name of [
    '../x',
    'a b',
    "x'})-[r]-()",
    'caf\u00e9',
    '',
    '..',
    'a/b',
    'x'.repeat(129),
    '*',
  ]) {
    cases.push({
      name: `partition header ${JSON.stringify(name)}`,
      path: '/v1/chat/completions',
      headers: { 'x-memory-partition': name, 'x-memory-instance': scope.instance },
      body,
      code: 'invalid_partition',
    });
    cases.push({
      name: `instance header ${JSON.stringify(name)}`,
      path: '/v1/chat/completions',
      headers: { 'x-memory-partition': scope.partition, 'x-memory-instance': name },
      body,
      code: 'invalid_instance',
    });
  }
  cases.push({
    name: 'dot segments resolved away by the URL',
    path: `/partition/../x/instance/${scope.instance}/v1/chat/completions`,
    body,
    status: 404,
    code: 'not_found',
  });

  // Headers, methods and routes.
  for (const value of ['abc', '50', '1e9', '-4096', '4096.5', '']) {
    cases.push({
      name: `x-memory-context-window ${JSON.stringify(value)}`,
      path: chat,
      headers: { 'x-memory-context-window': value },
      body,
      code: 'invalid_header',
    });
  }
  for (const value of ['has space', 'x'.repeat(256), 'caf\u00e9']) {
    cases.push({
      name: `Idempotency-Key ${JSON.stringify(value.slice(0, 20))}`,
      path: chat,
      headers: { 'idempotency-key': value },
      body,
      code: 'invalid_idempotency_key',
    });
  }
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'])
    cases.push({
      name: `${method} chat/completions`,
      method,
      path: chat,
      status: 404,
      code: 'not_found',
    });
  cases.push({
    name: 'typo in route',
    path: `/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completion`,
    body,
    status: 404,
    code: 'not_found',
  });
  cases.push({
    name: 'route without v1',
    path: `/partition/${scope.partition}/instance/${scope.instance}/chat/completions`,
    body,
    status: 404,
    code: 'not_found',
  });
  return cases;
}

function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 65_536));
      offset += 65_536;
    },
  });
}
