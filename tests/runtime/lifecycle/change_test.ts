import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import { findEntry } from "../../../src/core/records/registry.ts";
import { parseSource, type ResolvedSource } from "../../../src/core/sources/sources.ts";
import { resolveParsed } from "../../../src/runtime/lifecycle/resolve_source.ts";
import { beginChange, type Change } from "../../../src/runtime/lifecycle/change.ts";
import { inspectCandidates } from "../../../src/runtime/lifecycle/fetch_source.ts";
import { entriesToRemove } from "../../../src/runtime/lifecycle/targets.ts";
import { readRegistry } from "../../../src/runtime/store/registry.ts";
import { tempDir } from "../../helpers/cli.ts";
import { pyScript, skillFiles, skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };
const DEFAULT = { kind: "default" } as const;

function begin(home: string, options: { preview?: boolean; signal?: AbortSignal } = {}) {
  return beginChange({ kind: "user", home }, { env: ENV, ...options });
}

/** A skill directory on this machine, as `skills add ./dir` sees it. */
async function localSkill(root: string, name: string): Promise<ResolvedSource> {
  const dir = join(root, name);
  await writeTree(dir, skillFiles(name));
  return resolveParsed(parseSource(dir, { localDirectory: dir }));
}

async function names(dir: string): Promise<string[] | null> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

async function installWith(change: Change, source: ResolvedSource) {
  const fetched = await change.fetch(source, DEFAULT);
  const plans = await change.planInstall(fetched, await inspectCandidates(fetched));
  await change.commitInstall(plans);
  return plans;
}

async function installed(home: string, source: ResolvedSource) {
  await using change = await begin(home);
  await installWith(change, source);
}

Deno.test("a change that fails to commit leaves no staging behind and the registry untouched", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  await installed(home, await localSkill(tmp.path, "first"));
  const registryBefore = await Deno.readTextFile(join(home, "registry.json"));
  const source = await localSkill(tmp.path, "second");
  {
    await using change = await begin(home);
    const fetched = await change.fetch(source, DEFAULT);
    const plans = await change.planInstall(fetched, await inspectCandidates(fetched));
    await Deno.mkdir(join(home, "second")); // another command got there first
    await assert.rejects(
      () => change.commitInstall(plans),
      (e: unknown) => e instanceof SkillError && e.code === "conflict",
    );
    assert.deepEqual(await names(join(home, ".staging")), [fetched.root.split("/").at(-2)!]);
  }
  assert.equal(await Deno.readTextFile(join(home, "registry.json")), registryBefore);
  assert.deepEqual(await names(home), ["first", "registry.json", "registry.lock", "second"]);
  assert.deepEqual(await names(join(home, "second")), [], "the other command's directory");
});

Deno.test("a change that created $SKILLS_HOME removes it when nothing was installed", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const source = await localSkill(tmp.path, "alpha");
  {
    await using change = await begin(home);
    const fetched = await change.fetch(source, DEFAULT);
    assert.ok(await Deno.stat(join(fetched.base, "SKILL.md")), "staged under the new home");
  }
  assert.equal(await names(home), null);
});

Deno.test("a change keeps a $SKILLS_HOME that existed, even an empty one", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  await Deno.mkdir(home);
  const source = await localSkill(tmp.path, "alpha");
  {
    await using change = await begin(home);
    await change.fetch(source, DEFAULT);
  }
  assert.deepEqual(await names(home), []);
});

Deno.test("a read-only preview recovers nothing, cannot commit and leaves no $SKILLS_HOME", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const source = await localSkill(tmp.path, "alpha");
  {
    await using preview = await begin(home, { preview: true });
    assert.deepEqual(preview.recovered, []);
    const fetched = await preview.fetch(source, DEFAULT);
    const plans = await preview.planInstall(fetched, await inspectCandidates(fetched));
    await assert.rejects(() => preview.commitInstall(plans), /A preview cannot change/);
    await assert.rejects(() => preview.remove([]), /A preview cannot change/);
    await assert.rejects(() => preview.untrust(plans[0]!.entry), /A preview cannot change/);
  }
  assert.equal(await names(home), null);
});

