import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ChatAccumulator } from './chat-accumulator';
import { parseSseStream, SSE_DONE } from './sse-parse';

const FIXTURES = new URL('../../test/fixtures/', import.meta.url);

/** Replays a recorded stream in 7-byte reads through the one SSE boundary into an accumulator. */
async function replay(name: string): Promise<{ accumulator: ChatAccumulator; events: number }> {
  const bytes = readFileSync(new URL(`${name}.sse`, FIXTURES));
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, (offset += 7)));
    },
  });
  const accumulator = new ChatAccumulator();
  let events = 0;
  for await (const event of parseSseStream(body)) {
    events++;
    if (event.data !== SSE_DONE) accumulator.add(JSON.parse(event.data));
  }
  return { accumulator, events };
}

/** A chunk with one choice, as OpenAI shapes it. */
function chunk(
  delta: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
  };
}

describe('ChatAccumulator on recorded streams', () => {
  it('assembles the OpenAI text stream and its usage chunk', async () => {
    const { accumulator, events } = await replay('openai-text');
    expect(events).toBe(19);
    expect(accumulator.toMessage()).toEqual({
      role: 'assistant',
      content: 'Paris is the capital of France — known as "la Ville Lumière".',
    });
    expect(accumulator.finishReason).toBe('stop');
    expect(accumulator.hasToolCalls).toBe(false);
    expect(accumulator.usage).toMatchObject({
      prompt_tokens: 24,
      completion_tokens: 15,
      total_tokens: 39,
    });
    const completion = accumulator.toCompletion();
    expect(completion).toMatchObject({
      id: 'chatcmpl-BcRkT2vQx8LmN4pZs7YwE1uHjA9fD',
      object: 'chat.completion',
      created: 1748532011,
      model: 'gpt-4o-mini-2024-07-18',
      service_tier: 'default',
      system_fingerprint: 'fp_34a54ae93c',
      usage: { total_tokens: 39, prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: accumulator.toMessage().content, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ]);
    // Stream-only padding must not reach a JSON answer.
    expect(completion).not.toHaveProperty('obfuscation');
  });

  it('merges two parallel OpenAI tool calls streamed in fragments', async () => {
    const { accumulator } = await replay('openai-tool-calls');
    expect(accumulator.toMessage()).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_Wz3xQ8mVb2LkR7nYp4TsJ1eH',
          type: 'function',
          function: {
            name: 'get_weather',
            arguments: '{"location":"Paris, France","unit":"celsius"}',
          },
        },
        {
          id: 'call_Nf6pK2dXq9YvB4mTr8LcW3sA',
          type: 'function',
          function: {
            name: 'get_weather',
            arguments: '{"location":"Tokyo, Japan","unit":"celsius"}',
          },
        },
      ],
    });
    expect(accumulator.hasToolCalls).toBe(true);
    expect(accumulator.finishReason).toBe('tool_calls');
    expect(accumulator.usage).toBeNull();
    expect(accumulator.toCompletion()).not.toHaveProperty('usage');
  });

  it('assembles the Ollama stream: role on every delta, HTML escapes, emoji, usage chunk', async () => {
    const { accumulator } = await replay('ollama-text');
    expect(accumulator.toMessage()).toEqual({
      role: 'assistant',
      content: "Hello! I'm doing well, thanks for asking. Ready for some Q&A? 😊",
    });
    expect(accumulator.finishReason).toBe('stop');
    expect(accumulator.usage).toEqual({
      prompt_tokens: 31,
      completion_tokens: 20,
      total_tokens: 51,
    });
    // `created` ticks between Ollama's chunks; the completion keeps the first.
    expect(accumulator.toCompletion()).toMatchObject({
      id: 'chatcmpl-417',
      created: 1748532302,
      model: 'llama3.2:3b',
      system_fingerprint: 'fp_ollama',
    });
  });

  it("assembles the vLLM stream and keeps vLLM's stop_reason on the choice", async () => {
    const { accumulator } = await replay('vllm-text');
    expect(accumulator.toMessage().content).toBe(
      'The Pythagorean theorem states that a² + b² = c² for any right triangle.',
    );
    expect(accumulator.usage).toEqual({
      prompt_tokens: 42,
      total_tokens: 63,
      completion_tokens: 21,
    });
    const completion = accumulator.toCompletion();
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', stop_reason: 128009 });
    expect(completion).not.toHaveProperty('system_fingerprint');
  });

  it('assembles the llama.cpp stream with usage on the finish chunk and keeps timings', async () => {
    const { accumulator } = await replay('llamacpp-text');
    expect(accumulator.toMessage()).toEqual({
      role: 'assistant',
      content: 'Here are the three primary colors:\n\n1. Red\n2. Blue\n3. Yellow',
    });
    expect(accumulator.finishReason).toBe('stop');
    expect(accumulator.usage).toEqual({
      completion_tokens: 19,
      prompt_tokens: 28,
      total_tokens: 47,
    });
    expect(accumulator.toCompletion()).toMatchObject({
      model: 'Qwen2.5-7B-Instruct-Q4_K_M.gguf',
      system_fingerprint: 'b5581-71e74a3a',
      timings: { predicted_n: 19 },
    });
  });
});

