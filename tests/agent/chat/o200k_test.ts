/**
 * The compact o200k_base vocabulary (src/agent/chat/o200k.ts, through tokens.ts's
 * countTokens) counts exactly as gpt-tokenizer does — over the repository's own text, over
 * the library's quirks (byte-order marks, lone surrogates, invalid UTF-8 runs) and over
 * seeded random text — and the token counter no longer loads the library's vocabulary.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens } from "../../../src/agent/chat/tokens.ts";
import { countPiece } from "../../../src/agent/chat/o200k.ts";
import { REPO_ROOT } from "../../helpers/cli.ts";
import { moduleGraph } from "../../helpers/module_graph.ts";

const ORDINARY = { disallowedSpecial: new Set<string>() };

function library(text: string): number {
  return countO200k(text, ORDINARY);
}

/** The repository's text files under `dir` (Markdown, TypeScript, Python, JSON, YAML). */
function textFiles(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "generated") textFiles(path, out);
    else if (entry.isFile && /\.(md|ts|py|json|ya?ml|txt)$/.test(entry.name)) out.push(path);
  }
  return out;
}

Deno.test("countTokens() counts the repository's docs, skills and sources as gpt-tokenizer does", () => {
  const files = ["docs", "skills", "src/agent", "src/core/audit"]
    .flatMap((dir) => textFiles(join(REPO_ROOT, dir)));
  assert.ok(files.length > 80, `only ${files.length} files`);
  for (const file of files) {
    const text = Deno.readTextFileSync(file);
    assert.equal(countTokens(text), library(text), file);
  }
});

Deno.test("countPiece() follows the library where bytes and text differ", () => {
  const pieces = [
    // Tokens the library keeps as bytes though they are valid UTF-8: a leading byte-order
    // mark, which its TextDecoder drops when looking a merged run up as text.
    "\ufeffusing",
    "\ufeff\n\n",
    "\ufeffnamespace",
    "\ufeff",
    "\ufeff\ufeff",
    "a\ufeffb",
    // Lone surrogates: the whole piece is no token; their UTF-8 is U+FFFD's.
    "\ud800",
    "\udc00x",
    "\ufffd",
    "é",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "👍🏽",
    " Ⅻ",
  ];
  for (const piece of pieces) {
    assert.equal(countPiece(piece), library(piece), JSON.stringify(piece));
    assert.equal(countTokens(piece), library(piece), JSON.stringify(piece));
  }
});

/** A small seeded generator (mulberry32): the same texts on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("countTokens() counts seeded random text of every script as gpt-tokenizer does", () => {
  const next = random(46);
  const alphabets = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789",
    " \t\n\r\n  ",
    "'\"!#$%&()*+,-./:;<=>?@[\\]^_`{|}~",
    "àéîõüçñßøåæœÀÉÎÕÜÇÑ",
    "日本語のテキスト中文한국어",
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    "\u0301\u0308\u200d\ufe0f\ufeff\u00a0\u2028",
    "😀👍🏽🇫🇷🧑‍💻",
    "\ud800\udfff\udbff",
    "<|endoftext|>",
  ];
  for (let i = 0; i < 3000; i++) {
    const length = 1 + Math.floor(next() * 40);
    let text = "";
    for (let j = 0; j < length; j++) {
      const alphabet = alphabets[Math.floor(next() * alphabets.length)]!;
      const chars = [...alphabet];
      text += chars[Math.floor(next() * chars.length)]!;
    }
    assert.equal(countTokens(text), library(text), JSON.stringify(text));
  }
});

Deno.test("the token counter's module graph holds none of gpt-tokenizer's vocabularies", async () => {
  const specifiers = await moduleGraph("src/agent/chat/tokens.ts");
  assert.ok(specifiers.some((s) => s.includes("gpt-tokenizer")), "the split comes from it");
  assert.deepEqual(specifiers.filter((s) => /bpeRanks|\/encoding\//.test(s)), []);
});
