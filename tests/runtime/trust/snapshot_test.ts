import assert from "node:assert/strict";
import { join } from "node:path";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { computeDigest } from "../../../src/runtime/trust/file_hashes.ts";
import { verifiedInstructions, verifiedSkill } from "../../../src/runtime/trust/snapshot.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { createRepo, pyScript, skillFiles, skillMd } from "../../fixtures/git_repos.ts";
import { project } from "../../helpers/project.ts";
import { writeTree } from "../../helpers/tree.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

/**
 * A skill `name` (`SKILL.md`, `scripts/go.py` and the `extra` files) written under `dir` and
 * installed by installFixtureSkill into `dir/home`: the home and the installed folder.
 */
async function installSkill(dir: string, name: string, extra: Record<string, string>) {
  const source = join(dir, name);
  await writeTree(source, {
    "SKILL.md": skillMd(name),
    "scripts/go.py": pyScript("print('{}')"),
    ...extra,
  });
  const home = join(dir, "home");
  return { home, installed: await installFixtureSkill(home, source) };
}

/** Makes the installed folder, as it is now, the one the registry trusts: its digest recorded. */
async function trustAsItIs(home: string, installed: string): Promise<void> {
  const registry = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  registry.skills[0].trusted_digest = await computeDigest(installed);
  await Deno.writeTextFile(join(home, "registry.json"), JSON.stringify(registry));
}

Deno.test("verifiedSkill() runs from a read-only copy without bytecode, read from the copy", async () => {
  await using tmp = await tempDir();
  const { home, installed } = await installSkill(tmp.path, "copied", {
    "scripts/__pycache__/go.cpython-311.pyc": "x",
    "scripts/lone.pyc": "x",
  });
  // installFixtureSkill leaves __pycache__ behind; put it back: bytecode is covered.
  await Deno.mkdir(join(installed, "scripts", "__pycache__"));
  await Deno.writeTextFile(join(installed, "scripts", "__pycache__", "go.cpython-311.pyc"), "x");
  await trustAsItIs(home, installed);

  const skill = (await loadCatalog(home)).skills.find((s) => s.canonical === "copied")!;
  const verified = await verifiedSkill(skill, home);
  assert.match(verified.dir, /\/\.cache\/run\/copied-[0-9a-f]{32}$/);
  assert.equal(verified.scripts[0]!.path, join(verified.dir, "scripts", "go.py"));
  const names = [...Deno.readDirSync(join(verified.dir, "scripts"))].map((e) => e.name).sort();
  assert.deepEqual(names, ["go.py"], "bytecode stays out of the copy");
  if (Deno.build.os !== "windows") {
    // Folders sealed; files keep their owner's write bit, so a copy a script makes is writable.
    assert.equal((await Deno.stat(join(verified.dir, "scripts"))).mode! & 0o777, 0o555);
    assert.equal((await Deno.stat(join(verified.dir, "SKILL.md"))).mode! & 0o777, 0o644);
  }
  // The second run reuses the copy; an edit to it makes a fresh one.
  assert.equal((await verifiedSkill(skill, home)).dir, verified.dir);
  await Deno.chmod(join(verified.dir, "scripts", "go.py"), 0o644);
  await Deno.writeTextFile(join(verified.dir, "scripts", "go.py"), "print('tampered')\n");
  const again = await verifiedSkill(skill, home);
  assert.equal(
    await Deno.readTextFile(join(again.dir, "scripts", "go.py")),
    pyScript("print('{}')"),
  );
});

Deno.test("verifiedSkill() builds the first copy from the bytes the gate hashed: nested folders made and sealed", async () => {
  await using tmp = await tempDir();
  const { home, installed } = await installSkill(tmp.path, "nested", {
    "references/deep/deeper/notes.md": "notes\n",
  });
  await trustAsItIs(home, installed);
  await Deno.remove(join(home, ".cache"), { recursive: true }).catch(() => {});

  const skill = (await loadCatalog(home)).skills.find((s) => s.canonical === "nested")!;
  const verified = await verifiedSkill(skill, home);
  assert.equal(
    await Deno.readTextFile(join(verified.dir, "references", "deep", "deeper", "notes.md")),
    "notes\n",
  );
  assert.equal(await computeDigest(verified.dir), await computeDigest(installed));
  if (Deno.build.os !== "windows") {
    for (
      const folder of ["", "scripts", "references", "references/deep", "references/deep/deeper"]
    ) {
      const mode = (await Deno.stat(join(verified.dir, folder))).mode! & 0o777;
      assert.equal(mode, 0o555, `${folder || "the copy"} is sealed`);
    }
  }
  assert.deepEqual(verified.references, skill.references);
  assert.equal((await verifiedSkill(skill, home)).dir, verified.dir);
});

