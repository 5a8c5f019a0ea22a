import { InvalidRequestError, ProxyError } from '../errors';

/** Reads a request body as JSON, refusing bodies over `maxBytes`, invalid UTF-8 and malformed JSON. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  // A declared length within the limit is read whole: the HTTP parser ends a body at its
  // declared length, so it cannot outgrow the limit. Read so, the Node server's request needs
  // no web stream, and no full Request that keeps the client's abort signal until a
  // finalizer runs (at a few hundred requests a second, thousands of finished requests).
  const bytes = Number.isFinite(declared)
    ? new Uint8Array(await request.arrayBuffer())
    : await readCapped(request, maxBytes);
  if (bytes.length === 0) {
    throw new InvalidRequestError('The request body is empty; send a JSON object.', { code: 'invalid_body' });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new InvalidRequestError('The request body is not valid UTF-8.', { code: 'invalid_encoding' });
  }
  checkNesting(text, MAX_JSON_DEPTH);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidRequestError(`The request body is not valid JSON: ${(error as Error).message}`, { code: 'invalid_json' });
  }
}

/** Deepest nesting of arrays and objects accepted; real requests (tool schemas included) stay far below. */
export const MAX_JSON_DEPTH = 128;

/**
 * Refuses JSON nested deeper than `maxDepth` before parsing it: such a body parses, but the
 * recursive JSON.stringify of storing and hashing it would overflow the stack (a 500).
 */
function checkNesting(text: string, maxDepth: number): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) {
        throw new InvalidRequestError(`The request body nests arrays and objects more than ${maxDepth} levels deep.`, { code: 'json_too_deep' });
      }
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
}

/** A body of undeclared length (chunked), read up to `maxBytes`. */
async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): ProxyError {
  return new ProxyError(`The request body is larger than the limit of ${maxBytes} bytes.`, {
    status: 413,
    type: 'invalid_request_error',
    code: 'request_too_large',
  });
}
