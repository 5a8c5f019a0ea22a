/**
 * JSON of values that never change, made once: the memory tools' definitions are deep-frozen and
 * shared, and every upstream request carries ~9 KB of them, which made them most of the cost of
 * serializing a request (bench/NOTES.md, 12-02).
 */
const remembered = new WeakMap<object, string>();

/** Remembers the JSON of each value; each must be deep-frozen, so that its JSON cannot change. */
export function rememberJson(values: readonly object[]): void {
  for (const value of values) {
    if (!Object.isFrozen(value))
      throw new Error('rememberJson: only a frozen value keeps its JSON');
    if (!remembered.has(value)) remembered.set(value, JSON.stringify(value));
  }
}

function rememberedJson(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? remembered.get(value) : undefined;
}

/**
 * The JSON of a request body, as JSON.stringify makes it, except that the remembered entries of
 * its `tools` array are spliced in as they were serialized (`tools` then comes last, and key order
 * means nothing in JSON).
 */
export function requestJson(body: unknown): string {
  const tools =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)['tools']
      : undefined;
  const known = Array.isArray(tools) ? tools.map(rememberedJson) : [];
  if (!known.some((json) => json !== undefined)) return JSON.stringify(body);
  const rest = { ...(body as Record<string, unknown>) };
  delete rest['tools'];
  const head = JSON.stringify(rest);
  // As JSON.stringify writes an array's entries: undefined, functions and symbols as null.
  const entries = known.map(
    (json, index) =>
      json ?? (JSON.stringify((tools as unknown[])[index]) as string | undefined) ?? 'null',
  );
  return `${head.slice(0, -1)}${head === '{}' ? '' : ','}"tools":[${entries.join(',')}]}`;
}
