/** Length of a snippet in characters (code points), as DESIGN.md's memory index shows it. */
export const SNIPPET_LENGTH = 200;

const SURROGATE = /[\uD800-\uDFFF]/;

/** The first SNIPPET_LENGTH characters of a text with runs of whitespace collapsed to one space. */
export function makeSnippet(content: string): string {
  // Only a prefix can end up in the snippet; collapsing a 1 MB turn whole would be wasted work.
  // Whitespace runs collapse, so a prefix of twice the length usually yields enough characters;
  // a text of long whitespace runs takes more turns of the loop.
  let end = SNIPPET_LENGTH * 2;
  for (;;) {
    const collapsed = content.slice(0, end).replace(/\s+/g, ' ').trimStart();
    // Without surrogate pairs every UTF-16 unit is a character: no need to split the text.
    if (!SURROGATE.test(collapsed) && (collapsed.length > SNIPPET_LENGTH || end >= content.length)) {
      return collapsed.slice(0, SNIPPET_LENGTH).trimEnd();
    }
    const characters = Array.from(collapsed);
    if (characters.length > SNIPPET_LENGTH || end >= content.length) {
      return characters.slice(0, SNIPPET_LENGTH).join('').trimEnd();
    }
    end *= 4;
  }
}
