/** Length of a snippet in characters (code points), as DESIGN.md's memory index shows it. */
export const SNIPPET_LENGTH = 200;

/** The first SNIPPET_LENGTH characters of a text with runs of whitespace collapsed to one space. */
export function makeSnippet(content: string): string {
  // Only a prefix can end up in the snippet; collapsing a 1 MB turn whole would be wasted work.
  // Whitespace runs collapse, so a prefix of 8x the length still yields enough characters
  // unless the text is mostly whitespace, in which case the loop takes more.
  let end = SNIPPET_LENGTH * 8;
  for (;;) {
    const collapsed = content.slice(0, end).replace(/\s+/g, ' ').trimStart();
    const characters = Array.from(collapsed);
    if (characters.length > SNIPPET_LENGTH || end >= content.length) {
      return characters.slice(0, SNIPPET_LENGTH).join('').trimEnd();
    }
    end *= 4;
  }
}
