/**
 * `skills add oci://…` end to end against a real registry (Debian's docker-registry on a
 * loopback port): what `skills publish` pushed installs pinned to its manifest digest, in the
 * user scope and the project's; a moved tag is an update (refused by add, shown by outdated,
 * installed by update); a tampered blob is refused with nothing written; `install --frozen`
 * restores from the lockfile's digest in a fresh clone and refuses a digest whose content
 * differs.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../fixtures/git_repos.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { startRegistry, type TestRegistry } from "../../helpers/oci_registry.ts";
import { readTree, writeShellSkill } from "../../helpers/tree.ts";
import { project } from "../../helpers/project.ts";

function writeSkill(dir: string, name: string, description = "A demo skill."): Promise<void> {
  const body = `# ${name}\n\nRun scripts/run.sh.\n`;
  return writeShellSkill(dir, `name: ${name}\ndescription: ${description}`, body);
}

/** Overwrites a blob in the registry's storage: the registry now serves other bytes. */
async function tamperBlob(registry: TestRegistry, digest: string): Promise<void> {
  const hex = digest.slice("sha256:".length);
  const path = join(
    registry.dir,
    "data/docker/registry/v2/blobs/sha256",
    hex.slice(0, 2),
    hex,
    "data",
  );
  const bytes = await Deno.readFile(path);
  bytes[bytes.length - 12] = bytes[bytes.length - 12]! ^ 0xff;
  await Deno.writeFile(path, bytes);
}

/** The digest of a manifest's single layer, read the way any client would. */
async function layerDigest(registry: TestRegistry, repository: string, reference: string) {
  const response = await fetch(`http://${registry.host}/v2/${repository}/manifests/${reference}`, {
    headers: { Accept: "application/vnd.oci.image.manifest.v1+json" },
  });
  const manifest = await response.json();
  return manifest.layers[0].digest as string;
}

const DIGEST_LINE = /^oci:\/\/\S+@(sha256:[0-9a-f]{64})$/m;

async function publish(dir: string, target: string): Promise<string> {
  const out = await runCli(["publish", dir, target]);
  assert.equal(out.code, 0, out.stderr);
  return DIGEST_LINE.exec(out.stdout)![1]!;
}

Deno.test("add oci://…:tag installs pinned to the manifest digest; a moved tag is refused by add, shown by outdated and installed by update", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const home = join(tmp.path, "home");
    const env = { SKILLS_HOME: home, HOME: tmp.path };
    await writeSkill(join(tmp.path, "demo"), "demo");
    const ref = `oci://${registry.host}/team/demo:v1`;
    const first = await publish(join(tmp.path, "demo"), ref);

    const add = await runCli(["add", ref, "--yes"], { env });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stderr, /Manifest: +sha256:[0-9a-f]{64} \(tag v1\)/);
    const registryJson = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
    const entry = registryJson.skills[0];
    assert.deepEqual(entry.source, {
      type: "oci",
      url: `oci://${registry.host}/team/demo`,
      subpath: "",
    });
    assert.equal(entry.commit_sha, first);
    assert.equal(entry.tag, "v1");
    assert.equal(
      (await Deno.stat(join(home, "demo", "scripts", "run.sh"))).mode! & 0o111,
      0o111,
      "the executable bit survives the layer",
    );

    await writeSkill(join(tmp.path, "demo"), "demo", "The same skill, moved on.");
    const second = await publish(join(tmp.path, "demo"), ref);
    assert.notEqual(second, first);
    const before = await readTree(home);
    const again = await runCli(["add", ref, "--yes"], { env });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /installed from this source at another version/);
    assert.match(again.stderr, /skills update demo/);
    assert.deepEqual(await readTree(home), before, "nothing changed");

    const outdated = await runCli(["outdated", "--json"], { env });
    assert.match(outdated.stdout, /"status": "outdated"/);
    assert.ok(outdated.stdout.includes(second), outdated.stdout);

    const update = await runCli(["update", "demo", "--yes"], { env });
    assert.equal(update.code, 0, update.stderr);
    const updated = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
    assert.equal(updated.commit_sha, second);
    assert.match(await Deno.readTextFile(join(home, "demo", "SKILL.md")), /moved on/);
    const still = await runCli(["outdated", "--json"], { env });
    assert.match(still.stdout, /"status": "up_to_date"/);
  } finally {
    await registry.close();
  }
});