describe('ChatAccumulator on provider quirks', () => {
  it('takes a whole tool call from a single delta', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(
      chunk({
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            index: 0,
            id: 'call_1',
            type: 'function',
            function: { name: 'lookup', arguments: '{"q":"x"}' },
          },
        ],
      }),
    );
    accumulator.add(chunk({}, { finish_reason: 'tool_calls' }));
    expect(accumulator.toMessage()).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
      ],
    });
  });

  it('keys calls by id when the provider omits index, and continues id-less fragments', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(
      chunk({
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'first', arguments: '{}' } },
          { id: 'b', type: 'function', function: { name: 'second', arguments: '{"n":' } },
        ],
      }),
    );
    accumulator.add(chunk({ tool_calls: [{ function: { arguments: '1}' } }] }));
    accumulator.add(
      chunk({ tool_calls: [{ id: 'c', function: { name: 'third', arguments: '{"k":' } }] }),
    );
    accumulator.add(chunk({ tool_calls: [{ id: 'c', function: { arguments: 'true}' } }] }));
    expect(accumulator.toMessage().tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'first', arguments: '{}' } },
      { id: 'b', type: 'function', function: { name: 'second', arguments: '{"n":1}' } },
      { id: 'c', type: 'function', function: { name: 'third', arguments: '{"k":true}' } },
    ]);
  });

  it('keeps the first id and name, orders by index, and stringifies object arguments', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(
      chunk({ tool_calls: [{ index: 1, id: 'call_b', function: { name: 'b', arguments: '' } }] }),
    );
    accumulator.add(
      chunk({
        tool_calls: [{ index: 0, id: 'call_a', function: { name: 'a', arguments: { x: 1 } } }],
      }),
    );
    // Some servers repeat id and name on every fragment; they must not be appended.
    accumulator.add(
      chunk({
        tool_calls: [{ index: 1, id: 'call_b', function: { name: 'b', arguments: '{"y":2}' } }],
      }),
    );
    expect(accumulator.toMessage().tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
      { id: 'call_b', type: 'function', function: { name: 'b', arguments: '{"y":2}' } },
    ]);
  });

  it('mints one stable id for a call that arrived without one', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] }),
    );
    const first = accumulator.toMessage().tool_calls?.[0]?.id;
    expect(first).toMatch(/^call_\w+$/);
    expect(accumulator.toMessage().tool_calls?.[0]?.id).toBe(first);
    expect(accumulator.toCompletion().choices[0]?.message.tool_calls?.[0]?.id).toBe(first);
  });

  it('keeps every choice of an n>1 stream, choice 0 as the answer', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add({
      id: 'x',
      choices: [
        { index: 1, delta: { role: 'assistant', content: 'B' }, finish_reason: null },
        { index: 0, delta: { role: 'assistant', content: 'A' }, finish_reason: null },
      ],
    });
    accumulator.add({
      id: 'x',
      choices: [{ index: 1, delta: { content: '2' }, finish_reason: 'length' }],
    });
    accumulator.add({
      id: 'x',
      choices: [{ index: 0, delta: { content: '1' }, finish_reason: 'stop' }],
    });
    expect(accumulator.toMessage()).toEqual({ role: 'assistant', content: 'A1' });
    expect(accumulator.toMessage(1)).toEqual({ role: 'assistant', content: 'B2' });
    expect(accumulator.finishReason).toBe('stop');
    expect(
      accumulator.toCompletion().choices.map((choice) => [choice.index, choice.finish_reason]),
    ).toEqual([
      [0, 'stop'],
      [1, 'length'],
    ]);
  });

  it('reports a refusal with null content', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(chunk({ role: 'assistant', content: null, refusal: '' }));
    accumulator.add(chunk({ refusal: "I'm sorry, " }));
    accumulator.add(chunk({ refusal: "I can't help with that." }, { finish_reason: 'stop' }));
    expect(accumulator.toMessage()).toEqual({
      role: 'assistant',
      content: null,
      refusal: "I'm sorry, I can't help with that.",
    });
  });

  it('ignores junk, survives missing fields and takes ids from after an Azure preamble', () => {
    const accumulator = new ChatAccumulator();
    for (const junk of [null, 'text', 42, [], { choices: 'no' }, { choices: [null, 'x'] }])
      accumulator.add(junk);
    accumulator.add({
      id: '',
      model: '',
      created: 0,
      choices: [],
      prompt_filter_results: [{ prompt_index: 0 }],
    });
    accumulator.add({
      id: 'chatcmpl-az',
      created: 1748532011,
      model: 'gpt-4o',
      choices: [{ delta: { content: 'ok' } }],
    });
    accumulator.add({ choices: [{ index: 0, finish_reason: 'stop' }] });
    expect(accumulator.toMessage()).toEqual({ role: 'assistant', content: 'ok' });
    expect(accumulator.toCompletion()).toMatchObject({
      id: 'chatcmpl-az',
      created: 1748532011,
      model: 'gpt-4o',
      prompt_filter_results: [{ prompt_index: 0 }],
      choices: [{ index: 0, finish_reason: 'stop' }],
    });
  });

  it('records an error frame sent inside the stream', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(chunk({ content: 'partial' }));
    accumulator.add({ error: { message: 'The server had an error', type: 'server_error' } });
    expect(accumulator.error).toEqual({ message: 'The server had an error', type: 'server_error' });
    expect(accumulator.toMessage().content).toBe('partial');
    expect(accumulator.toCompletion()).not.toHaveProperty('error');
  });

  it('keeps reasoning out of the history message but in the completion', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(chunk({ role: 'assistant', reasoning_content: 'Think ' }));
    accumulator.add(chunk({ reasoning_content: 'hard.' }));
    accumulator.add(
      chunk({ content: [{ type: 'text', text: 'Answer' }] }, { finish_reason: 'stop' }),
    );
    expect(accumulator.toMessage()).toEqual({ role: 'assistant', content: 'Answer' });
    expect(accumulator.toCompletion().choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'Answer',
      refusal: null,
      reasoning_content: 'Think hard.',
    });
  });

  it('concatenates logprobs and annotations across chunks', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(
      chunk(
        { content: 'a' },
        { logprobs: { content: [{ token: 'a', logprob: -0.1 }], refusal: null } },
      ),
    );
    accumulator.add(
      chunk(
        { content: 'b', annotations: [{ type: 'url_citation' }] },
        { logprobs: { content: [{ token: 'b', logprob: -0.2 }] } },
      ),
    );
    const choice = accumulator.toCompletion().choices[0];
    expect(choice?.logprobs?.content).toEqual([
      { token: 'a', logprob: -0.1 },
      { token: 'b', logprob: -0.2 },
    ]);
    expect(choice?.message['annotations']).toEqual([{ type: 'url_citation' }]);
  });

  it('answers an empty string for a stream that carried nothing', () => {
    const accumulator = new ChatAccumulator();
    expect(accumulator.toMessage()).toEqual({ role: 'assistant', content: '' });
    expect(accumulator.finishReason).toBeNull();
    expect(accumulator.toCompletion().choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: '', refusal: null },
        logprobs: null,
        finish_reason: null,
      },
    ]);
  });

  it('accumulates a legacy function_call', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add(
      chunk({ role: 'assistant', content: null, function_call: { name: 'f', arguments: '' } }),
    );
    accumulator.add(
      chunk({ function_call: { arguments: '{"a":1}' } }, { finish_reason: 'function_call' }),
    );
    expect(accumulator.toMessage()).toEqual({
      role: 'assistant',
      content: null,
      function_call: { name: 'f', arguments: '{"a":1}' },
    });
  });
});
