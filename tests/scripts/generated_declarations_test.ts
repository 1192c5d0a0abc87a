/**
 * The committed declarations of src/generated/ (what `deno check` reads on a fresh clone,
 * before `deno task gen` has run) against the modules gen writes, and a fresh checkout given
 * its generated modules by `deno task gen:bundled`.
 */
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { denoIn, freshCheckout } from "../helpers/fresh_checkout.ts";
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

// `deno task check` runs gen:bundled first (tests/architecture/tasks_test.ts holds the task to
// it); what a fresh checkout is before gen — type-checked with only these declarations — is
// tests/docs/typescript_test.ts's, in the one `deno check` it runs there.
Deno.test("`deno task gen:bundled` writes every generated module in a fresh checkout", {
  ignore: SKIP_SLOW,
}, async () => {
  const dir = await freshCheckout();
  try {
    const generated = join(dir, "src", "generated");
    const before = [...Deno.readDirSync(generated)].map((e) => e.name);
    assert.ok(before.every((name) => name.endsWith(".d.ts")), `only declarations: ${before}`);
    const gen = await denoIn(dir, ["task", "gen:bundled"]);
    assert.ok(gen.success, gen.text);
    const written = [...Deno.readDirSync(generated)].map((e) => e.name).sort();
    const committed = [...Deno.readDirSync(GENERATED)].map((e) => e.name).sort();
    assert.deepEqual(written, committed, "gen:bundled writes every generated module");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
