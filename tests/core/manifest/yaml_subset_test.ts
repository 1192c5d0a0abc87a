import assert from "node:assert/strict";
// @ts-types="@types/js-yaml"
import yaml from "js-yaml";
import { parseYamlSubset } from "../../../src/core/manifest/yaml_subset.ts";

type JsYaml = { ok: true; value: unknown } | { ok: false; error: string };

function jsYaml(text: string): JsYaml {
  try {
    return { ok: true, value: yaml.load(text, { schema: yaml.CORE_SCHEMA, json: false }) };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

/** Whenever the subset accepts `text`, js-yaml must load it to the very same value. */
function checkAgainstJsYaml(text: string): boolean {
  const ours = parseYamlSubset(text);
  if (ours === undefined) return false;
  const theirs = jsYaml(text);
  assert.ok(theirs.ok, `accepted but js-yaml throws: ${JSON.stringify([text, theirs])}`);
  assert.deepStrictEqual(ours, theirs.value, `differs from js-yaml: ${JSON.stringify(text)}`);
  return true;
}

// --- a deterministic generator of tricky documents -------------------------------------

/** mulberry32: small, fast and reproducible. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SAFE_WORDS = [
  ..."abc Hello kalshi-markets x MIT KALSHI_* a_b v2 toolsets.hello:HelloExtended".split(" "),
  "Read-only data",
  "Bash Read",
];
// Every indicator at start, middle and end of values, and every kind of implicit scalar
// the core schema resolves (or that YAML 1.1 did: yes/no/on/off, dates, sexagesimal).
const TRICKY = [
  ..."-?:,[]{}#&*!|>'\"%@`+.~/$()=<;^_\\",
  ...("1 0 007 0x1F 0o17 0b101 1_000 -1 +1 1.5 1. 1.0.0 2.0.0-beta.1 1e3 1.5e-3 .5 .inf -.Inf " +
    "+.INF .NaN .nan ~ null Null NULL nUll true True TRUE tRue false False yes No on OFF y " +
    "2024-01-01 2001-12-14t21:59:43.10-05:00 12:30 é 日本語 😀 C# a@b $HOME (x) a/b a,b it's " +
    "--- ... << &a *a !!str | >- http://x.y/z key:").split(" "),
  ...[": ", " #", "#", " ", "  ", "''", "\\n", '\\"', "\t", "\r", "\r\n", "- ", "? ", "a: b"],
  ...['say "hi"', "\uD800", "\uDC00", "\u00A0", "\u3000", "\u0085", "\u2028", "\uFEFF"],
  ...["\x7F", "\x00", "\x1B", "\uFFFE"],
];
const KEYS = [
  ..."name description a b a-b a_b a.b _x A1 true Null no << __proto__ constructor".split(" "),
  ...["toString", "a b", "'q'", '"q"', "1a", "1", "-a", "? a", "a#b", "é", "&k a", "[x]"],
];

function generateScalar(r: () => number, tricky: boolean): string {
  const pool = tricky && r() < 0.6 ? TRICKY : SAFE_WORDS;
  let s = "";
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const list = r() < 0.5 ? pool : SAFE_WORDS;
    s += (i > 0 && r() < 0.4 ? " " : "") + list[Math.floor(r() * list.length)];
  }
  const wrap = r();
  if (wrap < 0.12) return `'${r() < 0.8 ? s.replaceAll("'", "''") : s}'`;
  if (wrap < 0.24) return `"${s}"`;
  return s;
}

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

/** A block mapping of `depth` levels at `indent`, with random noise lines and mistakes. */
function generateMapping(
  r: () => number,
  indent: number,
  depth: number,
  tricky: boolean,
): string[] {
  const lines: string[] = [];
  const pad = (n: number) => " ".repeat(n);
  const keys = tricky ? KEYS : KEYS.slice(0, 7);
  const n = 1 + Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    if (r() < 0.1) lines.push(pad(Math.floor(r() * 4)));
    if (r() < 0.1) lines.push(`${pad(Math.floor(r() * 6))}# ${generateScalar(r, tricky)}`);
    const here = tricky && r() < 0.05 ? indent + 1 : indent;
    const key = pick(r, keys);
    const sep = tricky && r() < 0.1 ? pick(r, [":", " :", ":  ", ":\t"]) : ": ";
    const kind = r();
    if (kind < 0.6 || depth >= 3) {
      const trailing = r() < 0.1 ? pick(r, [" ", "  ", " # c", "\t"]) : "";
      lines.push(`${pad(here)}${key}${sep}${generateScalar(r, tricky)}${trailing}`);
      if (tricky && r() < 0.05) lines.push(`${pad(indent + 2)}${generateScalar(r, tricky)}`);
    } else if (kind < 0.8) {
      lines.push(`${pad(here)}${key}:${r() < 0.1 ? pick(r, [" ", " # c", " &a", " !!map"]) : ""}`);
      const step = 1 + Math.floor(r() * 4);
      if (!tricky || r() < 0.9) lines.push(...generateMapping(r, indent + step, depth + 1, tricky));
    } else {
      lines.push(`${pad(here)}${key}:`);
      const at = indent + Math.floor(r() * 4);
      const items = 1 + Math.floor(r() * 3);
      for (let j = 0; j < items; j++) {
        const item = tricky && r() < 0.1
          ? pick(r, ["-", "- - x", "- k: v", "-x", "-  x", "- [a]"])
          : `- ${generateScalar(r, tricky)}`;
        lines.push(`${pad(tricky && r() < 0.05 ? at + 1 : at)}${item}`);
      }
    }
  }
  return lines;
}

function generateDocument(r: () => number): string {
  const tricky = r() < 0.6;
  const lines = generateMapping(r, 0, 0, tricky);
  if (tricky && r() < 0.1) lines.splice(Math.floor(r() * lines.length), 0, lines[0]!);
  let text = lines.join(r() < 0.02 ? "\r\n" : "\n");
  if (r() < 0.5) text += "\n";
  return text;
}

/** Small random edits of a valid document: where subtle parser mistakes show up. */
function mutate(r: () => number, text: string): string {
  const at = Math.floor(r() * (text.length + 1));
  const op = r();
  if (op < 0.4) return text.slice(0, at) + pick(r, TRICKY) + text.slice(at);
  if (op < 0.7) return text.slice(0, at) + text.slice(at + 1 + Math.floor(r() * 3));
  const lines = text.split("\n");
  const i = Math.floor(r() * lines.length);
  lines[i] = r() < 0.5 ? ` ${lines[i]}` : lines[i]!.replace(/^ /, "");
  return lines.join("\n");
}

// --- front matter from the repository ----------------------------------------------------

const ROOT = new URL("../../../", import.meta.url);

async function* skillMdFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* skillMdFiles(url);
    else if (entry.name === "SKILL.md") yield url;
  }
}

