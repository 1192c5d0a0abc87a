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
await Deno.writeTextFile(
  new URL("skills.js", DIST),
  `// The entry of the split bundle (scripts/bundle.ts): chunks load on demand.\nimport "./bundle/binary.js";\n`,
);
