/**
 * Unused exports and import-map entries. Lists every `export` of src/**\/*.ts that no other
 * file of src/, tests/, bench/, scripts/ (or a root mod.ts) imports, and every deno.json
 * "imports" entry no file uses; exits 1 when there is any (part of `deno task ok`).
 *
 * A token scan, not a compiler: comments and string contents are masked first, so code in
 * strings and comments never counts. What it understands:
 * - declarations (`export function|class|interface|type|enum|const|let|var`, destructured
 *   `export const { a, b } = …`), `export default`, `export { a, b as c }`;
 * - re-exports (`export { a } from`, `export * from`, `export * as ns from`): a re-export
 *   uses the original only when the re-exported name is itself used;
 * - `import { a, type B } from`, default and namespace imports (`ns.a` uses a; a namespace
 *   passed around whole uses everything), side-effect imports;
 * - `import("…")` of a literal path: destructured (`const { a } = await import(…)`), read
 *   directly (`(await import(…)).a`, `import(…).Type`), or otherwise counted as using all of
 *   the module — except command modules, whose dynamic loading is their contract below.
 *
 * Exceptions (kept small on purpose):
 * - src/cli/commands/*.ts: `help`, `parse`, `run`, `handlesInterrupt`, the contract of a
 *   command module, which src/cli/registry/command_table.ts loads by a computed specifier;
 * - src/**\/mod.ts: `LAYER`, read by tests/architecture/house_test.ts through import();
 * - src/generated/: written by scripts/gen_bundled.ts, the same exports for every helper;
 * - entry points (their exports are the program's or the library's surface): the deno.json
 *   "exports" target, src/binary.ts and a root mod.ts.
 * - scripts/check_exports.allow.txt: known findings (`path:name` a line, `#` comments),
 *   reported until they are fixed; a line that no longer matches a finding is a warning.
 *
 * Usage: deno run --allow-read=. scripts/check_exports.ts
 */

import { dirname, join, relative } from "node:path";
import { moduleFacts } from "./export_scan.ts";

/** A command module's contract, loaded through a computed specifier by cli/registry/command_table.ts. */
const COMMAND_CONTRACT = new Set(["help", "parse", "run", "handlesInterrupt"]);
const COMMAND_MODULE = /^src\/cli\/commands\/[^/]+\.ts$/;

function isException(path: string, name: string): boolean {
  if (COMMAND_MODULE.test(path) && COMMAND_CONTRACT.has(name)) return true;
  // Generated embeddings export the same pair for every helper; not all use both.
  if (path.startsWith("src/generated/")) return true;
  return /^src\/(?:.+\/)?mod\.ts$/.test(path) && name === "LAYER";
}

export interface Report {
  /** `path:name` of each export nothing else imports. */
  unusedExports: string[];
  /** deno.json "imports" keys no file uses. */
  unusedImports: string[];
}

/**
 * Finds unused exports among `files` under src/ (repo-relative path → source) and unused
 * `importMap` keys. `entryPoints` are paths whose exports are all in use.
 */
