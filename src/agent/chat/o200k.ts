/**
 * o200k_base token counts from the compact vocabulary `deno task gen` writes
 * (src/generated/o200k_table.js, built from gpt-tokenizer's own table), exactly as
 * gpt-tokenizer 4 counts a piece of text. Loading the library costs ~0.5 s of CPU at every
 * start (parsing its 200,000-string array, then building its maps); this table decodes and
 * indexes in milliseconds, and `skills context` with no active skill counts a handful of
 * pieces.
 *
 * The library's lookups, reproduced byte for byte (tests/agent/chat/o200k_test.ts compares
 * the counts): a whole piece is one token when it is a token's text; otherwise its UTF-8 is
 * merged pair by pair, lowest rank first, where a run of bytes that is valid UTF-8 is looked
 * up as text — decoded, so a leading byte-order mark is dropped, as TextDecoder does — and
 * any other run among the tokens the library keeps as bytes.
 */

// @ts-types="../../generated/o200k_table.d.ts"
import { O200K_BYTE_TOKENS, O200K_TABLE, O200K_TOKEN_COUNT } from "../../generated/o200k_table.js";

interface Vocabulary {
  /** The table: lengths first, then the tokens' bytes. */
  table: Uint8Array;
  /** Where each rank's bytes start in `table`. */
  starts: Uint32Array;
  /** 1 for a token the library keeps as bytes, 0 for one it keeps as text. */
  asBytes: Uint8Array;
  /** Open addressing: a rank + 1 per slot, 0 for an empty slot. */
  slots: Int32Array;
  mask: number;
}

/** Slots for 200,000 tokens: a load under 40 %, so probes stay short. */
const SLOT_BITS = 19;
const TEXT = 0;
const BYTES = 1;

let vocabulary: Vocabulary | undefined;

function loaded(): Vocabulary {
  vocabulary ??= indexVocabulary();
  return vocabulary;
}

function indexVocabulary(): Vocabulary {
  const table = Uint8Array.fromBase64(O200K_TABLE);
  const count = O200K_TOKEN_COUNT;
  const starts = new Uint32Array(count);
  const asBytes = new Uint8Array(count);
  for (const rank of O200K_BYTE_TOKENS) asBytes[rank] = BYTES;
  const mask = (1 << SLOT_BITS) - 1;
  const slots = new Int32Array(mask + 1);
  let at = count;
  for (let rank = 0; rank < count; rank++) {
    starts[rank] = at;
    const end = at + table[rank]!;
    let slot = hash(table, at, end) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = rank + 1;
    at = end;
  }
  return { table, starts, asBytes, slots, mask };
}

/** FNV-1a over `bytes[start, end)`. */
function hash(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The rank of the token of `kind` whose bytes are `bytes[start, end)`, or -1. */
function find(v: Vocabulary, kind: number, bytes: Uint8Array, start: number, end: number) {
  const length = end - start;
  for (let slot = hash(bytes, start, end) & v.mask;; slot = (slot + 1) & v.mask) {
    const entry = v.slots[slot]!;
    if (entry === 0) return -1;
    const rank = entry - 1;
    if (v.asBytes[rank] !== kind || v.table[rank] !== length) continue;
    const from = v.starts[rank]!;
    let same = true;
    for (let i = 0; i < length && same; i++) same = v.table[from + i] === bytes[start + i];
    if (same) return rank;
  }
}

/** The library's rank of a run of bytes met while merging (see the module's comment). */
function mergeRank(v: Vocabulary, bytes: Uint8Array, start: number, end: number): number {
  if (!validUtf8(bytes, start, end)) return find(v, BYTES, bytes, start, end);
  const bom = end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb &&
    bytes[start + 2] === 0xbf;
  const from = bom ? start + 3 : start;
  return from === end ? -1 : find(v, TEXT, bytes, from, end);
}

/** Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
function validUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end;) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const size = lead >= 0xc2 && lead <= 0xdf
      ? 2
      : (lead & 0xf0) === 0xe0
      ? 3
      : lead >= 0xf0 && lead <= 0xf4
      ? 4
      : 0;
    if (size === 0 || i + size > end) return false;
    let point = lead & (0xff >> (size + 1));
    for (let j = 1; j < size; j++) {
      const next = bytes[i + j]!;
      if ((next & 0xc0) !== 0x80) return false;
      point = (point << 6) | (next & 0x3f);
    }
    if (size === 3 && (point < 0x800 || (point >= 0xd800 && point <= 0xdfff))) return false;
    if (size === 4 && (point < 0x10000 || point > 0x10ffff)) return false;
    i += size;
  }
  return true;
}

const encoder = new TextEncoder();

/**
 * The o200k_base tokens of one piece of the split (a match of the encoding's split
 * expression), as gpt-tokenizer counts it.
 */
export function countPiece(piece: string): number {
  if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
  const v = loaded();
  const bytes = encoder.encode(piece);
  // The library looks the whole piece up as a string: text that is not well-formed is no token.
  if (piece.isWellFormed() && find(v, TEXT, bytes, 0, bytes.length) !== -1) return 1;
  return mergedParts(v, bytes);
}

/** How many tokens byte-pair merging leaves of `bytes` (the library's loop, step for step). */
function mergedParts(v: Vocabulary, bytes: Uint8Array): number {
  const starts: number[] = [];
  const ranks: number[] = [];
  const rankAt = (index: number): number => {
    const end = starts[index + 2];
    if (end === undefined) return Infinity;
    const rank = mergeRank(v, bytes, starts[index]!, end);
    return rank === -1 ? Infinity : rank;
  };
  for (let i = 0; i <= bytes.length; i++) {
    starts.push(i);
    ranks.push(Infinity);
  }
  for (let i = 0; i < bytes.length - 1; i++) ranks[i] = rankAt(i);
  while (starts.length > 1) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < ranks.length - 1; i++) {
      if (ranks[i]! < lowest) {
        lowest = ranks[i]!;
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = rankAt(at);
    if (at > 0) ranks[at - 1] = rankAt(at - 1);
  }
  return starts.length - 1;
}
