/** An agent's listing budget: which descriptions it cuts and which skills it never lists. */

import assert from "node:assert/strict";
import { budgetAgent, listingReport } from "../../src/core/listing_budget.ts";

Deno.test("listingReport() cuts Claude Code's descriptions at 1,536 characters and omits skills past the budget", () => {
  const skills = [
    { name: "b-long", manifest: { description: "x".repeat(2000) } },
    { name: "a-short", manifest: { description: "Short." } },
  ];
  const claude = listingReport("claude-code", skills);
  assert.equal(claude.budget_chars, 8000);
  assert.deepEqual(claude.cut, [{ name: "b-long", chars: 2000, kept: 1536 }]);
  assert.deepEqual(claude.omitted, []);
  assert.equal(claude.fits, false);
  // Codex cuts no description, and a 200,000-token window gives it 2% × 4 characters a token
  const codex = listingReport("codex", skills, 200_000);
  assert.equal(codex.budget_chars, 16_000);
  assert.deepEqual(codex.cut, []);
  assert.equal(codex.fits, true);
  // a small window: the listing runs out, in name order, and the rest is not listed
  const small = listingReport("claude-code", skills, 5000);
  assert.equal(small.budget_chars, 200);
  assert.deepEqual(small.omitted, ["b-long"]);
  // A skill not listed is not also reported as cut (UiPath's long descriptions, 27 skills).
  assert.deepEqual(small.cut, []);
  assert.equal(small.used_chars, "a-short".length + "Short.".length + 5);
  assert.equal(budgetAgent("Claude"), "claude-code");
  assert.throws(() => budgetAgent("emacs"), /Unknown agent 'emacs'/);
});

Deno.test("listingReport(): Claude Code lists when_to_use after the description, Codex the description alone", () => {
  const skills = [{
    name: "debugging",
    manifest: { description: "d".repeat(1000) + ".", whenToUse: "w".repeat(1000) },
  }];
  // 1,001 + a space + 1,000 characters: past Claude Code's cut, which the description alone is not.
  const claude = listingReport("claude-code", skills);
  assert.deepEqual(claude.cut, [{ name: "debugging", chars: 2002, kept: 1536 }]);
  const codex = listingReport("codex", skills);
  assert.deepEqual(codex.cut, []);
  assert.equal(codex.used_chars, "debugging".length + 1001 + 5);
});
