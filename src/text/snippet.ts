/** Length of a stored snippet in characters (code points), as DESIGN.md's memory index shows it. */
export const SNIPPET_LENGTH = 200;

const SURROGATE = /[\uD800-\uDFFF]/;
const NON_SPACE = /\S/;

/** The start of a text with whitespace folded, and whether the text goes on past it. */
interface FoldedPrefix {
  text: string;
  cut: boolean;
}

/**
 * The first `length` characters (code points, so an emoji is never split) of a text with runs
 * of whitespace folded to one space, trimmed. Only a prefix is folded: a 1 MB turn costs what a
 * short one does. A prefix of twice the length usually holds enough characters; a text of long
 * whitespace runs takes more turns of the loop.
 */
function foldedPrefix(text: string, length: number): FoldedPrefix {
  for (let end = Math.max(16, length * 2); ; end *= 4) {
    const whole = end >= text.length;
    const folded = text.slice(0, end).replace(/\s+/g, ' ').trimStart();
    // Without surrogate pairs every UTF-16 unit is a character: no need to split the text.
    const characters = SURROGATE.test(folded) ? Array.from(folded) : null;
    if ((characters?.length ?? folded.length) > length || whole) {
      const head = characters ? characters.slice(0, length).join('') : folded.slice(0, length);
      const rest = folded.slice(head.length);
      return {
        text: head.trimEnd(),
        cut: NON_SPACE.test(rest) || (!whole && NON_SPACE.test(text.slice(end))),
      };
    }
  }
}

/** A turn's stored snippet: its first SNIPPET_LENGTH characters, whitespace folded (both stores). */
export function makeSnippet(content: string): string {
  return foldedPrefix(content, SNIPPET_LENGTH).text;
}

/** The first `length` characters of a text with whitespace folded, and an ellipsis when cut. */
export function snippetOf(text: string, length: number): string {
  const prefix = foldedPrefix(text, length);
  return prefix.cut ? `${prefix.text}…` : prefix.text;
}
