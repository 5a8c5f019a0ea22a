import http from 'node:http';

/** How one chat request went, timed from the moment it was sent. */
export interface ChatTiming {
  status: number;
  /** Milliseconds until the whole body arrived. */
  totalMs: number;
  /** Milliseconds until the first body bytes (the first SSE event when streaming). */
  firstChunkMs: number;
  bytes: number;
}

// One keep-alive pool for every request, as an SDK client would hold: connection setup is not
// what the benchmarks measure.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/** POSTs a chat completion body to `url` and times it; never throws for an HTTP error status. */
export function postChat(url: string, body: unknown): Promise<ChatTiming> {
  const payload = Buffer.from(JSON.stringify(body));
  const target = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': payload.length, authorization: 'Bearer bench' },
      },
      (response) => {
        let firstChunkMs = -1;
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          if (firstChunkMs < 0) firstChunkMs = performance.now() - started;
          bytes += chunk.length;
        });
        response.on('end', () => {
          const totalMs = performance.now() - started;
          resolve({ status: response.statusCode ?? 0, totalMs, firstChunkMs: firstChunkMs < 0 ? totalMs : firstChunkMs, bytes });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** Closes the pooled connections (at the end of a benchmark, so the process can exit). */
export function closeConnections(): void {
  agent.destroy();
}
