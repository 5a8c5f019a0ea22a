import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  lastUserText,
  startFakeUpstream,
  textReply,
  type FakeUpstream,
} from './support/fake-upstream';
import { startRealProxy, type RealProxy } from './support/real-proxy';
import { TEST_DIMENSIONS } from './support/stores';

interface Answer {
  status: number;
  keepAlive: string | undefined;
  /** Whether the request went out on a connection an earlier request had opened. */
  reusedSocket: boolean;
}

/** POSTs a chat request through `agent`, as an SDK holding a keep-alive pool does. */
function ask(agent: http.Agent, url: string, content: string): Promise<Answer> {
  const payload = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          keepAlive: response.headers['keep-alive']?.toString(),
          reusedSocket: request.reusedSocket,
        }),
      );
    });
    request.on('error', reject);
    request.end(payload);
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The store plays no part in how connections are kept: the embedded one serves both cases.
describe('idle client connections', () => {
  let upstream: FakeUpstream;
  const proxies: RealProxy[] = [];
  const agents: http.Agent[] = [];

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    upstream.onChat((request) => textReply(request, `answer to ${lastUserText(request)}`));
  });
  afterAll(async () => {
    for (const agent of agents) agent.destroy();
    for (const proxy of proxies) await proxy.kill().catch(() => undefined);
    await upstream?.close();
  });

  async function proxyWith(
    env: Record<string, string>,
  ): Promise<{ url: string; agent: http.Agent }> {
    const proxy = await startRealProxy({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'memory-proxy-connections-')),
      NEO4J_URI: '',
      UPSTREAM_BASE_URL: upstream.url,
      EMBEDDING_DIMENSIONS: String(TEST_DIMENSIONS),
      ...env,
    });
    proxies.push(proxy);
    // An SDK's pool: one connection, kept for as long as the server keeps it.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    return { url: `${proxy.origin}/partition/alice/instance/chat/v1/chat/completions`, agent };
  }

  it('stay open past a pause of a few seconds, and the proxy says for how long', async () => {
    const { url, agent } = await proxyWith({});
    const first = await ask(agent, url, 'hello');
    expect(first).toMatchObject({ status: 200, keepAlive: 'timeout=65', reusedSocket: false });
    // Longer than Node's own 5 s, after which the client would have to connect again.
    await pause(5_500);
    const second = await ask(agent, url, 'still there?');
    expect(second).toMatchObject({ status: 200, reusedSocket: true });
  }, 30_000);

  it('close after KEEP_ALIVE_SECONDS, and the next request opens a new one', async () => {
    const { url, agent } = await proxyWith({ KEEP_ALIVE_SECONDS: '1' });
    const first = await ask(agent, url, 'hello');
    expect(first).toMatchObject({ status: 200, keepAlive: 'timeout=1' });
    await pause(1_500);
    const second = await ask(agent, url, 'again');
    expect(second).toMatchObject({ status: 200, reusedSocket: false });
  }, 30_000);
});
