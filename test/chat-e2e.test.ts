import OpenAI from 'openai';
import { ulid } from 'ulid';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope, StoredMessage } from '../src/store/types';
import { startFakeUpstream, textReply, toolCallReply, type FakeUpstream } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

for (const factory of storeFactories()) {
  describe(`chat end to end (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    let scope: Scope;
    let client: OpenAI;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({ store, upstreamUrl: upstream.url });
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });
    beforeEach(() => {
      upstream.reset();
      scope = { partition: `p-${ulid()}`, instance: `i-${ulid()}` };
      client = new OpenAI({ apiKey: 'sk-test-client', baseURL: proxy.baseUrl(scope.partition, scope.instance), maxRetries: 0 });
    });

    /** Every stored turn of the scope, oldest first. */
    const stored = (target: Scope = scope): Promise<StoredMessage[]> => store.listMessages(target, { limit: 10_000 });

    it('answers a non-streaming request exactly as upstream sent it and stores both turns', async () => {
      upstream.onChat((request) => textReply(request, 'Paris is the capital of France.'));
      const completion = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Capital of France?' },
        ],
      });
      expect(completion.choices[0]?.message.content).toBe('Paris is the capital of France.');
      expect(completion.object).toBe('chat.completion');
      const turns = await stored();
      expect(turns.map((turn) => [turn.role, turn.content])).toEqual([
        ['user', 'Capital of France?'],
        ['assistant', 'Paris is the capital of France.'],
      ]);
      expect(turns[1]!.parentId).toBe(turns[0]!.id);
      expect((await store.getRespondedWith(scope, turns[0]!.id))?.id).toBe(turns[1]!.id);
      // The system message went upstream but is not a stored turn.
      expect(upstream.chatRequests()[0]!.body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    });

    it('streams chunk by chunk, unchanged, and stores the assembled answer', async () => {
      upstream.onChat((request) => textReply(request, 'One two three four five six seven.', { chunkDelayMs: 5 }));
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Count please' }],
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('One two three four five six seven.');
      expect(chunks.length).toBeGreaterThan(4);
      expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
      const turns = await stored();
      expect(turns.map((turn) => turn.content)).toEqual(['Count please', 'One two three four five six seven.']);
    });

    it('relays each recorded upstream stream byte for byte', async () => {
      for (const fixture of ['openai-text', 'ollama-text', 'vllm-text', 'llamacpp-text']) {
        upstream.onChat(() => ({ kind: 'fixture', name: fixture }));
        const response = await fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: `replay ${fixture}` }] }),
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toContain('text/event-stream');
        const text = await response.text();
        const { readFileSync } = await import('node:fs');
        const recorded = readFileSync(new URL(`./fixtures/${fixture}.sse`, import.meta.url), 'utf8');
        expect(dataLines(text)).toEqual(dataLines(recorded));
      }
    });

    it('passes fields it does not own through to upstream untouched, content arrays included', async () => {
      const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
      const body = {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }],
        tools,
        tool_choice: 'auto',
        response_format: { type: 'text' },
        temperature: 0.3,
        max_tokens: 50,
        max_completion_tokens: 60,
        n: 1,
        seed: 42,
        stream_options: { include_usage: true },
        stream: true,
        vendor_extension: { top_k: 5 },
      };
      const response = await fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.text();
      const received = upstream.chatRequests()[0]!.body;
      const { messages: sentMessages, tools: sentTools, ...sentFields } = body;
      const { messages: receivedMessages, tools: receivedTools, ...receivedFields } = received;
      expect(receivedFields).toEqual(sentFields);
      // The client's tools come first and unchanged; the proxy's memory tools follow them.
      expect(receivedTools.slice(0, sentTools.length)).toEqual(sentTools);
      expect(receivedMessages.at(-1)).toEqual(sentMessages[0]);
    });

    it('passes client tools and tool_calls through in both modes, and stores the tool round', async () => {
      const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
      upstream.onChat((request) => toolCallReply(request, [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }]));
      const first = await client.chat.completions.create({ model: 'gpt-4o-mini', tools, messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
      const call = first.choices[0]!.message.tool_calls![0]!;
      expect(call).toMatchObject({ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } });
      expect(first.choices[0]!.finish_reason).toBe('tool_calls');

      upstream.onChat((request) => textReply(request, 'It is 4 degrees in Oslo.'));
      const history = [
        { role: 'user' as const, content: 'Weather in Oslo?' },
        first.choices[0]!.message,
        { role: 'tool' as const, tool_call_id: 'call_1', content: '{"temp":4}' },
      ];
      const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', tools, stream: true, messages: history });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('It is 4 degrees in Oslo.');

      const turns = await stored();
      expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      const toolCalls = await store.getToolCallsByMessage(scope, turns[1]!.id);
      expect(toolCalls.map((stored) => [stored.callId, stored.toolName])).toEqual([['call_1', 'get_weather']]);
      // The second request carried the tool call and its result together.
      const sent = upstream.chatRequests()[1]!.body.messages;
      expect(sent.slice(-2).map((message: { role: string }) => message.role)).toEqual(['assistant', 'tool']);

      upstream.onChat((request) => toolCallReply(request, [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' }]));
      const streamed = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        tools,
        stream: true,
        messages: [...history, { role: 'assistant', content: 'It is 4 degrees in Oslo.' }, { role: 'user', content: 'And Rome?' }],
      });
      const deltas = [];
      let finish: string | null | undefined;
      for await (const chunk of streamed) {
        deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(deltas[0]).toMatchObject({ index: 0, id: 'call_2', function: { name: 'get_weather' } });
      expect(deltas.map((delta) => delta.function?.arguments ?? '').join('')).toBe('{"city":"Rome"}');
      expect(finish).toBe('tool_calls');
    });

    it('stores each turn once across retries, full-history resends and regenerations', async () => {
      let answer = 0;
      upstream.onChat((request) => textReply(request, `answer ${++answer}`));
      const u1 = { role: 'user' as const, content: 'first question' };
      const a1 = await client.chat.completions.create({ model: 'm', messages: [u1] });
      // A retry of the very same request stores nothing new but the regenerated answer.
      await client.chat.completions.create({ model: 'm', messages: [u1] });
      const afterRetry = await stored();
      expect(afterRetry.filter((turn) => turn.role === 'user')).toHaveLength(1);

      const history = [u1, a1.choices[0]!.message, { role: 'user' as const, content: 'second question' }];
      const a2 = await client.chat.completions.create({ model: 'm', messages: history });
      const history2 = [...history, a2.choices[0]!.message, { role: 'user' as const, content: 'third question' }];
      await client.chat.completions.create({ model: 'm', messages: history2 });
      // Regenerate the last answer: same history again.
      await client.chat.completions.create({ model: 'm', messages: history2 });

      const turns = await stored();
      const users = turns.filter((turn) => turn.role === 'user').map((turn) => turn.content);
      expect(users).toEqual(['first question', 'second question', 'third question']);
      const third = turns.find((turn) => turn.content === 'third question')!;
      const answersToThird = (await store.getChildren(scope, third.id)).map((turn) => turn.content);
      expect(answersToThird).toHaveLength(2);
      expect(new Set(turns.map((turn) => turn.seq)).size).toBe(turns.length);

      // Editing the second question makes a sibling branch, not an overwrite.
      await client.chat.completions.create({ model: 'm', messages: [u1, a1.choices[0]!.message, { role: 'user', content: 'second question, edited' }] });
      const second = turns.find((turn) => turn.content === 'second question')!;
      const edited = (await stored()).find((turn) => turn.content === 'second question, edited')!;
      expect(edited.parentId).toBe(second.parentId);
      expect((await stored()).find((turn) => turn.id === second.id)?.content).toBe('second question');
    });

    it('lets a client that sends only the new message continue the latest turn', async () => {
      upstream.onChat((request) => textReply(request, `reply to ${request.body.messages.at(-1).content}`));
      await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'my name is Ada' }] });
      await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'what is my name?' }] });
      const sent = upstream.chatRequests()[1]!.body.messages.map((message: { content: string }) => message.content);
      expect(sent).toEqual(['my name is Ada', 'reply to my name is Ada', 'what is my name?']);
      const turns = await stored();
      expect(turns.map((turn) => turn.parentId)).toEqual([null, turns[0]!.id, turns[1]!.id, turns[2]!.id]);
    });

    it('keeps partitions and instances apart', async () => {
      upstream.onChat((request) => textReply(request, 'noted'));
      const other = { partition: scope.partition, instance: `other-${ulid()}` };
      const otherPartition = { partition: `q-${ulid()}`, instance: scope.instance };
      await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'alice secret 1234' }] });
      for (const target of [other, otherPartition]) {
        const otherClient = new OpenAI({ apiKey: 'k', baseURL: proxy.baseUrl(target.partition, target.instance), maxRetries: 0 });
        await otherClient.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hello' }] });
        expect(JSON.stringify(upstream.chatRequests().at(-1)!.body.messages)).not.toContain('alice secret');
        expect((await stored(target)).map((turn) => turn.content)).toEqual(['hello', 'noted']);
      }
      // The plain /v1 route with scope headers reaches the same instance as the path.
      const viaHeaders = new OpenAI({ apiKey: 'k', baseURL: `${proxy.origin}/v1`, maxRetries: 0, defaultHeaders: { 'x-memory-partition': scope.partition, 'x-memory-instance': scope.instance } });
      await viaHeaders.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'via headers' }] });
      expect(JSON.stringify(upstream.chatRequests().at(-1)!.body.messages)).toContain('alice secret 1234');
    });

    it('forwards the client Authorization header when the proxy has no key of its own, and names itself', async () => {
      await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      expect(upstream.chatRequests()[0]!.headers['authorization']).toBe('Bearer sk-test-client');
      expect(upstream.chatRequests()[0]!.headers['user-agent']).toBe('memory-proxy');
    });

    it('sets the memory headers on every answer', async () => {
      const response = await fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'my-request-1' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBe('my-request-1');
      expect(Number(response.headers.get('x-memory-context-tokens'))).toBeGreaterThan(0);
      expect(response.headers.get('x-memory-strategy')).toBeTruthy();
    });
  });
}

/** The data payloads of an SSE body, in order. */
function dataLines(body: string): string[] {
  return body
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
}
