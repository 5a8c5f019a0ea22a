import { describe, expect, it } from 'vitest';
import { MEMORY_TOOL_SPECS } from './memory-tool-specs';
import { validateArguments, type ParameterSchema } from './validate-arguments';

function schemaOf(name: string): ParameterSchema {
  const spec = MEMORY_TOOL_SPECS.find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`no spec ${name}`);
  return spec.parameters;
}

describe('validateArguments', () => {
  it('returns the parsed arguments when they match the schema', () => {
    expect(validateArguments(schemaOf('vector_search'), '{"query":"cats","limit":5}')).toEqual({
      query: 'cats',
      limit: 5,
    });
    expect(
      validateArguments(
        schemaOf('get_period_messages'),
        '{"period":{"start":"2025-01-01","end":"2025-01-02"}}',
      ),
    ).toBeTruthy();
  });

  it.each([
    ['get_message_by_id', '{"message_id":', /not valid JSON/],
    ['get_message_by_id', '[1]', /must be a JSON object.*an array/],
    ['get_message_by_id', '', /message_id is required/],
    ['get_message_by_id', '{"message_id":42}', /message_id must be a string, got the number 42/],
    ['get_message_by_id', '{"message_id":"  "}', /message_id must not be empty/],
    ['get_message_by_id', '{"id":"x"}', /message_id is required/],
    [
      'get_message_by_id',
      '{"message_id":"x","extra":1}',
      /extra is not a parameter; allowed: message_id/,
    ],
    ['vector_search', '{"query":"q","limit":0}', /limit must be at least 1/],
    ['vector_search', '{"query":"q","limit":51}', /limit must be at most 50/],
    ['vector_search', '{"query":"q","limit":2.5}', /limit must be a whole number/],
    [
      'vector_search',
      '{"query":"q","limit":"5"}',
      /limit must be a whole number, got the string "5"/,
    ],
    ['get_messages_by_ids', '{"message_ids":[]}', /at least 1/],
    [
      'get_messages_by_ids',
      `{"message_ids":${JSON.stringify(Array.from({ length: 51 }, (_, i) => `m${i}`))}}`,
      /51 items; at most 50/,
    ],
    ['get_messages_by_ids', '{"message_ids":["a",3]}', /message_ids\[1\] must be a string/],
    ['search_and_retrieve', '{"query":"q","auto_limit":"yes"}', /auto_limit must be true or false/],
    ['core_memory_append', '{"block":"Human!","content":"x"}', /block "Human!" does not match/],
    ['get_period_messages', '{"period":5}', /period must be "today"/],
    ['get_period_messages', '{"period":{"start":"2025-01-01"}}', /period must be/],
  ])('%s %s is refused with a message naming the problem', (name, json, message) => {
    expect(() => validateArguments(schemaOf(name), json)).toThrow(message);
  });

  it('treats null optional fields as absent', () => {
    expect(validateArguments(schemaOf('vector_search'), '{"query":"q","limit":null}')).toEqual({
      query: 'q',
      limit: null,
    });
  });
});