Deno.test("verifiedSkill() keeps a project skill's scope and names: its copy is no user skill", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "tools", skillFiles("tools"));
  const added = await p.cli(["add", repo.url, "--project", "--name", "team-tools", "--yes"]);
  assert.equal(added.code, 0, added.stdout + added.stderr);
  const env = { SKILLS_HOME: p.home, HOME: p.dir };
  const catalog = await loadCatalog(p.home, { cwd: p.root, env });
  const listed = catalog.skills.find((s) => s.canonical === "team-tools")!;
  assert.equal(listed.scope, "project");
  const verified = await verifiedSkill(listed, p.home);
  assert.notEqual(verified.dir, listed.dir, "it runs from its verified copy");
  assert.equal(verified.scope, "project");
  assert.equal(verified.canonical, "team-tools");
  assert.deepEqual(verified.project, listed.project);
});

Deno.test(
  "verifiedSkill() called by eight runs at once: every run gets a whole copy, none removed under another",
  { ignore: SKIP_SLOW },
  async () => {
    await using tmp = await tempDir();
    const parts: Record<string, string> = {};
    for (let i = 0; i < 200; i++) parts[`references/part-${i}.md`] = `Part ${i}.\n`;
    const { home } = await installSkill(tmp.path, "wide", parts);
    const skill = (await loadCatalog(home)).skills.find((s) => s.canonical === "wide")!;
    const { removeIfExists } = await import("../../../src/runtime/os/fs.ts");
    for (let round = 0; round < 10; round++) {
      await removeIfExists(join(home, ".cache", "run"));
      const runs = await Promise.allSettled(
        Array.from({ length: 8 }, () => verifiedSkill(skill, home)),
      );
      const failed = runs.filter((r) => r.status === "rejected");
      assert.deepEqual(failed, [], `round ${round}`);
      for (const run of runs) {
        const verified = (run as PromiseFulfilledResult<Awaited<ReturnType<typeof verifiedSkill>>>)
          .value;
        assert.equal([...Deno.readDirSync(join(verified.dir, "references"))].length, 200);
        assert.equal(await Deno.readTextFile(verified.scripts[0]!.path), pyScript("print('{}')"));
      }
      const left = [...Deno.readDirSync(join(home, ".cache", "run"))].filter((e) => e.isDirectory);
      assert.equal(left.length, 1, `round ${round}: one copy, no builds left behind`);
    }
  },
);

Deno.test("verifiedInstructions() serves the bytes its digest check hashed, builds no copy, and refuses a SKILL.md that is not them", async () => {
  await using tmp = await tempDir();
  const source = join(tmp.path, "told");
  await writeTree(source, { "SKILL.md": skillMd("told"), "scripts/go.py": pyScript("print(1)") });
  const home = join(tmp.path, "home");
  const installed = await installFixtureSkill(home, source);
  const listed = async () => (await loadCatalog(home)).skills.find((s) => s.canonical === "told")!;
  const honest = await Deno.readFile(join(installed, "SKILL.md"));
  assert.deepEqual(await verifiedInstructions(await listed(), home), honest);
  const runFolder = join(home, ".cache", "run");
  const copies = await Deno.lstat(runFolder).then(
    () => [...Deno.readDirSync(runFolder)].map((e) => e.name),
    () => [], // no run folder at all
  );
  assert.deepEqual(copies, [], "reading instructions makes no verified copy: that is a run's");

  // Let the files settle, so that the next check answers from their stats alone and reads
  // SKILL.md again to serve it.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  assert.deepEqual(await verifiedInstructions(await listed(), home), honest);
  const cachePath = join(home, ".cache", "digest-told.json");
  const cache = JSON.parse(await Deno.readTextFile(cachePath));
  assert.ok(cache.dirs, "a settled tree: the next check goes by stats");
  // Stats that vouch for bytes SKILL.md does not hold (a file swapped under unchanged stats):
  // what would be served is held to the hash, and refused.
  cache.files["SKILL.md"].sha256 = "0".repeat(64);
  await Deno.writeTextFile(cachePath, JSON.stringify(cache));
  await assert.rejects(
    verifiedInstructions(await listed(), home),
    (error: unknown) => (error as { code?: string }).code === "integrity_mismatch",
  );
});
