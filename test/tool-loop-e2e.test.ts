import OpenAI from 'openai';
import { ulid } from 'ulid';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import { errorReply, startFakeUpstream, textReply, toolCallReply, type FakeUpstream, type RecordedRequest } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

type Sent = { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };

const toolNames = (request: RecordedRequest): string[] => ((request.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
const lastToolResult = (request: RecordedRequest): string => ((request.body.messages as Sent[]).filter((message) => message.role === 'tool').at(-1)?.content ?? '') as string;

for (const factory of storeFactories()) {
  describe(`memory tool loop (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    let scope: Scope;
    let client: OpenAI;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({ store, upstreamUrl: upstream.url, env: { DEFAULT_CONTEXT_WINDOW: '16384' } });
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });
    beforeEach(() => {
      upstream.reset();
      scope = { partition: `p-${ulid()}`, instance: `i-${ulid()}` };
      client = new OpenAI({ apiKey: 'k', baseURL: proxy.baseUrl(scope.partition, scope.instance), maxRetries: 0 });
    });

    async function plant(text: string): Promise<string> {
      upstream.onChat((request) => textReply(request, 'Noted.'));
      await client.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: text }] });
      await proxy.background.drain();
      upstream.reset();
      const turns = await store.listMessages(scope, { limit: 100 });
      return turns.find((turn) => turn.content === text)!.id;
    }

    it('runs a memory call against the graph and returns only the final answer (non-streaming)', async () => {
      const factId = await plant('My sister Ingrid lives in Bergen and works as a marine biologist.');
      upstream.onChat((request, index) => {
        if (index === 0) {
          expect(toolNames(request)).toContain('search_and_retrieve');
          return toolCallReply(request, [{ id: 'call_m1', name: 'get_message_by_id', arguments: JSON.stringify({ message_id: factId }) }]);
        }
        return textReply(request, 'Ingrid is a marine biologist in Bergen.');
      });
      const response = await client.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'What does my sister do?' }] }).withResponse();
      expect(response.data.choices[0]!.message.content).toBe('Ingrid is a marine biologist in Bergen.');
      expect(response.data.choices[0]!.message.tool_calls).toBeUndefined();
      expect(response.response.headers.get('x-memory-tool-rounds')).toBe('1');
      // The model received the stored turn as the tool result.
      expect(lastToolResult(upstream.chatRequests()[1]!)).toContain('marine biologist');
      expect(upstream.chatRequests()).toHaveLength(2);
      // The round is stored as a ToolCall CALLED_BY the answer, and the tree holds only real turns.
      const turns = await store.listMessages(scope, { limit: 100 });
      expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      const calls = await store.getToolCallsByMessage(scope, turns[3]!.id);
      expect(calls.map((call) => call.toolName)).toEqual(['get_message_by_id']);
      expect(calls[0]!.result).toContain('marine biologist');
      // The answer's background work embedded its call, as it did its turns.
      await proxy.background.drain();
      const waiting = (await store.pendingEmbeddings(10_000)).map((item) => item.id);
      expect(waiting).not.toContain(calls[0]!.id);
      expect(waiting).not.toContain(turns[3]!.id);
    });

    it('streams only the final round, its first token arriving before that round has finished', async () => {
      await plant('Our wifi password at the cabin is fjord-otter-77.');
      upstream.onChat((request, index) =>
        index === 0
          ? toolCallReply(request, [{ id: 'call_s1', name: 'vector_search', arguments: JSON.stringify({ query: 'cabin wifi password', limit: 3 }) }])
          : textReply(request, 'The cabin wifi password is fjord-otter-77, as you told me.', { chunkDelayMs: 60 }),
      );
      const started = Date.now();
      const stream = await client.chat.completions.create({ model: 'local-test-model', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'What was the cabin wifi password?' }] });
      let firstAt = 0;
      let text = '';
      let usage = 0;
      const seenToolCalls: unknown[] = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content && firstAt === 0) firstAt = Date.now();
        text += delta?.content ?? '';
        if (delta?.tool_calls) seenToolCalls.push(delta.tool_calls);
        if (chunk.usage) usage = chunk.usage.total_tokens;
      }
      const endedAt = Date.now();
      expect(text).toBe('The cabin wifi password is fjord-otter-77, as you told me.');
      expect(seenToolCalls).toEqual([]);
      expect(firstAt - started).toBeLessThan(endedAt - started - 300);
      expect(lastToolResult(upstream.chatRequests()[1]!)).toContain('fjord-otter-77');
      // Usage adds up both rounds.
      expect(usage).toBeGreaterThan(0);
      expect(usage).toBeGreaterThan((upstream.chatRequests().length - 1) * 1);
    });

    it('stops at the depth limit and asks for a final answer without tools', async () => {
      upstream.onChat((request, index) =>
        toolNames(request).includes('vector_search')
          ? toolCallReply(request, [{ id: `call_d${index}`, name: 'vector_search', arguments: JSON.stringify({ query: `attempt ${index}` }) }])
          : textReply(request, 'final without tools'),
      );
      const completion = await client.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'dig deep' }] });
      expect(completion.choices[0]!.message.content).toBe('final without tools');
      const requests = upstream.chatRequests();
      expect(requests).toHaveLength(9);
      expect(toolNames(requests.at(-1)!)).toEqual([]);
    });

    it('breaks a loop of repeated identical calls', async () => {
      upstream.onChat((request) =>
        toolNames(request).length > 0 ? toolCallReply(request, [{ id: `call_${ulid()}`, name: 'vector_search', arguments: '{"query":"same"}' }]) : textReply(request, 'gave up repeating'),
      );
      const completion = await client.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'loop please' }] });
      expect(completion.choices[0]!.message.content).toBe('gave up repeating');
      expect(upstream.chatRequests()).toHaveLength(3);
    });

    it('stops when the wall-time limit passes', async () => {
      const slow = await startProxy({ store, upstreamUrl: upstream.url, env: { MEMORY_TOOLS_TIMEOUT_MS: '150', DEFAULT_CONTEXT_WINDOW: '16384' } });
      try {
        upstream.onChat((request, index) =>
          toolNames(request).length > 0 ? { ...toolCallReply(request, [{ id: `call_t${index}`, name: 'vector_search', arguments: JSON.stringify({ query: `q${index}` }) }]), delayMs: 100 } : textReply(request, 'out of time'),
        );
        const timed = new OpenAI({ apiKey: 'k', baseURL: slow.baseUrl(scope.partition, scope.instance), maxRetries: 0 });
        const completion = await timed.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'slow search' }] });
        expect(completion.choices[0]!.message.content).toBe('out of time');
        expect(upstream.chatRequests().length).toBeLessThan(5);
      } finally {
        await slow.close();
      }
    });

    it('stops when fewer than 256 tokens are left', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(await plant(`Travel diary ${i}: ${'the northern lights over the fjord were green and violet '.repeat(40)}`));
      const tight = await startProxy({ store, upstreamUrl: upstream.url, env: { DEFAULT_CONTEXT_WINDOW: '4096' } });
      try {
        upstream.onChat((request, index) =>
          toolNames(request).length > 0 ? toolCallReply(request, [{ id: `call_b${index}`, name: 'get_messages_by_ids', arguments: JSON.stringify({ message_ids: index % 2 ? ids : [...ids].reverse() }) }]) : textReply(request, 'budget spent'),
        );
        const tightClient = new OpenAI({ apiKey: 'k', baseURL: tight.baseUrl(scope.partition, scope.instance), maxRetries: 0 });
        const completion = await tightClient.chat.completions.create({ model: 'local-test-model', max_tokens: 100, messages: [{ role: 'user', content: 'What did I see in the sky?' }] });
        expect(completion.choices[0]!.message.content).toBe('budget spent');
        expect(upstream.chatRequests().length).toBeLessThan(9);
        expect(toolNames(upstream.chatRequests().at(-1)!)).toEqual([]);
        // A small window is offered only the essential tools, so they leave room for the conversation.
        expect(toolNames(upstream.chatRequests()[0]!)).toContain('search_and_retrieve');
        expect(toolNames(upstream.chatRequests()[0]!)).not.toContain('get_period_messages');
        // The results filled what was left, so the loop ended early rather than at the depth limit.
        expect(lastToolResult(upstream.chatRequests().at(-1)!)).toContain('northern lights');
      } finally {
        await tight.close();
      }
    });

    it('offers the largest set of memory tools that fits in a quarter of the window', async () => {
      const offered = async (window: number) => {
        upstream.reset();
        upstream.onChat((request) => textReply(request, 'ok'));
        await client.chat.completions.create(
          { model: 'local-test-model', max_tokens: 100, messages: [{ role: 'user', content: `Which tools at ${window}?` }] },
          { headers: { 'x-memory-context-window': String(window) } },
        );
        return toolNames(upstream.chatRequests()[0]!).sort();
      };
      expect(await offered(16384)).toContain('get_period_messages');
      const essential = await offered(4096);
      expect(essential).toContain('core_memory_append');
      expect(essential).not.toContain('get_period_messages');
      // At 2,048 tokens the essential set alone would take 47% of the window.
      expect(await offered(2048)).toEqual(['get_messages_by_ids', 'search_and_retrieve']);
    });

    it('passes a client tool call through untouched, and in a mixed round returns only the client calls', async () => {
      const tools = [{ type: 'function' as const, function: { name: 'send_email', parameters: { type: 'object', properties: { to: { type: 'string' } } } } }];
      upstream.onChat((request) => toolCallReply(request, [{ id: 'call_c1', name: 'send_email', arguments: '{"to":"ada@example.com"}' }]));
      const direct = await client.chat.completions.create({ model: 'local-test-model', tools, messages: [{ role: 'user', content: 'email Ada' }] });
      expect(direct.choices[0]!.message.tool_calls).toEqual([{ id: 'call_c1', type: 'function', function: { name: 'send_email', arguments: '{"to":"ada@example.com"}' } }]);
      expect(toolNames(upstream.chatRequests()[0]!)).toContain('send_email');
      // Stored as a ToolCall of the answer, and embedded by the answer's background work.
      await proxy.background.drain();
      const answer = (await store.listMessages(scope, { limit: 100 })).at(-1)!;
      const [clientCall] = await store.getToolCallsByMessage(scope, answer.id);
      expect(clientCall?.toolName).toBe('send_email');
      expect((await store.pendingEmbeddings(10_000)).map((item) => item.id)).not.toContain(clientCall!.id);

      upstream.reset();
      upstream.onChat((request) =>
        toolCallReply(request, [
          { id: 'call_m', name: 'vector_search', arguments: '{"query":"Ada email"}' },
          { id: 'call_c2', name: 'send_email', arguments: '{"to":"ada@example.com"}' },
        ]),
      );
      for (const stream of [false, true]) {
        upstream.reset();
        upstream.onChat((request) =>
          toolCallReply(request, [
            { id: 'call_m', name: 'vector_search', arguments: '{"query":"Ada email"}' },
            { id: 'call_c2', name: 'send_email', arguments: '{"to":"ada@example.com"}' },
          ]),
        );
        let calls: { id?: string; function?: { name?: string } }[] = [];
        if (stream) {
          const streamed = await client.chat.completions.create({ model: 'local-test-model', tools, stream: true, messages: [{ role: 'user', content: 'email Ada again' }] });
          for await (const chunk of streamed) calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
        } else {
          const mixed = await client.chat.completions.create({ model: 'local-test-model', tools, messages: [{ role: 'user', content: 'email Ada again' }] });
          calls = mixed.choices[0]!.message.tool_calls ?? [];
        }
        expect(calls.map((call) => call.function?.name)).toEqual(['send_email']);
        expect(upstream.chatRequests()).toHaveLength(1);
      }
    });

    it('lets a client tool with a memory tool name win', async () => {
      const tools = [{ type: 'function' as const, function: { name: 'vector_search', parameters: { type: 'object', properties: {} } } }];
      upstream.onChat((request) => toolCallReply(request, [{ id: 'call_own', name: 'vector_search', arguments: '{}' }]));
      const completion = await client.chat.completions.create({ model: 'local-test-model', tools, messages: [{ role: 'user', content: 'use my own search' }] });
      expect(completion.choices[0]!.message.tool_calls![0]!.id).toBe('call_own');
      expect(toolNames(upstream.chatRequests()[0]!).filter((name) => name === 'vector_search')).toHaveLength(1);
      expect(upstream.chatRequests()).toHaveLength(1);
    });

    it('returns tool errors to the model as results, never as a failed request', async () => {
      upstream.onChat((request, index) =>
        index === 0 ? toolCallReply(request, [{ id: 'call_bad', name: 'get_message_by_id', arguments: '{not json' }]) : textReply(request, 'recovered'),
      );
      const completion = await client.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'break it' }] });
      expect(completion.choices[0]!.message.content).toBe('recovered');
      expect(lastToolResult(upstream.chatRequests()[1]!).toLowerCase()).toContain('error');
    });

    it('pins core memory written in one request into the next, and refuses it past its share', async () => {
      upstream.onChat((request, index) =>
        index === 0 ? toolCallReply(request, [{ id: 'call_core', name: 'core_memory_append', arguments: JSON.stringify({ block: 'human', content: 'Prefers metric units.' }) }]) : textReply(request, 'Saved.'),
      );
      await client.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'Remember I prefer metric units.' }] });
      upstream.reset();
      await client.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'How far is 5 miles?' }] });
      const pinned = (upstream.chatRequests()[0]!.body.messages as Sent[]).find((message) => message.role === 'system' && (message.content ?? '').includes('Prefers metric units.'));
      expect(pinned).toBeDefined();

      upstream.reset();
      upstream.onChat((request, index) =>
        index === 0 ? toolCallReply(request, [{ id: 'call_big', name: 'core_memory_append', arguments: JSON.stringify({ block: 'notes', content: 'lorem ipsum '.repeat(1650) }) }]) : textReply(request, 'Too big.'),
      );
      await client.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'Remember this essay.' }] });
      expect(lastToolResult(upstream.chatRequests()[1]!).toLowerCase()).toMatch(/25%|refus|too|exceed|left/);
      expect((await store.getCoreMemory(scope)).find((block) => block.name === 'notes')).toBeUndefined();
    });

    it('offers no tools when MEMORY_TOOLS=false, and none to a model that refused them', async () => {
      const off = await startProxy({ store, upstreamUrl: upstream.url, env: { MEMORY_TOOLS: 'false' } });
      try {
        const offClient = new OpenAI({ apiKey: 'k', baseURL: off.baseUrl(scope.partition, scope.instance), maxRetries: 0 });
        await offClient.chat.completions.create({ model: 'local-test-model', messages: [{ role: 'user', content: 'no tools' }] });
        expect(upstream.chatRequests()[0]!.body.tools).toBeUndefined();
      } finally {
        await off.close();
      }
      upstream.reset();
      upstream.onChat((request) =>
        request.body.tools ? errorReply(400, 'This model does not support tools', { param: 'tools' }) : textReply(request, 'plain answer'),
      );
      const first = await client.chat.completions.create({ model: 'toolless-model', messages: [{ role: 'user', content: 'hello' }] });
      expect(first.choices[0]!.message.content).toBe('plain answer');
      expect(upstream.chatRequests()).toHaveLength(2);
      await client.chat.completions.create({ model: 'toolless-model', messages: [{ role: 'user', content: 'again' }] });
      expect(upstream.chatRequests()).toHaveLength(3);
      expect(upstream.chatRequests()[2]!.body.tools).toBeUndefined();
    });
  });
}
