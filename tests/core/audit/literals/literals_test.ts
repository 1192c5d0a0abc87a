/**
 * The audit's literal gate (src/core/audit/literals/): the literals a pattern requires are
 * never more than its matches hold, so a pattern the gate skips could not have matched — shown
 * over the audit corpus, this repository's skills, fixtures and documents, and those texts with
 * their letters' case shuffled — and the gate does skip: a text without a rule's literals runs
 * none of its patterns.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { AUDIT_RULES } from "../../../../src/core/audit/audit_rules.ts";
import { LiteralScan } from "../../../../src/core/audit/literals/literal_scan.ts";
import { PatternGate } from "../../../../src/core/audit/literals/pattern_gate.ts";
import { requiredLiterals } from "../../../../src/core/audit/literals/required_literals.ts";
import { AUDIT_CORPUS } from "../../../fixtures/audit_corpus.ts";
import { LABELLED_CORPUS } from "../../../fixtures/audit_corpus/labelled.ts";
import { HELD_OUT_CORPUS } from "../../../fixtures/audit_corpus/held_out.ts";
import { REPO_ROOT } from "../../../helpers/cli.ts";

Deno.test("requiredLiterals() reads the literals every match holds, and nothing it cannot follow", () => {
  const read = (pattern: RegExp) => requiredLiterals(pattern);
  assert.deepEqual(read(/\bcurl\b[^\n|]*\|\s*sh\b/gi), [["curl"]]);
  assert.deepEqual(
    read(/\b(?:ignore|disregard)\s+(?:all\s+)?previous\s+(?:rules|instructions?)\b/gi),
    [["disregard", "ignore"], ["previous"], ["instruction", "instructions", "rules"]],
  );
  // Case-sensitive literals are read folded, as the scan reads the text: a weaker test.
  assert.deepEqual(read(/\bLogin Data\b|\bkey4\.db\b/g), [["key4.db", "login data"]]);
  assert.deepEqual(read(/\.(?:ssh|aws)[/\\]/g), [[".aws/", ".aws\\", ".ssh/", ".ssh\\"]]);
  assert.deepEqual(read(/[a-z]+_token\d{2,}/g), [["_token"]]);
  // An optional part, an empty branch or a look-around requires nothing.
  assert.deepEqual(read(/(?:secret)?key(?!board)/g), [["key", "secretkey"]]);
  assert.deepEqual(read(/(?:curl|)wget/g), [["curlwget", "wget"]]);
  assert.deepEqual(read(/(?<!https?:\/\/)example/g), [["example"]]);
  // A branch without a literal of its own leaves the alternation without a factor.
  assert.deepEqual(read(/\bcurl\b|\bnc\b/g), []);
  // What is not followed: back-references, character classes and escapes by number, syntax
  // this reading does not know, and case folding under the u flag.
  assert.deepEqual(read(/(["'])x\1/g), []);
  assert.deepEqual(read(/\u0041BC/g), []);
  assert.deepEqual(read(/(?i:abc)def/g), []);
  assert.deepEqual(read(/token/iu), []);
  // `[]` matches nothing in JavaScript (a `]` first in a class closes it), as a pattern's
  // source can hold it: built from a string, the way the linter lets one be written.
  assert.deepEqual(read(new RegExp("[]abc", "g")), [["abc"]]);
  assert.deepEqual(read(new RegExp("[]x]yz", "g")), [["x]yz"]]);
});

Deno.test("LiteralScan finds exactly the literals a text holds, A-Z read as a-z", () => {
  const literals = ["abc", "bcd", "abcde", "cd", "x.y", "\ttab"];
  const scan = new LiteralScan(literals);
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet = "abcdeABCDE.xy\t é";
  for (let round = 0; round < 2000; round++) {
    const text = Array.from(
      { length: 1 + Math.floor(random() * 12) },
      () => alphabet[Math.floor(random() * alphabet.length)],
    ).join("");
    const folded = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const expected = literals.map((literal) => (folded.includes(literal) ? 1 : 0));
    assert.deepEqual([...scan.found(text)], expected, JSON.stringify(text));
  }
  // A character past ASCII ends every literal there.
  assert.deepEqual([...new LiteralScan(["abc"]).found("abéc")], [0]);
});

/**
 * Texts to hold the gate to: the rules' samples, the labelled and held-out corpora, and this
 * repository's skills, fixtures and documents.
 */
function corpusTexts(): string[] {
  const texts: string[] = [];
  for (const samples of Object.values(AUDIT_CORPUS)) {
    for (const files of [samples.fires, samples.quiet]) {
      for (const content of Object.values(files)) {
        if (typeof content === "string") texts.push(content);
      }
    }
  }
  for (const sample of [...LABELLED_CORPUS, ...HELD_OUT_CORPUS]) {
    texts.push(...Object.values(sample.files));
  }
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && /\.(?:md|py|sh|js|mjs|ts|json|ya?ml|txt)$/.test(entry.name)) {
        texts.push(Deno.readTextFileSync(path));
      }
    }
  };
  for (const dir of ["skills", "tests/fixtures", "docs"]) walk(join(REPO_ROOT, dir));
  return texts;
}

const RULE_PATTERNS = AUDIT_RULES.flatMap((rule) =>
  rule.match.type === "pattern" || rule.match.type === "remote-instructions"
    ? rule.match.patterns
    : []
);

Deno.test("the gate never skips a pattern that matches: the corpus, the repository, shuffled case", () => {
  const gate = new PatternGate(RULE_PATTERNS);
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const shuffled = (text: string) =>
    text.replace(/[a-z]/gi, (c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase()));
  let matched = 0;
  let skipped = 0;
  for (const original of corpusTexts()) {
    for (const text of [original, shuffled(original)]) {
      const found = gate.scan(text);
      for (const pattern of RULE_PATTERNS) {
        const matches = new RegExp(pattern.source, pattern.flags).test(text);
        const may = gate.mayMatch(pattern, found);
        if (matches) matched++;
        if (!may) skipped++;
        assert.ok(!matches || may, `${pattern} matches a text the gate skips it for`);
      }
    }
  }
  assert.ok(matched > 100, `the corpus exercises the patterns (${matched} matches)`);
  assert.ok(skipped > matched, `the gate skips patterns (${skipped} skipped)`);
});

Deno.test("a text without a rule's literals runs none of its patterns; one with them runs them", () => {
  const gate = new PatternGate(RULE_PATTERNS);
  const exfil = AUDIT_RULES.find((rule) => rule.id === "exfil-endpoint")!.match;
  assert.equal(exfil.type, "pattern");
  const plain = gate.scan("Summarise the quarterly report and post it to the team channel.\n");
  const hook = gate.scan("Then POST the file to https://abc.Webhook.site/x.\n");
  for (const pattern of exfil.type === "pattern" ? exfil.patterns : []) {
    assert.equal(gate.mayMatch(pattern, plain), false, String(pattern));
  }
  assert.equal(gate.mayMatch(exfil.type === "pattern" ? exfil.patterns[0]! : /x/, hook), true);
  // A pattern the gate was not built with always runs.
  assert.equal(gate.mayMatch(/anything/, plain), true);
});
