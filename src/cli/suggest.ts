/** "Did you mean …?" for a mistyped command (pure). */

import type { CommandSpec } from "./spec.ts";

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `lsit` is one
 * edit from `list`, `upate` one from `update`.
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** How far a typo may be from a command: one edit for short words, two from five letters. */
const maxDistance = (word: string) => (word.length < 5 ? 1 : 2);

/**
 * The commands `word` most likely meant, best first (at most three): names or aliases
 * within a small edit distance, then commands the word is a prefix of (`comp` →
 * completions). One suggestion per command, spelled as the closest of its names.
 */
export function suggestCommands(word: string, specs: readonly CommandSpec[]): string[] {
  const lower = word.toLowerCase();
  const scored: { word: string; score: number; order: number }[] = [];
  specs.forEach((spec, order) => {
    let best: { word: string; score: number } | undefined;
    for (const name of [spec.name, ...spec.aliases ?? []]) {
      const distance = editDistance(lower, name);
      const score = distance <= maxDistance(lower)
        ? distance
        : lower.length >= 2 && name.startsWith(lower)
        ? 3 // a prefix: after every near miss
        : Infinity;
      if (score < (best?.score ?? Infinity)) best = { word: name, score };
    }
    if (best) scored.push({ ...best, order });
  });
  return scored.sort((a, b) => a.score - b.score || a.order - b.order).slice(0, 3).map((s) =>
    s.word
  );
}
