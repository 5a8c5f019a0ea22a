import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../store/types';
import { centralTurns, labelOf, meanDirection, quoteTurns } from './extractive-summary';

function turn(seq: number, content: string, role: 'user' | 'assistant' = 'user'): StoredMessage {
  return {
    id: `m${seq}`,
    partition: 'p',
    instance: 'i',
    role,
    content,
    raw: { role, content },
    snippet: content,
    timestamp: seq,
    seq,
    tokenCount: 1,
    branchTokens: 1,
    contentHash: `h${seq}`,
    parentId: null,
    model: null,
    traceId: null,
    metadata: {},
    edited: false,
    deleted: false,
    editHistory: [],
    isChunk: false,
    chunkIndex: null,
    chunkParentId: null,
  };
}

describe('extractive summaries', () => {
  it('labels a topic with the words its turns share beyond the rest of the instance', () => {
    const topic = [
      turn(1, 'The sourdough starter needs flour every morning'),
      turn(2, 'My sourdough loaf came out flat this morning'),
      turn(3, 'Feed the starter flour and water'),
    ];
    const elsewhere = [
      turn(4, 'Water the garden every morning'),
      turn(5, 'Morning walk in the park'),
      turn(6, 'Coffee in the morning'),
    ];
    expect(labelOf(topic)).toBe('flour, morning, sourdough');
    expect(labelOf(topic, [...topic, ...elsewhere])).toBe('flour, sourdough, starter');
  });

  it('quotes the turns nearest the centre, in seq order, the earlier turn winning a tie', () => {
    const turns = [
      { message: turn(1, 'far away'), vector: [0, 1] },
      { message: turn(2, 'close one', 'assistant'), vector: [1, 0] },
      { message: turn(3, 'also close'), vector: [1, 0] },
      { message: turn(4, ''), vector: [1, 0] },
      { message: turn(5, 'no vector yet'), vector: undefined },
    ];
    const centre = meanDirection([
      [1, 0],
      [0.9, 0.1],
    ]);
    const quoted = centralTurns(turns, centre, 2);
    expect(quoted.map((each) => each.seq)).toEqual([2, 3]);
    expect(quoteTurns(quoted)).toBe('assistant: close one\nuser: also close');
    expect(centralTurns(turns, centre, 4).map((each) => each.seq)).toEqual([1, 2, 3, 5]);
  });
});
