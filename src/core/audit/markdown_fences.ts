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
  let inComment = false;
  for (const line of text.split("\n")) {
    if (!inComment && fences.read(line)) {
      lines.push(line);
      continue;
    }
    let shown = "";
    let rest = line;
    while (rest !== "") {
      if (inComment) {
        const end = rest.indexOf("-->");
        if (end === -1) break;
        rest = rest.slice(end + 3);
        inComment = false;
        continue;
      }
      const open = commentOutsideCode(shown, rest);
      if (open === -1) {
        shown += rest;
        break;
      }
      shown += rest.slice(0, open);
      rest = rest.slice(open + 4);
      inComment = true;
    }
    lines.push(shown);
  }
  const body = lines.filter((l) => !REFERENCE_DEFINITION.test(l)).join("\n").toLowerCase();
  return lines.map((l) => {
    const label = REFERENCE_DEFINITION.exec(l)?.[1];
    return label === undefined || body.includes(`[${label.toLowerCase()}]`) ? l : "";
  }).join("\n");
}

/** `[label]: destination`, a link reference definition (up to three spaces of indent). */
const REFERENCE_DEFINITION = /^ {0,3}\[([^\]]+)\]:\s*\S/;

/** Where `rest` opens an HTML comment outside an inline code span, given the line before it. */
function commentOutsideCode(before: string, rest: string): number {
  let from = 0;
  for (;;) {
    const at = rest.indexOf("<!--", from);
    if (at === -1) return -1;
    const ticks = (before + rest.slice(0, at)).match(/`/g)?.length ?? 0;
    if (ticks % 2 === 0) return at;
    from = at + 4;
  }
}
