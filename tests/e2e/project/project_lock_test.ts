/**
 * The project lockfile end to end, in a temporary git project with local bare repositories:
 * `skills add --project` writes the skill and skills-lock.json; `skills install --frozen`
 * restores byte-identical files and refuses (naming skill and file, writing nothing) a
 * tampered file, a hand-edited lockfile digest and a force-pushed branch; a second install
 * is a no-op; a vercel-labs lockfile is read with commits resolved anew.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createRepo,
  git,
  MIRRORED_LINKS,
  mirroredSkillRepo,
  pyScript,
  skillFiles,
  skillMd,
} from "../../fixtures/git_repos.ts";
import { project } from "../../helpers/project.ts";
import { sha256Hex } from "../../helpers/bytes.ts";
import { vercelHash } from "../../helpers/project.ts";

const PERMS = "permissions:\n  env: [ALPHA_*]\n";

/** The lockfile vercel-labs' skills CLI writes for `repo`'s alpha (version 1, no commit). */
async function vercelAlphaLock(repo: { url: string; work: string }) {
  return {
    version: 1,
    skills: {
      alpha: {
        source: repo.url,
        sourceType: "git",
        skillPath: "skills/alpha/SKILL.md",
        computedHash: await vercelHash(join(repo.work, "skills", "alpha")),
      },
    },
  };
}

/** Two skills in `skills/<name>/`, alpha asking for ALPHA_* variables. */
function collection(): Record<string, string> {
  return {
    "README.md": "# skills\n",
    ...skillFiles("alpha", "skills/alpha", PERMS),
    ...skillFiles("beta", "skills/beta"),
  };
}

