/**
 * A house rule: every module path the map and the source comments name resolves to a file
 * of the tree as it is when the test runs, so a file moved or renamed without its mentions
 * fails here. Read are ARCHITECTURE.md's backticked paths (`exec/spawn/sandbox_request`,
 * `lifecycle/commit.ts`, `catalog/loader.inspectSkillDir`: a folder-qualified module,
 * optionally with its extension or a member after a dot) and the source files named in the
 * comments of src/ (`core/audit/engine.ts`, `../engine.ts`, `runtime/sandbox/idmap.pl`).
 */

import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");

/** The folders of the tree a module path may be read against (generated code, git, deps aside). */
const TREE_ROOTS = ["src", "tests", "scripts", "bench", "docs", "skills"];

/** Every file and folder of the tree, by path from the repository root. */
function treePaths(root: string): Set<string> {
  const paths = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      const rel = relative(root, path);
      if (rel === "src/generated") continue;
      paths.add(rel);
      if (entry.isDirectory) walk(path);
    }
  };
  for (const top of TREE_ROOTS) {
    try {
      walk(join(root, top));
      paths.add(top);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  for (const entry of Deno.readDirSync(root)) if (entry.isFile) paths.add(entry.name);
  return paths;
}

/** File extensions of the modules a path may name. */
const SOURCE_EXTENSIONS = ["ts", "py", "pl", "sb"];
/** Extensions a backticked path of the map may end with besides those. */
const FILE_EXTENSIONS = [...SOURCE_EXTENSIONS, "md", "json", "yaml", "txt"];

/**
 * Whether `path` (as written: `catalog/loader`, `exec/runner.runScript`, `sandbox/idmap.pl`,
 * `tests/docs/`) names a file or folder of `tree` — the path itself, or a path of the tree
 * that ends with it, with a module's extension when it has none.
 */
function resolves(path: string, tree: ReadonlySet<string>, byTail: ReadonlyMap<string, number>) {
  // Generated modules are git-ignored (and may not be written yet): their scripts exist.
  if (/^(src\/)?generated(\/|$)/.test(path)) return true;
  const bare = path.replace(/\/$/, "");
  const last = bare.slice(bare.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  const extension = dot === -1 ? undefined : last.slice(dot + 1);
  const module = extension !== undefined && !FILE_EXTENSIONS.includes(extension)
    ? bare.slice(0, bare.length - last.length + dot) // `loader.inspectSkillDir` → `loader`
    : bare;
  const candidates = module === bare && extension !== undefined
    ? [module]
    : [module, ...SOURCE_EXTENSIONS.map((e) => `${module}.${e}`)];
  return candidates.some((c) => tree.has(c) || byTail.has(c));
}

/** Every tail of every tree path (`a/b/c.ts` → `b/c.ts`, `c.ts`), for paths written short. */
function tails(tree: ReadonlySet<string>): Map<string, number> {
  const byTail = new Map<string, number>();
  for (const path of tree) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const tail = parts.slice(i).join("/");
      byTail.set(tail, (byTail.get(tail) ?? 0) + 1);
    }
  }
  return byTail;
}

/**
 * The backticked module paths of a Markdown text, with their line: a span that is a path of
 * at least two segments whose first segment is a folder of the tree (so `owner/repo`,
 * `.agents/skills` and `iteration-N/` are not read as modules).
 */
