/**
 * Text from a skill (manifest fields, names, file contents) is untrusted. Written to a
 * terminal raw, an escape sequence can move the cursor, erase a line or retitle the window
 * (so a trust prompt could be painted over with a fake summary), and bidi or zero-width
 * characters can make text read differently from what it is. `inert` shows such
 * characters as visible escapes instead; `markInvisible` marks the ones a model would
 * read but a person reviewing the text would not see (tag characters, zero-width, bidi).
 */

/**
 * Controls (C0, DEL, C1: ESC, BEL, CR, backspace, CSI…), format characters (bidi
 * embeddings, overrides and isolates, zero-width space and joiners, the BOM, soft hyphen,
 * tag characters), and line and paragraph separators. Made at first use, as is the next:
 * a Unicode property class costs ~0.15 ms to build, and most commands that load this
 * module (through cli/ui/render.ts) never show untrusted text.
 */
let unsafe: RegExp | undefined;
const UNSAFE = () => unsafe ??= /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/** Characters nobody sees that a model reads: format characters and variation selectors. */
let invisible: RegExp | undefined;
const INVISIBLE = () => invisible ??= /[\p{Cf}\p{Zl}\p{Zp}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]/gu;

function codePoint(ch: string): number {
  return ch.codePointAt(0)!;
}

function escape(ch: string): string {
  const cp = codePoint(ch);
  if (cp === 0x0a) return "\\n";
  if (cp === 0x09) return "\\t";
  if (cp === 0x0d) return "\\r";
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, "0")}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, "0")}`;
  return `\\u{${cp.toString(16)}}`;
}

/**
 * `text` safe to write to a terminal: every control, format and separator character shown
 * as an escape (`\x1b`, `\u202e`, `\u{e0041}`), lone surrogates replaced. With
 * `multiline`, newlines (and tabs) stay as they are.
 */
export function inert(text: string, options: { multiline?: boolean } = {}): string {
  const keep = options.multiline === true;
  return text.toWellFormed().replace(
    UNSAFE(),
    (ch) => keep && (ch === "\n" || ch === "\t") ? ch : escape(ch),
  );
}

/**
 * `text` on one line: its line breaks, with the blanks around them, read as one space (a
 * description or compatibility written as a YAML block scalar, `description: |`). For a field
 * or a table cell, before {@link inert}: what is left of control characters is escaped there.
 */
export function oneLine(text: string): string {
  return text.replace(/[ \t]*\r?\n[ \t]*/g, " ").trim();
}

/** `text` with each invisible character replaced by a visible mark such as `[U+200B]`. */
export function markInvisible(text: string): string {
  return text.toWellFormed().replace(
    INVISIBLE(),
    (ch) => `[U+${codePoint(ch).toString(16).toUpperCase().padStart(4, "0")}]`,
  );
}