Deno.test("add oci://…@sha256: keeps the pinned content after the tag moved; update calls it pinned", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const home = join(tmp.path, "home");
    const env = { SKILLS_HOME: home, HOME: tmp.path };
    await writeSkill(join(tmp.path, "demo"), "demo", "First.");
    const first = await publish(join(tmp.path, "demo"), `oci://${registry.host}/team/demo:v1`);
    await writeSkill(join(tmp.path, "demo"), "demo", "Second.");
    await publish(join(tmp.path, "demo"), `oci://${registry.host}/team/demo:v1`);

    const add = await runCli(["add", `oci://${registry.host}/team/demo@${first}`, "--yes"], {
      env,
    });
    assert.equal(add.code, 0, add.stderr);
    assert.match(await Deno.readTextFile(join(home, "demo", "SKILL.md")), /First\./);
    const entry = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
    assert.equal(entry.commit_sha, first);
    assert.equal(entry.ref, first);
    assert.equal(entry.tag, null);
    const update = await runCli(["update", "demo", "--yes"], { env });
    assert.equal(update.code, 0, update.stderr);
    assert.match(await Deno.readTextFile(join(home, "demo", "SKILL.md")), /First\./);
  } finally {
    await registry.close();
  }
});

Deno.test("add oci:// of an index installs the skill chosen with --skill", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const home = join(tmp.path, "home");
    const env = { SKILLS_HOME: home, HOME: tmp.path };
    await writeSkill(join(tmp.path, "pack", "alpha"), "alpha");
    await writeSkill(join(tmp.path, "pack", "beta"), "beta");
    const ref = `oci://${registry.host}/team/pack:v1`;
    await publish(join(tmp.path, "pack"), ref);

    const unchosen = await runCli(["add", ref, "--yes"], { env });
    assert.equal(unchosen.code, 2);
    assert.match(unchosen.stderr, /contains 2 skills: alpha, beta/);

    const add = await runCli(["add", ref, "--skill", "beta", "--yes"], { env });
    assert.equal(add.code, 0, add.stderr);
    const entries = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills;
    assert.deepEqual(entries.map((e: { name: string }) => e.name), ["beta"]);
    assert.equal(entries[0].source.subpath, "beta");

    await writeSkill(join(tmp.path, "pack", "beta"), "beta", "Beta, moved on.");
    await publish(join(tmp.path, "pack"), ref);
    const update = await runCli(["update", "beta", "--yes"], { env });
    assert.equal(update.code, 0, update.stderr);
    assert.match(await Deno.readTextFile(join(home, "beta", "SKILL.md")), /moved on/);
  } finally {
    await registry.close();
  }
});

Deno.test("add oci:// refuses a tampered layer: registry, skills folder and project byte-identical", async () => {
  const registry = await startRegistry();
  await using p = await project();
  try {
    await writeSkill(join(p.dir, "keep"), "keep");
    await writeSkill(join(p.dir, "demo"), "demo");
    await publish(join(p.dir, "keep"), `oci://${registry.host}/team/keep:v1`);
    const digest = await publish(join(p.dir, "demo"), `oci://${registry.host}/team/demo:v1`);
    const keep = await p.cli(["add", `oci://${registry.host}/team/keep:v1`, "--yes"]);
    assert.equal(keep.code, 0, keep.stderr);
    const keepProject = await p.cli([
      "add",
      `oci://${registry.host}/team/keep:v1`,
      "--project",
      "--yes",
    ]);
    assert.equal(keepProject.code, 0, keepProject.stderr);
    await tamperBlob(registry, await layerDigest(registry, "team/demo", digest));

    const home = await readTree(p.home);
    const root = await readTree(join(p.root, ".agents"));
    const lock = await Deno.readTextFile(join(p.root, "skills-lock.json"));
    for (const scope of [[], ["--project"]]) {
      const add = await p.cli(["add", `oci://${registry.host}/team/demo:v1`, ...scope, "--yes"]);
      assert.equal(add.code, 1, add.stdout);
      assert.match(add.stderr, /Cannot trust blob sha256:[0-9a-f]{64}.*its bytes hash to/);
    }
    assert.deepEqual(await readTree(p.home), home);
    assert.deepEqual(await readTree(join(p.root, ".agents")), root);
    assert.equal(await Deno.readTextFile(join(p.root, "skills-lock.json")), lock);
  } finally {
    await registry.close();
  }
});