Deno.test("add --project writes the skill and its lockfile; install --frozen restores it byte for byte; a second install is a no-op", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", collection());
  const add = await p.cli(["add", repo.url, "--project", "--skill", "alpha", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const skillDir = join(p.root, ".agents", "skills", "alpha");
  assert.match(add.stdout, /^Installed 'alpha' at [0-9a-f]{12} into .*\.agents\/skills\/alpha/m);

  const lock = await p.lock();
  assert.equal(lock.version, 1, "vercel-labs' CLI reads version 1");
  assert.equal(lock.lockfileVersion, 2);
  assert.deepEqual(Object.keys(lock.skills), ["alpha"]);
  const entry = lock.skills.alpha!;
  assert.equal(entry.sourceUrl, repo.url);
  assert.equal(entry.skillPath, "skills/alpha/SKILL.md");
  assert.equal(entry.computedHash, await vercelHash(join(repo.work, "skills", "alpha")));
  assert.equal(entry.commit, await repo.head());
  assert.equal(entry.branch, "main");
  assert.deepEqual(entry.permissions, { env: ["ALPHA_*"], network: [] });
  assert.deepEqual(Object.keys(entry.files), ["SKILL.md", "scripts/hello.py"]);
  assert.equal(entry.files["SKILL.md"], sha256Hex(collection()["skills/alpha/SKILL.md"]!));
  assert.match(entry.digest, /^sha256:[0-9a-f]{64}$/);
  const before = await p.files(skillDir);
  const lockText = await Deno.readTextFile(join(p.root, "skills-lock.json"));

  await Deno.remove(join(p.root, ".agents", "skills"), { recursive: true });
  const restore = await p.cli(["install", "--frozen"]);
  assert.equal(restore.code, 0, restore.stderr);
  assert.match(restore.stdout, /^Restored 'alpha'/m);
  assert.deepEqual(await p.files(skillDir), before, "byte-identical files");
  assert.equal(await Deno.readTextFile(join(p.root, "skills-lock.json")), lockText);
  assert.deepEqual(
    [...Deno.readDirSync(join(p.root, ".agents"))].map((e) => e.name),
    ["skills"],
    "no staging or trash left in the project",
  );

  const again = await p.cli(["install"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^Nothing to do: the 1 skill\(s\) of skills-lock.json are in place$/m);
  assert.doesNotMatch(again.stderr, /Reading|Cloning/, "nothing fetched");
  assert.equal(await Deno.readTextFile(join(p.root, "skills-lock.json")), lockText);

  const readd = await p.cli(["add", repo.url, "--project", "--skill", "alpha", "--yes"]);
  assert.equal(readd.code, 0, readd.stderr);
  assert.match(readd.stdout, /Already installed 'alpha' at [0-9a-f]{12} in the project/);
});

Deno.test("install --frozen names the skill and file of a tampered file and of a lockfile digest edit, and writes nothing", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", collection());
  assert.equal((await p.cli(["add", repo.url, "--project", "--skill", "*", "--yes"])).code, 0);
  const lockPath = join(p.root, "skills-lock.json");
  const lockText = await Deno.readTextFile(lockPath);
  const script = join(p.root, ".agents", "skills", "alpha", "scripts", "hello.py");

  await Deno.writeTextFile(script, "print('tampered')\n", { append: true });
  const tampered = await p.cli(["install", "--frozen"]);
  assert.equal(tampered.code, 1);
  assert.match(tampered.stdout, /^✗ alpha: files on disk differ from skills-lock.json/m);
  assert.match(tampered.stdout, /^ {4}~ scripts\/hello\.py$/m);
  assert.equal(tampered.stdout.split("hello.py").length - 1, 1, tampered.stdout);
  assert.doesNotMatch(tampered.stdout, /beta/, "beta matches");
  assert.match(tampered.stderr, /nothing was written \(--frozen\)/);
  assert.match(await Deno.readTextFile(script), /tampered/, "left as it was");
  assert.equal(await Deno.readTextFile(lockPath), lockText, "lockfile untouched");
  // CI=true is --frozen too.
  assert.equal((await p.cli(["install"], { env: { CI: "true" } })).code, 1);
  const forced = await p.cli(["install", "--force"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.doesNotMatch(await Deno.readTextFile(script), /tampered/, "restored");

  // Someone edits the sha256 the lockfile records for beta's SKILL.md.
  const edited = JSON.parse(lockText);
  edited.skills.beta.files["SKILL.md"] = "0".repeat(64);
  await Deno.writeTextFile(lockPath, JSON.stringify(edited, null, 2));
  await Deno.remove(join(p.root, ".agents", "skills"), { recursive: true });
  const digest = await p.cli(["install", "--frozen", "--json"]);
  assert.equal(digest.code, 1);
  const doc = JSON.parse(digest.stdout);
  const beta = doc.mismatches.filter((m: { skill: string }) => m.skill === "beta");
  assert.deepEqual(beta.map((m: { kind: string }) => m.kind).sort(), ["changed", "lock_digest"]);
  const changed = beta.find((m: { kind: string }) => m.kind === "changed");
  assert.deepEqual(changed.files, [{ path: "SKILL.md", change: "changed" }]);
  assert.deepEqual(doc.restored, [], "nothing written");
  assert.deepEqual(doc.held, ["alpha"], "alpha verified, held back");
  assert.equal(
    await Deno.stat(join(p.root, ".agents", "skills")).catch(() => null),
    null,
    "no skill folder written",
  );
});

Deno.test("install --frozen refuses a force-pushed branch: the locked commit is gone, and it says where main is now and which files differ", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", collection());
  await repo.commit({ "skills/alpha/scripts/hello.py": pyScript("print('v2')") });
  assert.equal((await p.cli(["add", repo.url, "--project", "--skill", "alpha", "--yes"])).code, 0);
  const locked = (await p.lock()).skills.alpha!.commit!;

  // History rewritten: main goes back and on elsewhere; the locked commit is collected.
  await repo.git(["reset", "--quiet", "--hard", "HEAD~1"]);
  await repo.git(["commit", "--quiet", "--allow-empty", "-m", "rewritten"]);
  await Deno.writeTextFile(
    join(repo.work, "skills", "alpha", "SKILL.md"),
    skillMd("alpha", "Now different."),
  );
  await repo.git(["commit", "--quiet", "-am", "rewritten SKILL.md"]);
  await repo.git(["push", "--quiet", "--force", "origin", "main"]);
  await git(repo.bare, ["reflog", "expire", "--expire=now", "--all"]);
  await git(repo.bare, ["gc", "--quiet", "--prune=now"]);

  await Deno.remove(join(p.root, ".agents", "skills"), { recursive: true });
  const result = await p.cli(["install", "--frozen"]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stdout,
    new RegExp(`✗ alpha: locked commit ${locked.slice(0, 12)} is gone from ${repo.url}`),
  );
  assert.match(result.stdout, /branch 'main' now resolves to [0-9a-f]{12}, where files differ/);
  assert.match(result.stdout, /^ {4}~ SKILL\.md$/m);
  assert.match(result.stdout, /^ {4}~ scripts\/hello\.py$/m);
  // Each file once: listed under the line, not in it too.
  assert.equal(result.stdout.split("SKILL.md").length - 1, 1, result.stdout);
  assert.equal(await Deno.stat(join(p.root, ".agents", "skills", "alpha")).catch(() => null), null);
});

Deno.test("install reads a vercel-labs skills-lock.json: commits resolved anew (said so), files checked against computedHash", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", collection());
  const foreign = await vercelAlphaLock(repo);
  const lockPath = join(p.root, "skills-lock.json");
  const foreignText = JSON.stringify(foreign, null, 2) + "\n";
  await Deno.writeTextFile(lockPath, foreignText);

  const frozen = await p.cli(["install", "--frozen"]);
  assert.equal(frozen.code, 0, frozen.stderr);
  assert.match(
    frozen.stderr,
    /written by vercel-labs' skills CLI, which records no commits: each skill's commit is resolved anew/,
  );
  assert.equal(await Deno.readTextFile(lockPath), foreignText, "--frozen never rewrites it");
  assert.ok(await Deno.stat(join(p.root, ".agents", "skills", "alpha", "SKILL.md")));

  await Deno.remove(join(p.root, ".agents"), { recursive: true });
  const convert = await p.cli(["install"]);
  assert.equal(convert.code, 0, convert.stderr);
  assert.match(convert.stderr, /rewritten with the commits and file digests/);
  const ours = await p.lock();
  assert.equal(ours.version, 1);
  assert.equal(ours.lockfileVersion, 2);
  assert.equal(ours.skills.alpha!.commit, await repo.head());
  assert.equal(ours.skills.alpha!.skillPath, "skills/alpha/SKILL.md");
  assert.equal(ours.skills.alpha!.computedHash, foreign.skills.alpha.computedHash);
  assert.deepEqual(ours.skills.alpha!.permissions, { env: ["ALPHA_*"], network: [] });
  const check = await p.cli(["install", "--frozen"]);
  assert.equal(check.code, 0, check.stderr);

  // A computedHash the source no longer matches fails under --frozen.
  await Deno.writeTextFile(
    lockPath,
    JSON.stringify({
      version: 1,
      skills: { alpha: { ...foreign.skills.alpha, computedHash: "0".repeat(64) } },
    }),
  );
  await Deno.remove(join(p.root, ".agents"), { recursive: true });
  const stale = await p.cli(["install", "--frozen"]);
  assert.equal(stale.code, 1);
  assert.match(
    stale.stdout,
    /✗ alpha: the files of .* differ from the computedHash in skills-lock.json/,
  );
});

Deno.test("`skills install <source>` is a usage error that points to `skills add`", async () => {
  await using p = await project();
  const result = await p.cli(["install", "owner/repo"]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /error: `skills install` restores the project's skills-lock.json; it takes no source/,
  );
  assert.match(result.stderr, /hint: Did you mean `skills add owner\/repo`\?/);
  const none = await p.cli(["install"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /No skills-lock.json in .*app/);
  assert.match(none.stderr, /skills add <source> --project/);
});

Deno.test("a vercel-labs skills-lock.json without skillPath finds each skill by its declared name, wherever its folder is; converting keeps path and commit", async () => {
  await using p = await project();
  // Published layouts where the folder is not named like the skill (as in vercel-labs/agent-skills).
  const repo = await createRepo(p.dir, "agent-skills", {
    "README.md": "# skills\n",
    ...skillFiles("composition-patterns", "skills/composition"),
    ...skillFiles("react-best-practices", "skills/react"),
  });
  const foreign = {
    version: 1,
    skills: {
      "composition-patterns": {
        source: repo.url,
        sourceType: "git",
        computedHash: await vercelHash(join(repo.work, "skills", "composition")),
      },
      "react-best-practices": {
        source: repo.url,
        sourceType: "git",
        computedHash: await vercelHash(join(repo.work, "skills", "react")),
      },
    },
  };
  const lockPath = join(p.root, "skills-lock.json");
  await Deno.writeTextFile(lockPath, JSON.stringify(foreign, null, 2) + "\n");

  const frozen = await p.cli(["install", "--frozen"]);
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  for (const name of ["composition-patterns", "react-best-practices"]) {
    assert.ok(await Deno.stat(join(p.root, ".agents", "skills", name, "SKILL.md")), name);
  }

  await Deno.remove(join(p.root, ".agents"), { recursive: true });
  const convert = await p.cli(["install"]);
  assert.equal(convert.code, 0, convert.stdout + convert.stderr);
  const ours = await p.lock();
  assert.equal(ours.skills["composition-patterns"]!.skillPath, "skills/composition/SKILL.md");
  assert.equal(ours.skills["react-best-practices"]!.skillPath, "skills/react/SKILL.md");
  assert.equal(ours.skills["composition-patterns"]!.commit, await repo.head());

  // A fresh clone of the project restores from the converted file.
  await Deno.remove(join(p.root, ".agents"), { recursive: true });
  const again = await p.cli(["install", "--frozen"]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.ok(await Deno.stat(join(p.root, ".agents", "skills", "react-best-practices", "SKILL.md")));
});

Deno.test("a project whose skills-lock.json vercel-labs' CLI rewrote: check and install --frozen name the folder its file no longer records", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", collection());
  const add = await p.cli(["add", repo.url, "--project", "--skill", "beta", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  // The peer's `add` replaced our file with its format and recorded only alpha.
  await Deno.writeTextFile(
    join(p.root, "skills-lock.json"),
    JSON.stringify(await vercelAlphaLock(repo), null, 2) + "\n",
  );
  const check = await p.cli(["check"]);
  assert.notEqual(check.code, 0, check.stdout);
  assert.match(
    check.stdout + check.stderr,
    /beta.*in \.agents\/skills but not in skills-lock\.json/,
  );
  const frozen = await p.cli(["install", "--frozen"]);
  assert.equal(frozen.code, 1, frozen.stdout + frozen.stderr);
  assert.match(frozen.stdout, /beta: in \.agents\/skills but not in skills-lock\.json/);
});

Deno.test("add --project --skill '*' leaves symlinked SKILL.md folders out of the lockfile and says which", async () => {
  await using p = await project();
  const repo = await mirroredSkillRepo(p.dir, "mirrored");
  const add = await p.cli(["add", repo.url, "--project", "--skill", "*", "--yes", "--json"]);
  assert.equal(add.code, 0, add.stderr);
  assert.deepEqual(JSON.parse(add.stdout).skipped_links, MIRRORED_LINKS);
  assert.deepEqual(Object.keys((await p.lock()).skills), ["alpha"]);
});