Deno.test("a preview leaves a dead command's leftovers for the next real change to recover", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  await installed(home, await localSkill(tmp.path, "alpha"));
  // A command killed after moving a skill in but before writing its entry.
  const dead = join(home, ".staging", "1-0badc0de");
  await Deno.mkdir(dead, { recursive: true });
  await Deno.writeTextFile(join(dead, ".owner"), "");
  await Deno.writeTextFile(
    join(dead, "intent.json"),
    JSON.stringify({
      version: 1,
      op: "install",
      items: [{ canonical: "beta", target: join(home, "beta"), aside: null, updatedAt: "t" }],
    }),
  );
  await writeTree(join(home, "beta"), { "SKILL.md": skillMd("beta") });
  {
    await using preview = await begin(home, { preview: true });
    assert.deepEqual(preview.recovered, []);
  }
  assert.ok(await Deno.stat(join(home, "beta")), "a preview rolls nothing back");
  {
    await using change = await begin(home);
    assert.deepEqual(change.recovered, ["rolled back the interrupted install of 'beta'"]);
  }
  assert.deepEqual(await names(home), [".staging", "alpha", "registry.json", "registry.lock"]);
  assert.deepEqual(await names(join(home, ".staging")), []);
});

Deno.test("disposing a change twice is harmless, and a disposed change refuses work", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const source = await localSkill(tmp.path, "alpha");
  const change = await begin(home);
  await change.fetch(source, DEFAULT);
  await change[Symbol.asyncDispose]();
  await change[Symbol.asyncDispose]();
  assert.equal(await names(home), null);
  await assert.rejects(() => change.fetch(source, DEFAULT), /disposed/);
  await assert.rejects(() => change.remove([]), /disposed/);
  assert.equal(await names(home), null, "refusing created nothing");
});

Deno.test("a change that only reads creates neither staging nor $SKILLS_HOME", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  {
    await using change = await begin(home);
    assert.deepEqual(change.recovered, []);
  }
  assert.equal(await names(home), null);
});

Deno.test("Ctrl-C before the commit moves nothing; disposing rolls the staged files back", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const controller = new AbortController();
  const source = await localSkill(tmp.path, "alpha");
  {
    await using change = await begin(home, { signal: controller.signal });
    const fetched = await change.fetch(source, DEFAULT);
    const plans = await change.planInstall(fetched, await inspectCandidates(fetched));
    controller.abort(new DOMException("Interrupted", "AbortError"));
    await assert.rejects(() => change.commitInstall(plans), /Interrupted/);
  }
  assert.equal(await names(home), null);
});

Deno.test("remove() deletes the files before it returns, not when the change ends", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  await installed(home, await localSkill(tmp.path, "alpha"));
  await using change = await begin(home);
  const { removed, notes } = await change.remove(await entriesToRemove(home, ["alpha"]));
  assert.deepEqual([removed, notes], [["alpha"], []]);
  assert.deepEqual(await names(join(home, ".trash")), [], "the trash is empty already");
  assert.equal(await names(join(home, "alpha")), null);
  assert.deepEqual((await readRegistry(home)).skills, []);
});

Deno.test("one change stages and applies several updates; discard frees each as it goes", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const sources = [await localSkill(tmp.path, "alpha"), await localSkill(tmp.path, "beta")];
  for (const source of sources) await installed(home, source);
  for (const name of ["alpha", "beta"]) {
    await Deno.writeTextFile(join(tmp.path, name, "scripts", "more.py"), pyScript("print(1)"));
  }
  {
    await using change = await begin(home);
    const staging = join(home, ".staging");
    for (const entry of (await readRegistry(home)).skills) {
      const plan = await change.planUpdate(entry);
      assert.equal(plan.kind, "update");
      await change.applyUpdate(plan);
      const [id] = (await names(staging))!;
      assert.ok(await Deno.stat(join(home, ".trash", id!, entry.name_canonical)), "old version");
      change.discard(plan);
      assert.deepEqual(await names(join(staging, id!)), [".owner", "journal.json"]);
      assert.deepEqual(await names(join(home, ".trash", id!)), []);
    }
  }
  const registry = await readRegistry(home);
  for (const name of ["alpha", "beta"]) {
    assert.ok(await Deno.stat(join(home, name, "scripts", "more.py")));
    assert.notEqual(findEntry(registry, name)?.installed_digest, undefined);
  }
  assert.deepEqual(await names(home), [
    "alpha",
    "beta",
    "registry.json",
    "registry.json.bak",
    "registry.lock",
  ]);
});