Deno.test("install --frozen restores an OCI lockfile in a fresh clone by digest, even after the tag moved; a tampered blob is refused with nothing written", async () => {
  const registry = await startRegistry();
  await using p = await project();
  try {
    await writeSkill(join(p.dir, "demo"), "demo");
    const ref = `oci://${registry.host}/team/demo:v1`;
    const digest = await publish(join(p.dir, "demo"), ref);
    const add = await p.cli(["add", ref, "--project", "--yes"]);
    assert.equal(add.code, 0, add.stderr);
    const entry = (await p.lock()).skills.demo!;
    // The shared lockfile form (vercel-labs' fields first): the peer cannot install from a
    // registry, so it reads the entry as a source type it does not know and keeps it.
    assert.equal(entry.source, `oci://${registry.host}/team/demo`);
    assert.equal(entry.sourceType, "oci");
    assert.equal(entry.sourceUrl, `oci://${registry.host}/team/demo`);
    assert.equal(entry.skillPath, "SKILL.md");
    assert.equal(entry.commit, digest);
    assert.equal(entry.tag, "v1");
    const locked = await p.files(join(p.root, ".agents", "skills", "demo"));
    await git(p.root, ["add", "-A"]);
    await git(p.root, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "skills"]);

    // The tag moves on; the lockfile keeps the digest it was given.
    await writeSkill(join(p.dir, "demo"), "demo", "Other content under the same tag.");
    await publish(join(p.dir, "demo"), ref);

    const clone = join(p.dir, "clone");
    await git(p.dir, ["clone", "--quiet", p.root, clone]);
    await Deno.remove(join(clone, ".agents", "skills", "demo"), { recursive: true });
    const restore = await p.cli(["install", "--frozen"], { cwd: clone });
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /^Restored 'demo'/m);
    assert.deepEqual(await p.files(join(clone, ".agents", "skills", "demo")), locked);

    await tamperBlob(registry, await layerDigest(registry, "team/demo", digest));
    const second = join(p.dir, "clone2");
    await git(p.dir, ["clone", "--quiet", p.root, second]);
    await Deno.remove(join(second, ".agents", "skills", "demo"), { recursive: true });
    const lock = await Deno.readTextFile(join(second, "skills-lock.json"));
    const refused = await p.cli(["install", "--frozen"], { cwd: second });
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stdout + refused.stderr, /demo/);
    assert.match(refused.stdout + refused.stderr, /Cannot trust blob/);
    assert.deepEqual(await readTree(join(second, ".agents", "skills")), new Map());
    assert.equal(await Deno.readTextFile(join(second, "skills-lock.json")), lock);
  } finally {
    await registry.close();
  }
});

Deno.test("a project's OCI skill follows its tag: outdated names it, update --project reviews and locks the new digest", async () => {
  const registry = await startRegistry();
  await using p = await project();
  try {
    await writeSkill(join(p.dir, "demo"), "demo");
    const ref = `oci://${registry.host}/team/demo:v1`;
    const first = await publish(join(p.dir, "demo"), ref);
    const add = await p.cli(["add", ref, "--project", "--yes"]);
    assert.equal(add.code, 0, add.stderr);
    await writeSkill(join(p.dir, "demo"), "demo", "Moved on in the registry.");
    const second = await publish(join(p.dir, "demo"), ref);

    const outdated = await p.cli(["outdated", "--json"]);
    assert.match(outdated.stdout, /"status": "outdated"/);
    assert.ok(outdated.stdout.includes(second), outdated.stdout);
    const update = await p.cli(["update", "--project", "--yes"]);
    assert.equal(update.code, 0, update.stderr);
    const entry = (await p.lock()).skills.demo!;
    assert.notEqual(entry.commit, first);
    assert.equal(entry.commit, second);
    assert.match(
      await Deno.readTextFile(join(p.root, ".agents", "skills", "demo", "SKILL.md")),
      /Moved on/,
    );
  } finally {
    await registry.close();
  }
});
