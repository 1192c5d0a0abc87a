/**
 * Which of a rule table's patterns can match a text: the patterns' required literals
 * (required_literals.ts) found in one scan of the text (literal_scan.ts). A pattern whose
 * factors are not all there cannot match, and is not run; one with no factor always runs.
 */

import { LiteralScan } from "./literal_scan.ts";
import { requiredLiterals } from "./required_literals.ts";

export class PatternGate {
  readonly #factors = new Map<RegExp, readonly (readonly number[])[]>();
  readonly #scan: LiteralScan;

  constructor(patterns: Iterable<RegExp>) {
    const ids = new Map<string, number>();
    for (const pattern of patterns) {
      const factors = requiredLiterals(pattern).map((factor) =>
        factor.map((text) => {
          let id = ids.get(text);
          if (id === undefined) ids.set(text, id = ids.size);
          return id;
        })
      );
      if (factors.length > 0) this.#factors.set(pattern, factors);
    }
    this.#scan = new LiteralScan([...ids.keys()]);
  }

  /** The literals `text` holds, for mayMatch. */
  scan(text: string): Uint8Array {
    return this.#scan.found(text);
  }

  /** Whether `pattern` can match the text `found` was scanned from. */
  mayMatch(pattern: RegExp, found: Uint8Array): boolean {
    const factors = this.#factors.get(pattern);
    return factors === undefined ||
      factors.every((factor) => factor.some((id) => found[id] === 1));
  }
}
