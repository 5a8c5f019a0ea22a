import { createOpenAI } from '@ai-sdk/openai';
import { stepCountIs, streamText, tool } from 'ai';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MemoryStore } from '../src/store/memory-store';
import { startFakeUpstream, textReply, toolCallReply, type FakeUpstream, type RecordedRequest } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const hasToolResult = (request: RecordedRequest, id: string) =>
  (request.body.messages as { role: string; tool_call_id?: string }[]).some((message) => message.role === 'tool' && message.tool_call_id === id);

describe('the Vercel AI SDK through a tool-loop request', () => {
  let store: MemoryStore;
  let upstream: FakeUpstream;
  let proxy: RunningProxy;

  beforeAll(async () => {
    store = await storeFactories()[0]!.create();
    upstream = await startFakeUpstream();
    proxy = await startProxy({ store, upstreamUrl: upstream.url, env: { DEFAULT_CONTEXT_WINDOW: '16384' } });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    await store?.close();
  });

  it('streams text after a hidden memory round and a client tool the SDK runs itself', async () => {
    const scope = { partition: `ai-${ulid()}`, instance: 'sdk' };
    upstream.onChat((request) => {
      if (hasToolResult(request, 'call_weather')) return textReply(request, 'It is 21 degrees in Lisbon, and you said you like it warm.', { chunkDelayMs: 5 });
      if (hasToolResult(request, 'call_memory')) return toolCallReply(request, [{ id: 'call_weather', name: 'get_weather', arguments: '{"city":"Lisbon"}' }]);
      return toolCallReply(request, [{ id: 'call_memory', name: 'search_and_retrieve', arguments: '{"query":"weather preferences"}' }]);
    });
    const provider = createOpenAI({ baseURL: proxy.baseUrl(scope.partition, scope.instance), apiKey: 'sk-ai-sdk' });
    const cities: string[] = [];
    const result = streamText({
      model: provider.chat('local-test-model'),
      prompt: 'What is the weather in Lisbon?',
      tools: {
        get_weather: tool({
          description: 'Current weather for a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            cities.push(city);
            return { city, celsius: 21 };
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('It is 21 degrees in Lisbon, and you said you like it warm.');
    expect(cities).toEqual(['Lisbon']);
    const steps = await result.steps;
    expect(steps[0]!.toolCalls.map((call) => call.toolName)).toEqual(['get_weather']);
    // Three upstream calls: the hidden memory round, the client tool round, the final answer.
    expect(upstream.chatRequests()).toHaveLength(3);
    const turns = await store.listMessages(scope, { limit: 20 });
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
