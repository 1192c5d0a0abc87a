/**
 * ARCHITECTURE.md's tree, rendered from the folders themselves: one row per folder of src/
 * that has a `mod.ts`, saying what the first paragraph of that header says (without its
 * leading `folder —`). A folder added, moved or re-described changes the table at the next
 * `deno task gen`, and tests/docs/reference_test.ts fails while the committed one is stale,
 * so the map cannot drift from the house. The order is the layers', bottom first.
 */

import { join, relative } from "node:path";

/** The top-level folders of src/ in layer order, bottom first (ARCHITECTURE.md's "Layers"). */
const LAYER_ORDER = ["core", "runtime", "agent", "mcp", "cli"];

/** A folder of the tree: its path from the repository root and its description. */
interface TreeRow {
  folder: string;
  text: string;
}

/** The first paragraph of a mod.ts header, as one line, without its `name —` lead. */
function headerParagraph(source: string): string | undefined {
  const block = source.match(/^\/\*\*\n([\s\S]*?)\n\s*\*\//);
  if (!block) return undefined;
  const lines = block[1]!.split("\n").map((line) => line.replace(/^\s*\* ?/, ""));
  const blank = lines.findIndex((line) => line.trim() === "");
  const paragraph = (blank === -1 ? lines : lines.slice(0, blank)).join(" ").trim();
  return paragraph.replace(/^[\w/]+ — /, "");
}

/** Every folder under `dir` (itself included) with a mod.ts, depth first, names sorted. */
function foldersWithHeader(root: string, dir: string): TreeRow[] {
  const entries = [...Deno.readDirSync(dir)];
  const rows: TreeRow[] = [];
  if (entries.some((e) => e.isFile && e.name === "mod.ts")) {
    const text = headerParagraph(Deno.readTextFileSync(join(dir, "mod.ts")));
    if (text === undefined) throw new Error(`${join(dir, "mod.ts")} has no header comment`);
    rows.push({ folder: `${relative(root, dir)}/`, text });
  }
  const subfolders = entries.filter((e) => e.isDirectory && e.name !== "generated")
    .map((e) => e.name).sort();
  for (const name of subfolders) rows.push(...foldersWithHeader(root, join(dir, name)));
  return rows;
}

/** The rows of the tree for the repository at `root`, in layer order. */
function treeRows(root: string): TreeRow[] {
  const src = join(root, "src");
  const tops = [...Deno.readDirSync(src)].filter((e) => e.isDirectory && e.name !== "generated")
    .map((e) => e.name);
  const unknown = tops.filter((name) => !LAYER_ORDER.includes(name));
  if (unknown.length > 0) throw new Error(`src/${unknown[0]}/ is in no layer of LAYER_ORDER`);
  return LAYER_ORDER.filter((name) => tops.includes(name))
    .flatMap((name) => foldersWithHeader(root, join(src, name)));
}

/** The tree as a Markdown table (before formatting). */
export function renderTree(root: string = new URL("..", import.meta.url).pathname): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  return [
    "| Folder | What lives there |",
    "| --- | --- |",
    ...treeRows(root).map((row) => `| \`${row.folder}\` | ${cell(row.text)} |`),
  ].join("\n");
}
