/**
 * `deno task bundle`: the distributable for `deno run` — `dist/skills.js`, a one-line entry
 * importing `dist/bundle/binary.js`, with every command and heavy dependency (AI SDK, MCP
 * SDK, tokenizer, js-yaml) in chunks of its own, loaded only when a command needs it. One
 * 8 MB file had to be parsed whole at every start; the split bundle starts like the
 * sources do (bench row "skills --version (dist/skills.js bundle)").
 */

const DIST = new URL("../dist/", import.meta.url);
const OUT = new URL("bundle/", DIST);

await Deno.remove(OUT, { recursive: true }).catch(() => {});
const built = await new Deno.Command("deno", {
  args: [
    "bundle",
    "--quiet",
    "--platform=deno",
    "--code-splitting",
    "--outdir",
    OUT.pathname,
    new URL("../src/binary.ts", import.meta.url).pathname,
  ],
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (!built.success) Deno.exit(built.code || 1);
// Deno reads every module a literal `import("./chunk.js")` names before the program starts
// (141 files, the whole 7 MB, measured with --log-level=debug), lazy or not: written as a
// computed specifier, a chunk is read only when the import runs (as src/main.ts's command
// table does). The specifier still resolves against the importing chunk.
for await (const entry of Deno.readDir(OUT)) {
  if (!entry.isFile || !entry.name.endsWith(".js")) continue;
  const file = new URL(entry.name, OUT);
  const text = await Deno.readTextFile(file);
  const lazy = text.replace(/import\("(\.\/[^"]+\.js)"\)/g, 'import(String("$1"))');
  if (lazy !== text) await Deno.writeTextFile(file, lazy);
}
await splitRequireShim();
await Deno.writeTextFile(
  new URL("skills.js", DIST),
  `// The entry of the split bundle (scripts/bundle.ts): chunks load on demand.\nimport "./bundle/binary.js";\n`,
);

/**
 * The bundler's runtime helpers sit in one chunk the entry imports, and with them
 * `__require`, made at load time by `createRequire` from `node:module`: that one import
 * starts Node's compatibility layer (~90 modules) on every start, `--version` included.
 * Only chunks of CommonJS packages call `__require`, so it moves to a chunk of its own,
 * imported by them alone.
 */
async function splitRequireShim(): Promise<void> {
  const SHIM = "require_shim.js";
  const made =
    /^import \{ createRequire as (\w+) \} from "node:module";\nvar __require = \1\(import\.meta\.url\);\n/m;
  let helpers: string | undefined;
  for await (const entry of Deno.readDir(OUT)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, OUT));
    const found = made.exec(text);
    if (found === null) continue;
    if (helpers !== undefined) throw new Error("bundle: two chunks make __require");
    helpers = entry.name;
    const exported = /^export \{([^}]*)\};?$/m;
    const rest = text.replace(found[0], "").replace(exported, (_, names: string) => {
      const kept = names.split(",").map((n) => n.trim()).filter((n) =>
        n !== "" && n !== "__require"
      );
      return `export {\n  ${kept.join(",\n  ")}\n};`;
    });
    if (/\b__require\b/.test(rest)) throw new Error(`bundle: ${entry.name} uses __require itself`);
    await Deno.writeTextFile(new URL(entry.name, OUT), rest);
    await Deno.writeTextFile(new URL(SHIM, OUT), `${found[0]}export { __require };\n`);
  }
  if (helpers === undefined) return; // nothing bundled needs require: nothing to move
  // Every import of __require from the helpers' chunk now comes from the shim.
  const from = new RegExp(`import \\{([^}]*)\\} from "\\./${helpers.replace(".", "\\.")}";`, "g");
  for await (const entry of Deno.readDir(OUT)) {
    if (!entry.isFile || !entry.name.endsWith(".js") || entry.name === SHIM) continue;
    const file = new URL(entry.name, OUT);
    const text = await Deno.readTextFile(file);
    const next = text.replace(from, (whole, names: string) => {
      const list = names.split(",").map((n) => n.trim()).filter((n) => n !== "");
      const shim = list.filter((n) => /^__require(?: as \w+)?$/.test(n));
      if (shim.length === 0) return whole;
      const kept = list.filter((n) => !shim.includes(n));
      return (kept.length > 0
        ? `import {\n  ${kept.join(",\n  ")}\n} from "./${helpers}";\n`
        : "") +
        `import { ${shim.join(", ")} } from "./${SHIM}";`;
    });
    if (next !== text) await Deno.writeTextFile(file, next);
  }
}