function mapPaths(
  text: string,
  folderNames: ReadonlySet<string>,
): { path: string; line: number }[] {
  const found: { path: string; line: number }[] = [];
  text.split("\n").forEach((line, i) => {
    for (const [, span] of line.matchAll(/`([^`\s]+)`/g)) {
      if (!/^[\w-]+(\/[\w.-]+)+\/?$/.test(span!)) continue;
      if (!folderNames.has(span!.split("/")[0]!)) continue;
      found.push({ path: span!, line: i + 1 });
    }
  });
  return found;
}

/**
 * The source files a comment line names: a TypeScript module (`a/b.ts`, `../b.ts`, `b.ts`),
 * or a helper of ours in another language when written with its folder
 * (`runtime/sandbox/idmap.pl`); a bare `status.py` or `scripts/run.py` is a skill's file in
 * an example, not ours. URLs aside.
 */
const COMMENT_FILE = /(?<![\w./:-])((?:\.\.?\/)*(?:[\w-]+\/)*[\w-]+\.(?:(?:d\.)?ts|py|pl|sb))\b/g;

/** Whether a file named in a comment is a module of this tree (see {@link COMMENT_FILE}). */
function isModuleName(named: string, srcFolders: ReadonlySet<string>): boolean {
  if (named.endsWith(".ts")) return true;
  const first = named.split("/")[0]!;
  return named.includes("/") && first !== "scripts" && (first === "src" || srcFolders.has(first));
}

/** The comment text of each line of a source file (`//`, `/*`, ` * ` lines and tails). */
function commentLines(source: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  source.split("\n").forEach((line, i) => {
    const block = line.match(/^\s*(?:\/\*\*?|\*(?!\/))(.*)$/);
    const tail = line.match(/(?:^|\s)\/\/(.*)$/);
    const text = block?.[1] ?? tail?.[1];
    if (text !== undefined) out.push({ text, line: i + 1 });
  });
  return out;
}

/**
 * Whether a file named in a comment of `from` exists: relative to `from`'s folder or one
 * above it (`main.ts` from src/core/errors.ts), or, for a path with a folder in it, as a tail
 * of a tree path. Generated modules are git-ignored and may not be written yet.
 */
function commentResolves(
  named: string,
  from: string,
  tree: ReadonlySet<string>,
  byTail: ReadonlyMap<string, number>,
): boolean {
  if (/(^|\/)generated\//.test(named)) return true;
  for (let dir = dirname(from);; dir = dirname(dir)) {
    if (tree.has(relative(ROOT, resolve(ROOT, dir, named)))) return true;
    if (dir === "." || dir === "/" || dir === "") break;
  }
  return !named.startsWith(".") && named.includes("/") && byTail.has(named);
}

/** The unresolved paths of ARCHITECTURE.md and of src/'s comments, as `file:line path`. */
function stalePaths(root: string): string[] {
  const tree = treePaths(root);
  const byTail = tails(tree);
  const srcFolders = new Set(
    [...tree].filter((p) => p.startsWith("src/") && Deno.statSync(join(root, p)).isDirectory)
      .map((p) => p.slice(p.lastIndexOf("/") + 1)),
  );
  const folderNames = new Set([...srcFolders, ...TREE_ROOTS]);
  const stale: string[] = [];
  const map = Deno.readTextFileSync(join(root, "ARCHITECTURE.md"));
  for (const { path, line } of mapPaths(map, folderNames)) {
    if (!resolves(path, tree, byTail)) stale.push(`ARCHITECTURE.md:${line} ${path}`);
  }
  for (const file of [...tree].filter((p) => p.startsWith("src/") && p.endsWith(".ts")).sort()) {
    for (const { text, line } of commentLines(Deno.readTextFileSync(join(root, file)))) {
      for (const [, named] of text.matchAll(COMMENT_FILE)) {
        if (!isModuleName(named!, srcFolders)) continue;
        if (!commentResolves(named!, file, tree, byTail)) stale.push(`${file}:${line} ${named}`);
      }
    }
  }
  return stale;
}

Deno.test("every module path in ARCHITECTURE.md and in src/'s comments names a file that exists", () => {
  assert.deepEqual(stalePaths(ROOT), []);
});

Deno.test("the path rule refuses a planted stale path in the map and in a comment", () => {
  const root = Deno.makeTempDirSync({ prefix: "house-paths-" });
  try {
    const write = (path: string, text: string) => {
      Deno.mkdirSync(join(root, dirname(path)), { recursive: true });
      Deno.writeTextFileSync(join(root, path), text);
    };
    write("src/core/audit/engine.ts", "/** Applies the rules (audit_rules.ts, ../errors.ts). */\n");
    write("src/core/audit/audit_rules.ts", "/** Applied by engine.ts; tests/core/corpus.ts. */\n");
    write("src/core/errors.ts", "// See core/audit/engine.ts and src/generated/x.ts.\n");
    write("tests/core/corpus.ts", "");
    write(
      "ARCHITECTURE.md",
      "`core/audit/engine`, `audit/audit_rules.ts`, `core/errors.exitCodeFor`, `owner/repo`\n",
    );
    assert.deepEqual(stalePaths(root), []);
    // The corpus moves and the engine is renamed: every mention of either is now stale.
    Deno.renameSync(join(root, "tests/core/corpus.ts"), join(root, "tests/core/corpus_data.ts"));
    Deno.renameSync(join(root, "src/core/audit/engine.ts"), join(root, "src/core/audit/run.ts"));
    assert.deepEqual(stalePaths(root), [
      "ARCHITECTURE.md:1 core/audit/engine",
      "src/core/audit/audit_rules.ts:1 engine.ts",
      "src/core/audit/audit_rules.ts:1 tests/core/corpus.ts",
      "src/core/errors.ts:1 core/audit/engine.ts",
    ]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
