import { describe, expect, it } from 'vitest';
import type { MessageRecord } from '../store/graph-record';
import { formatRecordLine, parseRecordLine } from './validate-record';

const message = (embedding: number[] | null): MessageRecord => ({
  type: 'Message',
  partition: 'alice',
  instance: 'notes',
  id: 'm1',
  role: 'user',
  seq: 1,
  timestamp: 1_700_000_000_000,
  content: 'the boat is moored at the north pier',
  raw: { role: 'user', content: 'the boat is moored at the north pier' },
  snippet: 'the boat is moored at the north pier',
  token_count: 9,
  branch_tokens: 9,
  content_hash: 'h1',
  model: null,
  trace_id: null,
  metadata: {},
  edited: false,
  edit_history: [],
  deleted: false,
  deleted_with_instance: false,
  is_chunk: false,
  chunk_index: null,
  chunk_parent_id: null,
  embedding,
});

describe('export lines', () => {
  it('writes a Float32 vector as base64 and reads back the same values', () => {
    const vector = [0.1, -0.25, 3.5e-8, 1, -1, 0].map(Math.fround);
    const line = formatRecordLine(message(vector));
    const written = JSON.parse(line).embedding;
    expect(written).toBe(Buffer.from(Float32Array.from(vector).buffer).toString('base64'));
    const parsed = parseRecordLine(line) as MessageRecord;
    expect(parsed.embedding).toEqual(vector);
    // A parsed record writes the same line again: an import's round trip compares lines.
    expect(formatRecordLine(parsed)).toBe(line);
  });

  it('keeps a vector with values Float32 cannot hold as numbers, so nothing is rounded', () => {
    const vector = [0.1, 0.2, 0.3];
    const line = formatRecordLine(message(vector));
    expect(JSON.parse(line).embedding).toEqual(vector);
    expect((parseRecordLine(line) as MessageRecord).embedding).toEqual(vector);
  });

  it('reads vectors written as numbers, as files of versions 1 and 2 hold them', () => {
    const line = JSON.stringify(message([0.5, 0.25]));
    expect((parseRecordLine(line) as MessageRecord).embedding).toEqual([0.5, 0.25]);
    expect((parseRecordLine(JSON.stringify(message(null))) as MessageRecord).embedding).toBeNull();
  });

  it('names the field when the text is not the base64 of Float32 values', () => {
    const withText = (embedding: string) => JSON.stringify({ ...message(null), embedding });
    for (const text of ['not base64!', 'AAAAAAAA', 'AAAA AAA', 'AAAAAA==AAAA', '']) {
      expect(() => parseRecordLine(withText(text))).toThrow(
        /^Message\.embedding must be a list of numbers, the base64 of little-endian Float32 values, or null$/,
      );
    }
    // The bytes of NaN: a vector holds finite numbers only.
    const nan = Buffer.from(new Float32Array([1, Number.NaN]).buffer).toString('base64');
    expect(() => parseRecordLine(withText(nan))).toThrow(/^Message\.embedding must be/);
  });
});
