import { describe, expect, it } from 'vitest';
import { memoryToolDefinitions } from '../memory/tools/memory-tools';
import { rememberJson, requestJson } from './request-json';

const clientTool = () => ({
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
});

describe('requestJson', () => {
  it('sends upstream the same request JSON.stringify would, memory tools and client tools together', () => {
    const body = {
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'quote "this" \u2028 and \\ that' }],
      tools: [
        clientTool(),
        ...memoryToolDefinitions(),
        ...memoryToolDefinitions(new Set(['search_memory'])),
      ],
      stream: false,
      temperature: 0.2,
    };
    expect(JSON.parse(requestJson(body))).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it('sends a client tool as it is now, even after the client changed it', () => {
    const tool = clientTool();
    const body = { model: 'gpt-test', messages: [], tools: [tool, ...memoryToolDefinitions()] };
    requestJson(body);
    tool.function.description = 'Weather and tides for a city';
    const sent = JSON.parse(requestJson(body)) as {
      tools: { function: { description: string } }[];
    };
    expect(sent.tools[0]!.function.description).toBe('Weather and tides for a city');
    expect(sent.tools).toHaveLength(1 + memoryToolDefinitions().length);
  });

  it('writes entries JSON cannot hold as null, as JSON.stringify does, and bodies without remembered tools unchanged', () => {
    const odd = { model: 'm', tools: [undefined, () => 1, ...memoryToolDefinitions()] };
    expect(JSON.parse(requestJson(odd))).toEqual(JSON.parse(JSON.stringify(odd)));
    const only = { tools: [...memoryToolDefinitions()] };
    expect(JSON.parse(requestJson(only))).toEqual(JSON.parse(JSON.stringify(only)));
    for (const body of [
      { model: 'm', tools: [clientTool()] },
      { model: 'm', tools: [] },
      { model: 'm' },
      [1, 2],
      'text',
      null,
    ]) {
      expect(requestJson(body)).toBe(JSON.stringify(body));
    }
  });

  it('refuses to remember a value that could change', () => {
    expect(() => rememberJson([clientTool()])).toThrow(/frozen/);
  });
});
