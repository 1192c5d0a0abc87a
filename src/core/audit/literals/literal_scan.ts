/**
 * Which of many literals a text holds, in one pass (an Aho-Corasick automaton, A-Z read as
 * a-z): ~10 ns a character however many literals there are, where searching for each in turn
 * reads the text once per literal.
 */

/** Characters read as themselves: ASCII. Any other ends every literal there. */
const ASCII = 128;

export class LiteralScan {
  /** Each character's column: 0 for one no literal holds (it sends every state to the root). */
  readonly #column = new Uint8Array(ASCII);
  readonly #shift: number;
  /** Each state's move on each column, as the row offset of the state moved to. */
  readonly #next: Int32Array;
  readonly #outputs: readonly (readonly number[])[];
  readonly #hasOutput: Uint8Array;
  readonly #literals: number;

  /** `literals`: ASCII, lower-case (as requiredLiterals gives them). */
  constructor(literals: readonly string[]) {
    let columns = 1;
    for (const text of literals) {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (this.#column[c] === 0) this.#column[c] = columns++;
      }
    }
    for (let c = 65; c <= 90; c++) this.#column[c] = this.#column[c + 32]!;
    // Rows of a power of two: the scan finds a state from its row with a shift.
    this.#shift = Math.max(1, Math.ceil(Math.log2(columns)));
    columns = 1 << this.#shift;
    // The trie: -1 where a state has no child on a column.
    const child: number[] = new Array(columns).fill(-1);
    const outputs: number[][] = [[]];
    literals.forEach((text, id) => {
      let state = 0;
      for (let i = 0; i < text.length; i++) {
        const at = state * columns + this.#column[text.charCodeAt(i)]!;
        if (child[at] === -1) {
          child[at] = outputs.length;
          outputs.push([]);
          for (let k = 0; k < columns; k++) child.push(-1);
        }
        state = child[at]!;
      }
      outputs[state]!.push(id);
    });
    this.#next = linkFailures(child, outputs, columns);
    this.#outputs = outputs;
    this.#hasOutput = Uint8Array.from(outputs, (ids) => (ids.length > 0 ? 1 : 0));
    this.#literals = literals.length;
  }

  /** A flag per literal (by its index): 1 when `text` holds it. */
  found(text: string): Uint8Array {
    const next = this.#next;
    const column = this.#column;
    const shift = this.#shift;
    const hasOutput = this.#hasOutput;
    const reached = new Uint8Array(hasOutput.length);
    let row = 0;
    for (let i = 0, n = text.length; i < n; i++) {
      const c = text.charCodeAt(i);
      row = c < ASCII ? next[row + column[c]!]! : 0;
      const state = row >> shift;
      if (hasOutput[state] === 1) reached[state] = 1;
    }
    const found = new Uint8Array(this.#literals);
    for (let state = 0; state < reached.length; state++) {
      if (reached[state] === 1) { for (const id of this.#outputs[state]!) found[id] = 1; }
    }
    return found;
  }
}

/**
 * The automaton's moves from the trie (`child`, -1 for none), breadth first: a state without a
 * child on a column moves where its failure state does, and holds its failure state's outputs.
 */
function linkFailures(child: readonly number[], outputs: number[][], columns: number): Int32Array {
  const next = new Int32Array(child.length);
  const fail = new Int32Array(outputs.length);
  const queue: number[] = [];
  for (let k = 1; k < columns; k++) {
    const to = child[k]!;
    if (to > 0) {
      next[k] = to * columns;
      queue.push(to);
    }
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    if (outputs[fail[state]!]!.length > 0) {
      outputs[state] = [...outputs[state]!, ...outputs[fail[state]!]!];
    }
    const row = state * columns;
    const fallback = fail[state]! * columns;
    for (let k = 1; k < columns; k++) {
      const to = child[row + k]!;
      if (to === -1) next[row + k] = next[fallback + k]!;
      else {
        fail[to] = next[fallback + k]! / columns;
        next[row + k] = to * columns;
        queue.push(to);
      }
    }
  }
  return next;
}