/** The text between the first two `---` lines, split the simple way. */
function frontMatter(text: string): string | undefined {
  const parts = text.split(/^---[ \t]*\r?$/m);
  return parts.length >= 3 && parts[0] === "" ? parts[1]!.replace(/^\r?\n/, "") : undefined;
}

async function repoFrontMatters(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const dir of ["skills/core/", "tests/fixtures/"]) {
    for await (const url of skillMdFiles(new URL(dir, ROOT))) {
      const yamlText = frontMatter(await Deno.readTextFile(url));
      if (yamlText !== undefined) found.set(url.pathname.slice(ROOT.pathname.length), yamlText);
    }
  }
  return found;
}

// --- tests -----------------------------------------------------------------------------

Deno.test("parseYamlSubset() agrees with js-yaml on a large generated corpus", () => {
  const r = rng(20240601);
  let total = 0;
  let accepted = 0;
  const acceptedOriginals: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    const text = generateDocument(r);
    total++;
    if (checkAgainstJsYaml(text)) {
      accepted++;
      acceptedOriginals.push(text);
    }
  }
  // Mutations of accepted documents probe the edges of the subset.
  let mutatedAccepted = 0;
  for (const text of acceptedOriginals.slice(0, 4_000)) {
    for (let k = 0; k < 5; k++) {
      total++;
      if (checkAgainstJsYaml(mutate(r, text))) mutatedAccepted++;
    }
  }
  accepted += mutatedAccepted;
  assert.ok(accepted / total > 0.2, `only ${accepted} of ${total} documents accepted`);
  assert.ok(accepted < total, "the corpus must also contain documents the subset declines");
  assert.ok(mutatedAccepted > 1_000, `only ${mutatedAccepted} mutated documents accepted`);
});

