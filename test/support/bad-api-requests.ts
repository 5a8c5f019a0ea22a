import type { BadCase, CorpusScope } from './corpus-types';

/** Refused management API requests (/api/v1): the same kinds of bad input, and ids that do not exist. */
export function badApiRequests(scope: CorpusScope): BadCase[] {
  const instance = `/api/v1/partitions/${scope.partition}/instances/${scope.instance}`;
  const messages = `${instance}/messages`;
  const cases: BadCase[] = [];
  const send = (
    name: string,
    method: string,
    path: string,
    body?: unknown,
    expected: Omit<BadCase, 'name' | 'path' | 'method' | 'body'> = {},
  ) =>
    cases.push({
      name: `api: ${name}`,
      method,
      path,
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      ...expected,
    });

  for (const body of ['{"messages": [', 'not json', '', '[]', 'null', '42']) {
    send(`append body ${JSON.stringify(body)}`, 'POST', messages, body);
    send(`search body ${JSON.stringify(body)}`, 'POST', `${instance}/search`, body);
    send(
      `edit body ${JSON.stringify(body)}`,
      'PATCH',
      `${messages}/01ARZ3NDEKTSV4RRFFQ69G5FAV`,
      body,
    );
    send(`fork body ${JSON.stringify(body)}`, 'POST', `${instance}/fork`, body);
  }
  for (const value of [
    42,
    'hi',
    {},
    null,
    [],
    [{ role: 'wizard', content: 'x' }],
    [{ role: 'user', content: 42 }],
    [{ role: 'system', content: 'no' }],
    [{ role: 'tool', tool_call_id: 'nope', content: 'x' }],
  ]) {
    send(`append messages ${JSON.stringify(value)}`, 'POST', messages, { messages: value });
  }
  for (const parent of [42, {}, true, 'no-such-turn'])
    send(`append parent_id ${JSON.stringify(parent)}`, 'POST', messages, {
      parent_id: parent,
      messages: [{ role: 'user', content: 'x' }],
    });
  for (const query of [undefined, 42, null, {}, []])
    send(`search query ${JSON.stringify(query) ?? 'missing'}`, 'POST', `${instance}/search`, {
      query,
    });
  for (const limit of [0, -1, 101, 1.5, 'ten', {}])
    send(`search limit ${JSON.stringify(limit)}`, 'POST', `${instance}/search`, {
      query: 'x',
      limit,
    });
  for (const [name, query] of [
    ['as_of_seq x', 'as_of_seq=x'],
    ['as_of_seq 0', 'as_of_seq=0'],
    ['token_budget -5', 'token_budget=-5'],
    ['as_of_seq with leaf', 'as_of_seq=1&leaf=abc'],
    ['include_deleted maybe', 'include_deleted=maybe'],
    ['role wizard', 'role=wizard'],
  ]) {
    send(`list ${name}`, 'GET', `${messages}?${query}`);
  }
  for (const id of ['no-such-id', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '%27%7D)-%5Br%5D-()']) {
    send(`read unknown message ${id}`, 'GET', `${messages}/${id}`);
    send(`delete unknown message ${id}`, 'DELETE', `${messages}/${id}`);
    send(`restore unknown message ${id}`, 'POST', `${messages}/${id}/restore`);
  }
  send('edit unknown message', 'PATCH', `${messages}/01ARZ3NDEKTSV4RRFFQ69G5FAV`, {
    content: 'new text',
  });
  send('fork without message_id', 'POST', `${instance}/fork`, { new_instance: 'copy' });
  send('fork into a hostile instance name', 'POST', `${instance}/fork`, {
    message_id: 'x',
    new_instance: '../x',
  });
  send('fork from an unknown message', 'POST', `${instance}/fork`, {
    message_id: 'no-such-turn',
    new_instance: 'copy',
  });
  send('export with an invalid partition', 'GET', '/api/v1/export?partition=a%20b');
  send(
    'export an instance without its partition',
    'GET',
    `/api/v1/export?instance=${scope.instance}`,
  );
  for (const name of ['..%2Fx', 'a%20b', "x'%7D)-%5Br%5D-()", '%D0%B0lice', 'x'.repeat(129)]) {
    send(`instances of partition ${name}`, 'GET', `/api/v1/partitions/${name}/instances`);
    send(
      `messages of partition ${name}`,
      'GET',
      `/api/v1/partitions/${name}/instances/${scope.instance}/messages`,
    );
    send(
      `search in instance ${name}`,
      'POST',
      `/api/v1/partitions/${scope.partition}/instances/${name}/search`,
      { query: 'x' },
    );
  }
  return cases;
}