export function findUnused(
  files: Map<string, string>,
  importMap: Record<string, string>,
  entryPoints: string[],
): Report {
  const facts = new Map([...files].map(([path, text]) => [path, moduleFacts(text)]));
  const resolve = (from: string, specifier: string): string | undefined => {
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
    const path = join(dirname(from), specifier);
    return facts.has(path) ? path : undefined;
  };
  const used = new Map<string, Set<string>>();
  const exportsOf = (path: string) => {
    const f = facts.get(path)!;
    return [...f.declared, ...f.reexports.map((r) => r.name).filter((n) => n !== "*")];
  };
  const mark = (path: string, name: string): void => {
    const f = facts.get(path)!;
    if (name === "*") {
      for (const each of exportsOf(path)) mark(path, each);
      for (const r of f.reexports.filter((r) => r.name === "*")) {
        const target = resolve(path, r.from);
        if (target) mark(target, "*");
      }
      return;
    }
    const set = used.get(path) ?? new Set();
    if (set.has(name)) return;
    set.add(name);
    used.set(path, set);
    if (f.declared.has(name)) return;
    for (const r of f.reexports) {
      if (r.name !== name && !(r.name === "*" && name !== "default")) continue;
      const target = resolve(path, r.from);
      if (target) mark(target, r.name === "*" ? name : r.original);
    }
  };
  for (const [path, f] of facts) {
    for (const [specifier, names] of f.uses) {
      const target = resolve(path, specifier);
      if (target === undefined || target === path) continue;
      for (const name of names) {
        // A command module's dynamic loading is its contract, listed as exceptions.
        if (name === "*" && COMMAND_MODULE.test(target)) continue;
        mark(target, name);
      }
    }
  }
  for (const path of entryPoints) if (facts.has(path)) mark(path, "*");
  for (const path of facts.keys()) {
    for (const name of exportsOf(path)) if (isException(path, name)) mark(path, name);
  }

  const unusedExports: string[] = [];
  for (const path of [...facts.keys()].sort()) {
    if (!path.startsWith("src/")) continue;
    for (const name of exportsOf(path).sort()) {
      if (!used.get(path)?.has(name)) unusedExports.push(`${path}:${name}`);
    }
  }
  const specifiers = [...facts.values()].flatMap((f) => [...f.specifiers]);
  const unusedImports = Object.keys(importMap).filter((key) =>
    !specifiers.some((s) => s === key || s.startsWith(key.endsWith("/") ? key : `${key}/`))
  );
  return { unusedExports, unusedImports };
}

async function tsFiles(root: string, dir: string, into: Map<string, string>): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(join(root, dir)));
  } catch {
    return; // no such folder
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "node_modules") await tsFiles(root, path, into);
    else if (entry.isFile && /\.tsx?$/.test(entry.name)) {
      into.set(path, await Deno.readTextFile(join(root, path)));
    }
  }
}

/** The allowlist's `path:name` lines (blank lines and `#` comments skipped). */
export function parseAllowlist(text: string): Set<string> {
  return new Set(
    text.split("\n").map((line) => line.replace(/#.*/, "").trim()).filter((line) => line !== ""),
  );
}

async function main(): Promise<number> {
  const root = relative(Deno.cwd(), new URL("..", import.meta.url).pathname) || ".";
  const files = new Map<string, string>();
  for (const dir of ["src", "tests", "bench", "scripts"]) await tsFiles(root, dir, files);
  const rootMod = await Deno.readTextFile(join(root, "mod.ts")).catch(() => null);
  if (rootMod !== null) files.set("mod.ts", rootMod);
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const exported = typeof config.exports === "string" ? [config.exports] : [];
  const entryPoints = [...exported, ...Object.values(config.exports ?? {}), "src/binary.ts"]
    .filter((p): p is string => typeof p === "string")
    .map((p) => p.replace(/^\.\//, ""));
  if (rootMod !== null) entryPoints.push("mod.ts");
  const report = findUnused(files, config.imports ?? {}, [...new Set(entryPoints)]);

  const allowPath = join(root, "scripts", "check_exports.allow.txt");
  const allowed = parseAllowlist(await Deno.readTextFile(allowPath).catch(() => ""));
  const findings = report.unusedExports.filter((f) => !allowed.has(f));
  const stale = [...allowed].filter((a) => !report.unusedExports.includes(a));
  for (const line of stale) {
    console.error(`check_exports: ${line} is allowlisted but no longer unused: drop the line`);
  }
  for (const f of findings) console.log(`unused export: ${f}`);
  for (const key of report.unusedImports) console.log(`unused deno.json import: ${key}`);
  const total = findings.length + report.unusedImports.length;
  if (total > 0) {
    console.log(
      `${total} unused: remove the export (or the import-map entry), or, for a known ` +
        `src finding, list it in scripts/check_exports.allow.txt`,
    );
    return 1;
  }
  console.error(
    `check_exports: nothing unused beyond the ${allowed.size - stale.length} allowlisted`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main());
