/**
 * Writes the command registry from the command specs, so that a command is two files: its
 * spec (src/cli/specs/<name>.ts, exporting `<name>Spec` with `order`) and its module
 * (src/cli/commands/<name>.ts). Generated, each with literal imports or plain data:
 *
 * - src/cli/specs/all.ts: every spec in the order of `skills --help` (completions, the
 *   reference, tests);
 * - src/cli/registry/command_index.ts: names, aliases and summaries, all that start-up reads;
 * - src/cli/commands/all.ts: a literal `import()` of each command module, which only
 *   src/binary.ts imports, so the bundle and `deno compile` embed every command while
 *   `deno run` never walks them (see registry/command_table.ts).
 *
 * Run by `deno task gen` (a dependency of every task that runs the CLI or the tests);
 * writes only what changed. `--check` writes nothing and exits 1 when a file is stale.
 */

import type { CommandSpec } from "../src/cli/spec.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CLI = `${ROOT}src/cli`;
const HEADER =
  `// Generated from the command specs (src/cli/specs/) by scripts/gen_commands.ts (run by
// \`deno task gen\`): do not edit.`;

/** A spec file's name and the spec it exports. */
interface Found {
  file: string;
  spec: CommandSpec & { order: number };
}

/** The spec each src/cli/specs/<name>.ts exports as `<name>Spec`, checked against its file. */
export async function findSpecs(cli = CLI): Promise<Found[]> {
  const files = [...Deno.readDirSync(`${cli}/specs`)]
    .filter((e) => e.isFile && e.name.endsWith(".ts") && e.name !== "all.ts")
    .map((e) => e.name.slice(0, -3))
    .sort();
  const found: Found[] = [];
  for (const file of files) {
    const module = await import(`${cli}/specs/${file}.ts`);
    const exportName = `${file.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}Spec`;
    const spec = module[exportName] as (CommandSpec & { order?: number }) | undefined;
    if (spec === undefined) {
      throw new Error(`src/cli/specs/${file}.ts must export ${exportName}, the command's spec`);
    }
    if (spec.name !== file) {
      throw new Error(`src/cli/specs/${file}.ts declares the command '${spec.name}'`);
    }
    if (typeof spec.order !== "number") {
      throw new Error(`${exportName} needs \`order\`, its place in \`skills --help\``);
    }
    try {
      Deno.statSync(`${cli}/commands/${file}.ts`);
    } catch {
      throw new Error(`src/cli/specs/${file}.ts has no command module src/cli/commands/${file}.ts`);
    }
    found.push({ file, spec: spec as Found["spec"] });
  }
  found.sort((a, b) => a.spec.order - b.spec.order || (a.file < b.file ? -1 : 1));
  const orders = new Set(found.map((f) => f.spec.order));
  if (orders.size !== found.length) throw new Error("Two command specs share an `order`");
  return found;
}

const exportOf = (file: string) =>
  `${file.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}Spec`;

export function renderAll(found: readonly Found[]): string {
  const imports = [...found].sort((a, b) => (a.file < b.file ? -1 : 1))
    .map((f) => `import { ${exportOf(f.file)} } from "./${f.file}.ts";`);
  return `${HEADER}

import type { CommandSpec } from "../spec.ts";
${imports.join("\n")}

/** Every command, in the order of \`skills --help\`. */
export const SPECS: readonly CommandSpec[] = [
${found.map((f) => `  ${exportOf(f.file)},`).join("\n")}
];
`;
}

export function renderIndex(found: readonly Found[]): string {
  const rows = found.map(({ spec: s }) =>
    `  {\n    name: ${JSON.stringify(s.name)},\n    aliases: ${
      JSON.stringify(s.aliases ?? []).replaceAll(",", ", ")
    },\n    summary: ${JSON.stringify(s.summary)},\n  },`
  );
  return `${HEADER}

import type { CommandIndexEntry } from "./command_module.ts";

/** What start-up needs of every command, in the order of \`skills --help\`. */
export const COMMAND_INDEX: readonly CommandIndexEntry[] = [
${rows.join("\n")}
];
`;
}

export function renderModules(found: readonly Found[]): string {
  const rows = found.map((f) => `  ${f.file}: () => import("./${f.file}.ts"),`);
  return `${HEADER}
// Literal imports of every command module, for the bundle and the compiled binary (see
// registry/command_table.ts): a bundler embeds exactly what it can see. Keyed like COMMANDS.

import type { CommandLoader } from "../registry/command_table.ts";

export const COMMAND_MODULES: Readonly<Record<string, CommandLoader>> = {
${rows.join("\n")}
};
`;
}

/** Each generated file's path (from the repository root) and its content. */
export async function renderRegistry(cli = CLI): Promise<[string, string][]> {
  const found = await findSpecs(cli);
  return [
    ["src/cli/specs/all.ts", renderAll(found)],
    ["src/cli/registry/command_index.ts", renderIndex(found)],
    ["src/cli/commands/all.ts", renderModules(found)],
  ];
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  let stale = 0;
  for (const [path, text] of await renderRegistry()) {
    let old: string | undefined;
    try {
      old = Deno.readTextFileSync(`${ROOT}${path}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    if (old === text) continue;
    stale++;
    if (check) console.error(`${path} is stale: run \`deno task gen\``);
    else Deno.writeTextFileSync(`${ROOT}${path}`, text);
  }
  if (check && stale > 0) Deno.exit(1);
}
