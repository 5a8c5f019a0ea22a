import { describe, expect, it } from 'vitest';
import { toNewMessage } from '../../memory/normalize-message';
import type { StoredToolCall } from '../types';
import { newStoredMessage } from './append-path';
import { projectMessage, projectToolCall, toMessageProperties, toToolCallProperties } from './map-record';

// A turn as the store writes it.
const MESSAGE = newStoredMessage({
  scope: { partition: 'p', instance: 'i' },
  message: toNewMessage({ role: 'user', content: 'hello' }),
  parent: null,
  seq: 1,
  clock: () => 1,
  newId: () => 'm1',
});

const CALL: StoredToolCall = {
  id: 't1',
  partition: 'p',
  instance: 'i',
  callId: 'call_1',
  toolName: 'search',
  arguments: '{}',
  result: null,
  timestamp: 1,
  messageId: 'm1',
  tokenCount: 3,
  durationMs: null,
};

/** A tool call's properties written only for the store's own queries, never read back. */
const CALL_WRITE_ONLY = new Set(['needs_embedding', 'is_chunk']);

describe('Neo4j map projections', () => {
  it('read back every property a stored turn or tool call is written with, and never the embedding', () => {
    const message = projectMessage('m');
    for (const key of Object.keys(toMessageProperties(MESSAGE)).filter((key) => key !== 'needs_embedding')) expect(message).toContain(`.${key}`);
    const call = projectToolCall('t');
    for (const key of Object.keys(toToolCallProperties(CALL)).filter((key) => !CALL_WRITE_ONLY.has(key))) expect(call).toContain(`.${key}`);
    expect(message).not.toContain('embedding');
    expect(call).not.toContain('embedding');
  });
});