Deno.test("parseYamlSubset() agrees with js-yaml on every pair of tricky tokens in a value", () => {
  // Values are parsed line by line, so every pair at the start, middle and end of a
  // value, bare and quoted, covers the scalar rules exhaustively for these tokens.
  const templates = [
    (v: string) => `a: ${v}`,
    (v: string) => `a: w${v}z\nb: x`,
    (v: string) => `k:\n  a: x${v}`,
    (v: string) => `k:\n- ${v}`,
    (v: string) => `a: '${v}'`,
    (v: string) => `a: "${v}"  `,
  ];
  let total = 0;
  let accepted = 0;
  for (const x of TRICKY) {
    for (const y of TRICKY) {
      for (const template of templates) {
        total++;
        if (checkAgainstJsYaml(template(x + y))) accepted++;
      }
    }
  }
  assert.ok(accepted / total > 0.2, `only ${accepted} of ${total} values accepted`);
});

Deno.test("parseYamlSubset() accepts every front matter in the repo it parses, exactly", async () => {
  const all = await repoFrontMatters();
  assert.ok(all.size >= 10, `found only ${all.size} SKILL.md files`);
  for (const [path, text] of all) {
    const ours = parseYamlSubset(text);
    if (ours !== undefined) assert.deepStrictEqual({ ok: true, value: ours }, jsYaml(text), path);
  }
  for (
    const path of ["skills/core/kalshi-markets/SKILL.md", "skills/core/hello-extended/SKILL.md"]
  ) {
    const text = all.get(path);
    assert.ok(text !== undefined, `${path} has front matter`);
    const ours = parseYamlSubset(text);
    assert.ok(ours !== undefined, `${path} must take the fast path`);
    assert.deepStrictEqual({ ok: true, value: ours }, jsYaml(text), path);
  }
});

Deno.test("parseYamlSubset() returns the js-yaml value for typical front matter", () => {
  const text = [
    "name: kalshi-markets",
    "description: Read-only Kalshi data - status, search, prices (v2) / C# $HOME é 😀.",
    "version: 1.0.0",
    "license: MIT",
    "allowed-tools: Bash(python3:*) Read",
    "",
    "# a comment",
    "metadata:",
    "  author: 'it''s me'",
    '  toolsets: "hello_toolset:HelloToolset"',
    "permissions:",
    "  env:",
    "  - KALSHI_*",
    "  other:",
    "    - '*_test.py'",
    "scripts_ignore:",
    '- "_*.py"   ',
    "",
  ].join("\n");
  const expected = {
    name: "kalshi-markets",
    description: "Read-only Kalshi data - status, search, prices (v2) / C# $HOME é 😀.",
    version: "1.0.0",
    license: "MIT",
    "allowed-tools": "Bash(python3:*) Read",
    metadata: { author: "it's me", toolsets: "hello_toolset:HelloToolset" },
    permissions: { env: ["KALSHI_*"], other: ["*_test.py"] },
    scripts_ignore: ["_*.py"],
  };
  assert.deepStrictEqual(parseYamlSubset(text), expected);
  assert.deepStrictEqual(jsYaml(text), { ok: true, value: expected });
});

Deno.test("parseYamlSubset() declines what it cannot be sure of", () => {
  const declines: [string, string][] = [
    ["a: 1", "an int"],
    ["a: 1.5", "a float"],
    ["a: true", "a boolean"],
    ["a: ~", "null"],
    ["a: 2024-01-01", "digit-leading; not worth proving it is a string"],
    ['a: "x\\ny"', "an escape in a double-quoted scalar"],
    ["a: 'x", "an unclosed quote"],
    ["a: [x]", "a flow sequence"],
    ["a: {b: c}", "a flow mapping"],
    ["a: |\n  x", "a block scalar"],
    ["a: &x y", "an anchor"],
    ["a: !!str y", "a tag"],
    ["a: b: c", "a mapping indicator inside a plain scalar"],
    ["a: x #c", "a trailing comment"],
    ["a: x\na: y", "a duplicate key (js-yaml throws)"],
    ["m:\n  a: x\n  a: y", "a duplicate nested key"],
    ["- x", "a top-level sequence"],
    ["a:\n  - x: y", "a mapping inside a sequence"],
    ["a:", "null (no children)"],
    ["a: x\n  y", "a multi-line plain scalar"],
    ["a:\n    b: x\n  c: y", "inconsistent indentation"],
    ["<<: x", "a merge key"],
    ["__proto__: x", "a prototype key"],
    ["True: x", "a key js-yaml renames to 'true'"],
    ["a: x\r\nb: y", "CRLF"],
    ["a:\tx", "a tab"],
    ["---\na: x", "a document marker"],
    ["a: \uD800", "a lone surrogate"],
    ["", "an empty document"],
    ["# only a comment", "an empty document"],
  ];
  for (const [text, why] of declines) {
    assert.equal(parseYamlSubset(text), undefined, `${JSON.stringify(text)}: ${why}`);
  }
});
