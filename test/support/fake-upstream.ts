import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { embeddingsReply } from './fake-embedding';
import { lastUserText, textReply, type FakeReply, type RecordedRequest } from './fake-replies';

export { FAKE_EMBEDDING_DIMENSIONS, fakeEmbedding } from './fake-embedding';
export { errorReply, lastUserText, textReply, toolCallReply } from './fake-replies';
export type { FakeReply, RecordedRequest, ReplyOptions } from './fake-replies';

/** Answers one request; `index` is its 0-based position among requests to the same endpoint. */
export type FakeHandler = (
  request: RecordedRequest,
  index: number,
) => FakeReply | Promise<FakeReply>;

/** A scripted OpenAI-compatible server on 127.0.0.1 that records every request. */
export interface FakeUpstream {
  /** Base URL including `/v1`, as a client's baseURL. */
  url: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Only the `POST /v1/chat/completions` requests. */
  chatRequests(): RecordedRequest[];
  /** Only the `POST /v1/embeddings` requests. */
  embeddingRequests(): RecordedRequest[];
  /** Scripts `POST /v1/chat/completions`. */
  onChat(handler: FakeHandler): void;
  /** Scripts `GET /v1/models`. */
  onModels(reply: FakeReply): void;
  /** Scripts `POST /v1/embeddings` (default: deterministic vectors from fakeEmbedding). */
  onEmbeddings(handler: FakeHandler): void;
  /** Clears the recorded requests and restores the default handlers. */
  reset(): void;
  /** Closes the server and every open socket, hanging ones too. */
  close(): Promise<void>;
}

const CHAT_PATH = '/v1/chat/completions';
const EMBEDDINGS_PATH = '/v1/embeddings';
const MODELS_PATH = '/v1/models';
const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));
const CR = 0x0d;
const LF = 0x0a;

const defaultChat: FakeHandler = (request) => textReply(request, `echo: ${lastUserText(request)}`);
const defaultEmbeddings: FakeHandler = (request) => embeddingsReply(request);
const defaultModels = (): FakeReply => ({
  kind: 'json',
  body: {
    object: 'list',
    data: [
      { id: 'gpt-4o-mini', object: 'model', created: 1721172741, owned_by: 'system' },
      { id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'system' },
    ],
  },
});

/** The absolute path of `test/fixtures/<name>.sse` (the extension may be given or not). */
export function fixturePath(name: string): string {
  return `${FIXTURES_DIR}${name.endsWith('.sse') ? name : `${name}.sse`}`;
}

/**
 * Cuts a recorded body into its events, each with its trailing blank line, so a replay sends
 * the same bytes event by event. This is byte replay, not parsing: CR and LF never occur inside
 * a multi-byte UTF-8 sequence, and what the events mean is left to the parser under test.
 */
export function splitRecordedEvents(bytes: Buffer): Buffer[] {
  const events: Buffer[] = [];
  let start = 0;
  let lineStart = 0;
  for (let position = 0; position < bytes.length;) {
    const byte = bytes[position];
    if (byte !== CR && byte !== LF) {
      position++;
      continue;
    }
    const next = byte === CR && bytes[position + 1] === LF ? position + 2 : position + 1;
    if (position === lineStart && lineStart > start) {
      events.push(bytes.subarray(start, next));
      start = next;
    }
    lineStart = next;
    position = next;
  }
  if (start < bytes.length) events.push(bytes.subarray(start));
  return events;
}

function lowerCaseKeys(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  /** Marks a close the script asked for, so it is not taken for a client disconnect. */
  cut(): void;
}

async function writeEvents(
  exchange: Exchange,
  events: (string | Buffer)[],
  options: {
    status?: number;
    headers?: Record<string, string>;
    delayMs?: number;
    cutAfter?: number;
    pauses?: Record<number, number>;
  },
): Promise<void> {
  const { response } = exchange;
  response.writeHead(options.status ?? 200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...lowerCaseKeys(options.headers),
  });
  // Headers go out now, so a client sees 200 before the first event, as with a real server.
  response.flushHeaders();
  for (const [position, event] of events.entries()) {
    if (options.cutAfter !== undefined && position >= options.cutAfter) break;
    if (options.delayMs) await sleep(options.delayMs);
    const pause = options.pauses?.[position];
    if (pause) await sleep(pause);
    if (response.destroyed) return;
    // Waiting for the flush keeps a scripted cut from discarding the events sent before it.
    await new Promise<void>((resolve) => response.write(event, () => resolve()));
  }
}

