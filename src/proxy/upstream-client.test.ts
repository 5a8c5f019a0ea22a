import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lastUserText, startFakeUpstream, textReply, type FakeUpstream } from '../../test/support/fake-upstream';
import { UpstreamClient, type UpstreamCall } from './upstream-client';

describe('UpstreamClient: what a finished call leaves behind', () => {
  let upstream: FakeUpstream;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    upstream.onChat((request) => textReply(request, `answer to ${lastUserText(request)}`));
  });
  afterAll(async () => {
    vi.useRealTimers();
    await upstream?.close();
  });

  const call = (signal: AbortSignal, stream: boolean, index: number): UpstreamCall => ({
    path: '/chat/completions',
    body: { model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: `question ${index}` }] },
    authorization: null,
    signal,
  });

  it('keeps no timeout armed and no listener on the caller signal once answers are read', async () => {
    // A long timeout, as in production: one left armed holds its call's objects for two minutes.
    const client = new UpstreamClient({ baseUrl: upstream.url, apiKey: null, timeoutMs: 120_000, maxRetries: 0 });
    const controller = new AbortController();
    const round = async (index: number) => {
      const answer = await client.postJson(call(controller.signal, false, index));
      expect(JSON.stringify(answer.body)).toContain(`answer to question ${index}`);
      const opened = await client.openStream(call(controller.signal, true, index));
      let text = '';
      for await (const event of opened.events) text += event.data;
      expect(text).toContain(`question ${index}`.split(' ').at(-1));
    };
    // Timers are faked to be counted (I/O stays real); the first round opens the connections.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await round(0);
      const timers = vi.getTimerCount();
      for (let index = 1; index <= 10; index++) await round(index);
      expect(vi.getTimerCount()).toBeLessThanOrEqual(timers);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
