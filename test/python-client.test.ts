import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import { startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./python/chat_client.py', import.meta.url));

function pythonHasOpenAI(): boolean {
  try {
    execFileSync('python3', ['-c', 'import openai'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// CI installs the package (.ci/run), so there the test always runs; elsewhere it needs `pip install openai`.
const available = pythonHasOpenAI();
if (!available && process.env['CI']) throw new Error('CI must have the Python openai package (see .ci/run)');

describe.skipIf(!available)('the official Python openai client through the proxy', () => {
  let store: MemoryStore;
  let upstream: FakeUpstream;
  let proxy: RunningProxy;

  beforeAll(async () => {
    store = await storeFactories()[0]!.create();
    upstream = await startFakeUpstream();
    proxy = await startProxy({ store, upstreamUrl: upstream.url });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    await store?.close();
  });

  it('chats in both modes and the exchange is stored once', async () => {
    upstream.onChat((request) => textReply(request, request.body.stream ? 'Streamed hello back to Python.' : 'Hello back, Python.'));
    const { stdout } = await run('python3', [script, proxy.baseUrl('py', 'client')], { timeout: 60_000 });
    const seen = JSON.parse(stdout) as { non_stream: string; stream: string; stream_chunks: number; usage: number | null };
    expect(seen.non_stream).toBe('Hello back, Python.');
    expect(seen.stream).toBe('Streamed hello back to Python.');
    expect(seen.stream_chunks).toBeGreaterThan(2);
    expect(seen.usage).toBeGreaterThan(0);
    const turns = await store.listMessages({ partition: 'py', instance: 'client' }, { limit: 10 });
    expect(turns.map((turn) => turn.content)).toEqual(['Hello from Python', 'Hello back, Python.', 'Stream this time', 'Streamed hello back to Python.']);
    expect(upstream.chatRequests()[0]!.headers['authorization']).toBe('Bearer sk-python-client');
  });
});