async function send(exchange: Exchange, reply: FakeReply): Promise<void> {
  const { request, response } = exchange;
  switch (reply.kind) {
    case 'json': {
      if (reply.delayMs) await sleep(reply.delayMs);
      if (response.destroyed) return;
      response.writeHead(reply.status ?? 200, {
        'content-type': 'application/json',
        ...lowerCaseKeys(reply.headers),
      });
      response.end(JSON.stringify(reply.body));
      return;
    }
    case 'raw':
      response.writeHead(reply.status, {
        'content-type': 'text/plain; charset=utf-8',
        ...lowerCaseKeys(reply.headers),
      });
      response.end(reply.body);
      return;
    case 'sse': {
      const events = reply.chunks.map((chunk) =>
        typeof chunk === 'string' ? chunk : `data: ${JSON.stringify(chunk)}\n\n`,
      );
      await writeEvents(exchange, events, reply);
      if (response.destroyed) return;
      if (reply.cutAfter !== undefined && reply.cutAfter <= reply.chunks.length) {
        exchange.cut();
        response.destroy();
        return;
      }
      if (reply.done !== false) response.write('data: [DONE]\n\n');
      response.end();
      return;
    }
    case 'fixture': {
      const events = splitRecordedEvents(await readFile(fixturePath(reply.name)));
      await writeEvents(exchange, events, { delayMs: reply.delayMs });
      if (!response.destroyed) response.end();
      return;
    }
    case 'hang':
      return;
    case 'destroy':
      exchange.cut();
      request.socket.destroy();
      return;
  }
}

/** Starts a fake OpenAI-compatible server on 127.0.0.1 with a random port. */
export async function startFakeUpstream(): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let chatHandler = defaultChat;
  let embeddingsHandler = defaultEmbeddings;
  let modelsReply = defaultModels();
  let closing = false;
  const only = (method: string, path: string) => () =>
    requests.filter((request) => request.method === method && request.path === path);
  const chatRequests = only('POST', CHAT_PATH);
  const embeddingRequests = only('POST', EMBEDDINGS_PATH);

  async function route(recorded: RecordedRequest): Promise<FakeReply> {
    const { method, path } = recorded;
    if (method === 'POST' && path === CHAT_PATH)
      return chatHandler(recorded, chatRequests().length - 1);
    if (method === 'POST' && path === EMBEDDINGS_PATH) {
      return embeddingsHandler(recorded, embeddingRequests().length - 1);
    }
    if (method === 'GET' && path === MODELS_PATH) return modelsReply;
    return {
      kind: 'json',
      status: 404,
      body: {
        error: {
          message: `Unknown request URL: ${method} ${path}.`,
          type: 'invalid_request_error',
          param: null,
          code: 'unknown_url',
        },
      },
    };
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const body = await readBody(request);
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      headers,
      body,
      receivedAt: Date.now(),
    };
    requests.push(recorded);
    let cutByScript = false;
    response.on('close', () => {
      if (!response.writableFinished && !cutByScript && !closing)
        recorded.clientClosedAt = Date.now();
    });
    const exchange: Exchange = { request, response, cut: () => (cutByScript = true) };
    try {
      await send(exchange, await route(recorded));
    } catch (error) {
      // A throwing script is a test bug: answer it loudly rather than hang the client.
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: `fake upstream: ${String(error)}`,
            type: 'server_error',
            param: null,
            code: null,
          },
        }),
      );
    }
  }

  const server = createServer((request, response) => {
    // Only a client that vanished mid-request gets here; there is no one left to answer.
    handle(request, response).catch(() => response.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests,
    embeddingRequests,
    onChat(handler) {
      chatHandler = handler;
    },
    onModels(reply) {
      modelsReply = reply;
    },
    onEmbeddings(handler) {
      embeddingsHandler = handler;
    },
    reset() {
      // In place, so a test holding `fake.requests` sees the reset.
      requests.length = 0;
      chatHandler = defaultChat;
      embeddingsHandler = defaultEmbeddings;
      modelsReply = defaultModels();
    },
    async close() {
      closing = true;
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
