import { countTokens } from '../../tokens/count-tokens';

/** One entry of a tool result that may be left out when the result is too large. */
export interface ResultItem {
  id: string;
  /** The key of the list (in `ToolOutput.lists`) the item is shown under. */
  list: string;
  value: unknown;
  /** Where the item is shown within its list (default: its place in `items`). */
  position?: number;
  /** The item with its long text cut to about `chars` characters, for when not even it alone fits. */
  shorten?: (chars: number) => unknown;
}

/** A list of a tool result. */
export interface ResultList {
  key: string;
  /** Shown as one object (or null), not an array. */
  single?: boolean;
  /** The tool that fetches left-out items of this list by id. */
  pageWith: string;
}

/** A tool result before token accounting: fixed fields, then lists of items in keep order. */
export interface ToolOutput {
  fields: Record<string, unknown>;
  lists: ResultList[];
  /** Most important first: a preview keeps a prefix of this order. */
  items: ResultItem[];
}

/** A result as the model will read it. */
export interface FittedResult {
  content: string;
  tokens: number;
  truncated: boolean;
  /** False when not even an empty preview fits the limit. */
  fits: boolean;
}

/** Shortest text worth showing of an item that alone exceeds the limit. */
const MIN_SHORTENED_CHARS = 40;

/**
 * Serializes a tool output as JSON within `maxTokens`: whole when it fits, else a preview of
 * as many whole items as fit, in keep order, with the left-out ids and the tool to fetch them.
 */
export function fitResult(output: ToolOutput, maxTokens: number): FittedResult {
  const count = output.items.length;
  const whole = measure(render(output, { keep: count }));
  if (whole.tokens <= maxTokens) return { ...whole, truncated: false, fits: true };

  const kept = largest(1, count - 1, (keep) => fits(render(output, { keep }), maxTokens));
  const chosen = kept !== null ? render(output, { keep: kept }) : smallest(output, maxTokens);
  if (chosen === null) {
    const content = JSON.stringify({
      truncated: true,
      error: `the result does not fit the ${maxTokens}-token limit of this call`,
    });
    return { content, tokens: countTokens(content), truncated: true, fits: false };
  }
  return { ...measure(chosen), truncated: true, fits: true };
}

/**
 * The preview when not one whole item fits: the first item shortened as little as needed, with
 * as many left-out ids as still fit (a shortened item tells the model more than ids alone), else
 * just the ids.
 */
function smallest(output: ToolOutput, maxTokens: number): string | null {
  const count = output.items.length;
  const first = output.items[0];
  if (first?.shorten) {
    const listed = largest(0, count - 1, (size) =>
      fits(render(output, { keep: 0, shortened: MIN_SHORTENED_CHARS, listed: size }), maxTokens),
    );
    if (listed !== null) {
      const longest = JSON.stringify(first.value).length;
      const chars = largest(MIN_SHORTENED_CHARS, longest, (size) =>
        fits(render(output, { keep: 0, shortened: size, listed }), maxTokens),
      )!;
      return render(output, { keep: 0, shortened: chars, listed });
    }
  }
  const listed = largest(0, count, (size) =>
    fits(render(output, { keep: 0, listed: size }), maxTokens),
  );
  return listed === null ? null : render(output, { keep: 0, listed });
}

interface RenderOptions {
  /** How many items (in keep order) are shown whole. */
  keep: number;
  /** Show the next item shortened to this many characters. */
  shortened?: number;
  /** List only this many left-out ids. */
  listed?: number;
}

function render(output: ToolOutput, options: RenderOptions): string {
  const shown = output.items
    .slice(0, options.keep)
    .map((item, index) => ({ item, index, value: item.value }));
  const next = output.items[options.keep];
  const shortenedId = options.shortened !== undefined && next?.shorten ? next.id : null;
  if (shortenedId !== null && next?.shorten)
    shown.push({ item: next, index: options.keep, value: next.shorten(options.shortened ?? 0) });
  const result: Record<string, unknown> = { ...output.fields };
  for (const list of output.lists) {
    const values = shown
      .filter((entry) => entry.item.list === list.key)
      .sort((a, b) => (a.item.position ?? a.index) - (b.item.position ?? b.index))
      .map((entry) => entry.value);
    result[list.key] = list.single ? (values[0] ?? null) : values;
  }
  const omitted = output.items.slice(shown.length);
  if (omitted.length === 0 && shortenedId === null) return JSON.stringify(result);
  result['truncated'] = true;
  const listed = omitted.slice(0, options.listed ?? omitted.length);
  if (omitted.length > 0) result['omitted_ids'] = listed.map((item) => item.id);
  result['note'] = noteFor(output, { omitted, listed: listed.length, shortenedId });
  return JSON.stringify(result);
}

function noteFor(
  output: ToolOutput,
  options: { omitted: ResultItem[]; listed: number; shortenedId: string | null },
): string {
  const { omitted, listed, shortenedId } = options;
  const parts: string[] = [];
  if (shortenedId !== null) parts.push(`${shortenedId} is shown shortened to fit the token limit`);
  if (omitted.length > 0) {
    const tools = [
      ...new Set(
        omitted.map(
          (item) =>
            output.lists.find((list) => list.key === item.list)?.pageWith ?? 'get_messages_by_ids',
        ),
      ),
    ];
    const unlisted = omitted.length - listed;
    parts.push(
      `${omitted.length} of ${output.items.length} items left out to fit the token limit` +
        (unlisted > 0
          ? ` (${listed} ids in omitted_ids, ${unlisted} more not shown)`
          : ' (ids in omitted_ids)') +
        `; fetch them a few at a time with ${tools.join(' or ')}`,
    );
  }
  return `${parts.join('; ')}.`;
}

function measure(content: string): { content: string; tokens: number } {
  return { content, tokens: countTokens(content) };
}

function fits(content: string, maxTokens: number): boolean {
  return countTokens(content) <= maxTokens;
}

/** The largest n in [low, high] for which `ok` holds, assuming it holds for a prefix of the range; null when none. */
function largest(low: number, high: number, ok: (n: number) => boolean): number | null {
  if (high < low || !ok(low)) return null;
  let lo = low;
  let hi = high;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
