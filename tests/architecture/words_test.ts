/**
 * A house rule: the reserved words of ARCHITECTURE.md's "Words" table name one idea each.
 * "record" is what this tool writes down about skills: each record named there is a model
 * (`src/core/records/<name>.ts`) and a store (`src/runtime/store/<name>.ts`) under one name,
 * every such pair is named there, and no other file of src/ is named for the word nor
 * exports a type whose name ends in `Record` (a skill the catalog loaded, the audit kept for an
 * installed skill and a verified copy's contents each have their own word).
 */

import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const MODELS = "src/core/records/";
const STORES = "src/runtime/store/";

/** The records the "Words" table names: the backticked bare names of its `record` row. */
export function glossaryRecords(architecture: string): string[] {
  const section = architecture.split("\n## Words\n")[1]?.split("\n## ")[0] ?? "";
  const row = section.split("\n").find((line) => /^\|\s*record\s*\|/.test(line));
  if (row === undefined) return [];
  const listed = row.split("The records:")[1] ?? "";
  return [...listed.matchAll(/`([\w-]+)`/g)].map((m) => m[1]!);
}

/** What breaks the word "record" in `paths` (every file of src/, as `src/…`) and their sources. */
export function recordWordProblems(
  records: readonly string[],
  paths: readonly string[],
  sourceOf: (path: string) => string,
): string[] {
  const problems: string[] = [];
  const stem = (path: string) => path.slice(path.lastIndexOf("/") + 1).replace(/\.ts$/, "");
  const models = new Set(paths.filter((p) => p.startsWith(MODELS)).map(stem));
  const stores = new Set(paths.filter((p) => p.startsWith(STORES)).map(stem));
  for (const record of records) {
    if (!models.has(record)) problems.push(`${record}: no model ${MODELS}${record}.ts`);
    if (!stores.has(record)) problems.push(`${record}: no store ${STORES}${record}.ts`);
  }
  for (const name of models) {
    if (name !== "mod" && stores.has(name) && !records.includes(name)) {
      problems.push(`${name}: a model and a store named alike, not a record of the "Words" table`);
    }
  }
  for (const path of paths) {
    const recordFile = (path.startsWith(MODELS) || path.startsWith(STORES)) &&
      records.includes(stem(path));
    if (/record/i.test(relative("src", path)) && !recordFile && !path.startsWith(MODELS)) {
      problems.push(`${path}: named for "record", which is not a record`);
    }
    if (path.startsWith(MODELS) || !path.endsWith(".ts")) continue;
    for (const [, name] of sourceOf(path).matchAll(/export\s+(?:interface|type|class)\s+(\w+)/g)) {
      if (/Record$/.test(name!)) problems.push(`${path}: exports ${name}, which is not a record`);
    }
  }
  return problems.sort();
}

function srcFiles(dir = join(ROOT, "src"), out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path);
    if (rel === "src/generated") continue;
    if (entry.isDirectory) srcFiles(path, out);
    else out.push(rel);
  }
  return out;
}

Deno.test("one word per idea: each record is a model and a store named alike, and only records are called so", () => {
  const records = glossaryRecords(Deno.readTextFileSync(join(ROOT, "ARCHITECTURE.md")));
  assert.deepEqual(records, ["registry", "lockfile", "project_records", "journal"]);
  const problems = recordWordProblems(
    records,
    srcFiles(),
    (path) => Deno.readTextFileSync(join(ROOT, path)),
  );
  assert.deepEqual(problems, []);
});

Deno.test("the record rule refuses a half pair, an unnamed pair and another idea called a record", () => {
  const paths = [
    "src/core/records/mod.ts",
    "src/core/records/lockfile.ts",
    "src/runtime/store/mod.ts",
    "src/runtime/store/lockfile.ts",
    "src/runtime/catalog/loader.ts",
  ];
  const sources: Record<string, string> = {
    "src/runtime/catalog/loader.ts": "export interface LoadedSkill {}",
  };
  const sourceOf = (path: string) => sources[path] ?? "";
  assert.deepEqual(recordWordProblems(["lockfile"], paths, sourceOf), []);
  assert.deepEqual(recordWordProblems(["lockfile", "registry"], paths, sourceOf), [
    "registry: no model src/core/records/registry.ts",
    "registry: no store src/runtime/store/registry.ts",
  ]);
  assert.deepEqual(recordWordProblems([], paths, sourceOf), [
    'lockfile: a model and a store named alike, not a record of the "Words" table',
  ]);
  sources["src/runtime/catalog/loader.ts"] = "export interface SkillRecord {}";
  const planted = [...paths, "src/runtime/audit/record.ts"];
  assert.deepEqual(recordWordProblems(["lockfile"], planted, sourceOf), [
    'src/runtime/audit/record.ts: named for "record", which is not a record',
    "src/runtime/catalog/loader.ts: exports SkillRecord, which is not a record",
  ]);
});

Deno.test("the records are read from the record row of the Words table", () => {
  const text = [
    "# Map",
    "## Words",
    "| Word | Means | Where |",
    "| record | kept | a pair. The records: `registry`, `lockfile` |",
    "| row | a row of `AGENTS` | — |",
    "## Tests",
    "| record | not this one. The records: `journal` |",
  ].join("\n");
  assert.deepEqual(glossaryRecords(text), ["registry", "lockfile"]);
});
