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
