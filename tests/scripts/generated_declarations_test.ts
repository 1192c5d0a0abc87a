/**
 * The committed declarations of src/generated/ (what `deno check` reads on a fresh clone,
 * before `deno task gen` has run) against the modules gen writes, and the fresh checkout
 * itself: type-checked without gen, then given its generated modules by `deno task gen:bundled`.
 */
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { SKIP_SLOW } from "../helpers/quick.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const GENERATED = join(ROOT, "src", "generated");

/** The names a declaration file declares: `export declare const NAME`. */
function declaredNames(text: string): string[] {
  return [...text.matchAll(/^export declare const (\w+)/gm)].map((m) => m[1]!).sort();
}

Deno.test("each generated module has a committed declaration naming exactly its exports", async () => {
  const modules = [...Deno.readDirSync(GENERATED)]
    .map((e) => e.name)
    .filter((name) => /\.(ts|js)$/.test(name) && !name.endsWith(".d.ts"))
    .sort();
  assert.ok(modules.length >= 6, `deno task gen wrote ${modules.join(", ")}`);
  for (const module of modules) {
    const declaration = join(GENERATED, module.replace(/\.(ts|js)$/, ".d.ts"));
    const declared = declaredNames(await Deno.readTextFile(declaration));
    const real = Object.keys(await import(`file://${join(GENERATED, module)}`)).sort();
    assert.deepEqual(declared, real, module);
  }
});

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: ROOT, stdout: "piped" }).output();
  assert.ok(out.success, `git ${args.join(" ")}`);
  return new TextDecoder().decode(out.stdout);
}

/** What a commit of this tree would hold: tracked files and new files git does not ignore. */
async function freshCheckout(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "skills-fresh-" });
  const listed = await git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"]);
  for (const path of listed.split("\0").filter((p) => p !== "")) {
    const from = join(ROOT, path);
    // Deleted but not yet staged: a commit would not hold it.
    if ((await Deno.lstat(from).catch(() => undefined))?.isFile !== true) continue;
    await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
    await Deno.copyFile(from, join(dir, path));
  }
  return dir;
}

async function deno(args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { success: out.success, text };
}

// `deno task check` runs gen:bundled first (tests/architecture/tasks_test.ts holds the task to
// it), and after it a checkout is the tree the gate type-checks every time: what is checked
// here is the fresh one before gen, and that gen:bundled writes there what the sources import.
// (Running the whole `deno task check` here too doubled this test, ~1.5 min of CPU, for a
// tree `deno task ok` checks anyway.)
Deno.test(
  "a fresh checkout type-checks before gen, and `deno task gen:bundled` writes the modules there",
  {
    ignore: SKIP_SLOW,
  },
  async () => {
    const dir = await freshCheckout();
    try {
      const generated = join(dir, "src", "generated");
      const before = [...Deno.readDirSync(generated)].map((e) => e.name);
      assert.ok(before.every((name) => name.endsWith(".d.ts")), `only declarations: ${before}`);
      const plain = await deno(["check", "src/"], dir);
      assert.ok(plain.success, plain.text);
      const gen = await deno(["task", "gen:bundled"], dir);
      assert.ok(gen.success, gen.text);
      const written = [...Deno.readDirSync(generated)].map((e) => e.name).sort();
      const committed = [...Deno.readDirSync(GENERATED)].map((e) => e.name).sort();
      assert.deepEqual(written, committed, "gen:bundled writes every generated module");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
