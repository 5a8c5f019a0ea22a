import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { BackgroundQueue, MODEL_LANE } from './background-queue';

describe('BackgroundQueue', () => {
  it('runs the jobs of one lane in order, and a slow model job never holds back the store lane', async () => {
    const queue = new BackgroundQueue(createLogger('silent'));
    const done: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    queue.push(
      'summary',
      async () => {
        await slow;
        done.push('summary');
      },
      { lane: MODEL_LANE },
    );
    queue.push('embed 1', async () => void done.push('embed 1'));
    queue.push('embed 2', async () => void done.push('embed 2'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toEqual(['embed 1', 'embed 2']);
    expect(queue.pending).toBe(1);

    let drained = false;
    const draining = queue.drain().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drained).toBe(false);
    release();
    await draining;
    expect(done).toEqual(['embed 1', 'embed 2', 'summary']);
    expect(queue.pending).toBe(0);
  });

  it('keeps going after a failing job', async () => {
    const queue = new BackgroundQueue(createLogger('silent'));
    const done: string[] = [];
    queue.push('fails', async () => {
      throw new Error('boom');
    });
    queue.push('next', async () => void done.push('next'));
    await queue.drain();
    expect(done).toEqual(['next']);
  });
});
