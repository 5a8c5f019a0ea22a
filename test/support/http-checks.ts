import { expect } from 'vitest';

/** OpenAI's error body. */
export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Asserts a response is an error in OpenAI's shape with a request id, and returns its body. */
export async function expectOpenAiError(response: Response, status?: number): Promise<ErrorBody> {
  if (status !== undefined) expect(response.status).toBe(status);
  expect(response.headers.get('content-type') ?? '').toContain('application/json');
  expect(response.headers.get('x-request-id')).toBeTruthy();
  const body = (await response.json()) as ErrorBody;
  expect(Object.keys(body)).toEqual(['error']);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(10);
  expect(typeof body.error.type).toBe('string');
  return body;
}

/** The data payloads of an SSE body, in order. */
export function sseData(text: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
}

/**
 * What a client got, checked to be well formed: an error in OpenAI's shape (status >= 400), a
 * JSON completion, or a 200 stream whose every frame is JSON and which ends with `[DONE]`.
 */
export async function readAnswer(
  response: Response,
): Promise<
  | { kind: 'error'; status: number; body: ErrorBody }
  | { kind: 'json'; body: { choices: { message: { content: string | null } }[] } }
  | {
      kind: 'stream';
      chunks: Record<string, unknown>[];
      error: ErrorBody['error'] | null;
      text: string;
    }
> {
  if (response.status >= 400)
    return { kind: 'error', status: response.status, body: await expectOpenAiError(response) };
  expect(response.status).toBe(200);
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return {
      kind: 'json',
      body: (await response.json()) as { choices: { message: { content: string | null } }[] },
    };
  }
  const frames = sseData(await response.text());
  expect(frames.at(-1)).toBe('[DONE]');
  expect(frames.filter((frame) => frame === '[DONE]')).toHaveLength(1);
  const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame) as Record<string, unknown>);
  const errors = chunks.filter((chunk) => chunk['error'] !== undefined);
  expect(errors.length).toBeLessThanOrEqual(1);
  if (errors.length === 1) expect(chunks.at(-1)).toBe(errors[0]);
  const text = chunks
    .map(
      (chunk) =>
        (chunk['choices'] as { delta?: { content?: string } }[] | undefined)?.[0]?.delta?.content ??
        '',
    )
    .join('');
  return {
    kind: 'stream',
    chunks,
    error: (errors[0]?.['error'] as ErrorBody['error'] | undefined) ?? null,
    text,
  };
}
