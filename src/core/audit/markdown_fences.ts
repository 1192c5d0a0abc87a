/**
 * Fenced code blocks of a Markdown text, line by line, closed as CommonMark closes them: a
 * fence of three or more backticks or tildes opens one, and only a fence of the same character,
 * at least as long and with nothing after it, closes it. So a ```` block that shows a
 * ```markdown example stays one block (Gamaroff's qa-review shows a story file's links that
 * way), and ``` inside a ~~~ block is text. A fence may be indented, as in a list item.
 */
export class FenceReader {
  #open: { char: string; length: number } | undefined;

  /** Whether `line` is a fence or inside a fenced block; reads the lines in order. */
  read(line: string): boolean {
    const fence = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (this.#open !== undefined) {
      if (
        fence !== null && fence[1]![0] === this.#open.char &&
        fence[1]!.length >= this.#open.length && fence[2]!.trim() === ""
      ) {
        this.#open = undefined;
      }
      return true;
    }
    // A backtick fence's info string holds no backtick (```x``` is inline code).
    if (fence === null || (fence[1]![0] === "`" && fence[2]!.includes("`"))) return false;
    this.#open = { char: fence[1]![0]!, length: fence[1]!.length };
    return true;
  }
}

/**
 * A Markdown text as a reader of its rendering meets it: HTML comments outside code blanked
 * out, and link reference definitions nothing refers to, which render as nothing. What the
 * audit counts as declared by a SKILL.md (the hosts it names) must be what a reviewer reading
 * it is shown: `<!-- https://drop.example -->` declares nothing.
 */
export function shownText(text: string): string {
  const fences = new FenceReader();
  const lines: string[] = [];
  const state = { inComment: false };
  for (const line of text.split("\n")) {
    lines.push(!state.inComment && fences.read(line) ? line : shownLine(line, state));
  }
  // Every `[label]` the text refers to, read once: a definition of none renders as nothing.
  const used = new Set<string>();
  for (const line of lines) {
    if (REFERENCE_DEFINITION.test(line)) continue;
    for (const m of line.matchAll(/\[([^\]]+)\]/g)) used.add(m[1]!.toLowerCase());
  }
  return lines.map((l) => {
    const label = REFERENCE_DEFINITION.exec(l)?.[1];
    return label === undefined || used.has(label.toLowerCase()) ? l : "";
  }).join("\n");
}

/** `[label]: destination`, a link reference definition (up to three spaces of indent). */
const REFERENCE_DEFINITION = /^ {0,3}\[([^\]]+)\]:\s*\S/;

/**
 * A line outside fences with its HTML comments taken out (`state.inComment` carries one over
 * line ends), but for a `<!--` inside an inline code span, shown as written. One pass: the
 * backticks before each `<!--` are counted as the line is read, not again for each.
 */
function shownLine(line: string, state: { inComment: boolean }): string {
  let shown = "";
  let ticks = 0;
  let i = 0;
  while (i < line.length) {
    if (state.inComment) {
      const end = line.indexOf("-->", i);
      if (end === -1) return shown;
      i = end + 3;
      state.inComment = false;
      continue;
    }
    const at = line.indexOf("<!--", i);
    const upto = at === -1 ? line.length : at;
    for (let j = i; j < upto; j++) if (line.charCodeAt(j) === 96) ticks++;
    if (at === -1) return shown + line.slice(i);
    const inCode = ticks % 2 === 1;
    shown += line.slice(i, inCode ? at + 4 : at);
    i = at + 4;
    state.inComment = !inCode;
  }
  return shown;
}
