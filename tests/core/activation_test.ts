import assert from "node:assert/strict";
import { parseActivation, resolveActivation } from "../../src/core/activation.ts";

const candidates = [
  { canonical: "hello-extended", trusted: true },
  { canonical: "kalshi-markets", trusted: true },
  { canonical: "third-party", trusted: false },
];

function activeFor(value: string | undefined): string[] {
  return [...resolveActivation(parseActivation(value), candidates).active].sort();
}

Deno.test("AGENT_SKILLS lists are case-insensitive and canonicalised", () => {
  assert.deepEqual(activeFor("Kalshi-Markets,Hello_Extended"), [
    "hello-extended",
    "kalshi-markets",
  ]);
  assert.deepEqual(activeFor(" kalshi_markets , "), ["kalshi-markets"]);
});

Deno.test("AGENT_SKILLS none, empty and unset activate nothing", () => {
  for (const value of ["none", "NONE", "", "  ", undefined]) {
    assert.deepEqual(activeFor(value), [], String(value));
  }
});

Deno.test("AGENT_SKILLS=all activates trusted skills only; all-untrusted activates every skill", () => {
  assert.deepEqual(activeFor("all"), ["hello-extended", "kalshi-markets"]);
  assert.deepEqual(activeFor("ALL"), ["hello-extended", "kalshi-markets"]);
  assert.deepEqual(activeFor("all-untrusted"), ["hello-extended", "kalshi-markets", "third-party"]);
});

Deno.test("unknown, invalid and untrusted names are reported, not ignored", () => {
  const result = resolveActivation(
    parseActivation("kalshi-markets,nope,../etc,third-party"),
    candidates,
  );
  assert.deepEqual([...result.active], ["kalshi-markets"]);
  const text = result.warnings.join("\n");
  assert.match(text, /Unknown skill\(s\) in AGENT_SKILLS: nope/);
  assert.match(text, /Invalid skill name\(s\) in AGENT_SKILLS ignored: '\.\.\/etc'/);
  assert.match(text, /'third-party' is not trusted/);
});
