/**
 * Updates as precise as the skill (issue 25): `outdated` and `update` compare each skill's
 * own folder, not its repository's commit, in both scopes (installed skills and a project's
 * locked skills); a repository is fetched once per command however many skills come from it
 * (counted by a `git` first on PATH that logs every invocation and runs the real one); and
 * copies made by `link --copy` follow `update` and `install`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, multiSkillFiles } from "../../fixtures/git_repos.ts";
import { startGitHttpsServer } from "../../fixtures/git_https_server.ts";
import { project } from "../../helpers/project.ts";

/** A `git` that appends its argv to `log` and runs the real git: put its folder first on PATH. */
async function loggingGit(dir: string): Promise<{ path: string; calls: () => Promise<string[]> }> {
  const bin = join(dir, "logging-bin");
  const log = join(dir, "git-calls.log");
  await Deno.mkdir(bin);
  const real = new TextDecoder().decode(
    (await new Deno.Command("sh", { args: ["-c", "command -v git"] }).output()).stdout,
  ).trim();
  await Deno.writeTextFile(
    join(bin, "git"),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`,
    { mode: 0o755 },
  );
  return {
    path: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    calls: async () => {
      const text = await Deno.readTextFile(log).catch(() => "");
      await Deno.writeTextFile(log, "");
      return text.split("\n").filter((line) => line !== "");
    },
  };
}

/** The git verb of a logged invocation (the first word that is not a `-c` setting). */
function verbs(calls: readonly string[]): string[] {
  return calls.map((line) => {
    const words = line.split(" ");
    for (let i = 0; i < words.length; i++) {
      if (words[i] === "-c") i++;
      else if (!words[i]!.startsWith("-")) return words[i]!;
    }
    return "";
  });
}

const count = (list: readonly string[], verb: string) => list.filter((v) => v === verb).length;

const SIX = ["s1", "s2", "s3", "s4", "s5", "s6"];

Deno.test("update --all of six skills from one remote fetches it once and updates only the one that changed", async () => {
  await using p = await project();
  const served = join(p.dir, "served");
  await Deno.mkdir(served);
  const repo = await createRepo(served, "collection", multiSkillFiles(SIX));
  const server = await startGitHttpsServer(served, p.dir);
  try {
    const git = await loggingGit(p.dir);
    const env = { GIT_SSL_CAINFO: server.caFile, PATH: git.path };
    const url = `${server.origin}/collection.git`;
    const add = await p.cli(["add", url, "--skill", "*", "--yes"], { cwd: p.dir, env });
    assert.equal(add.code, 0, add.stderr);
    const before = await p.files(join(p.home, "s1"));
    await repo.commit({ "skills/s4/notes.md": "new upstream\n" });
    await git.calls();

    const dry = await p.cli(["update", "--all", "--dry-run"], { cwd: p.dir, env });
    assert.equal(dry.code, 0, dry.stderr);
    let calls = verbs(await git.calls());
    assert.equal(count(calls, "ls-remote"), 1, calls.join("\n"));
    assert.equal(count(calls, "clone") + count(calls, "fetch"), 1, calls.join("\n"));
    assert.match(dry.stdout, /^s4: [0-9a-f]{8} → [0-9a-f]{8} \(branch main\)\n {2}\+ notes\.md$/m);

    const update = await p.cli(["update", "--all", "--yes"], { cwd: p.dir, env });
    assert.equal(update.code, 0, update.stderr);
    calls = verbs(await git.calls());
    assert.equal(count(calls, "ls-remote"), 1, calls.join("\n"));
    assert.equal(count(calls, "clone") + count(calls, "fetch"), 1, calls.join("\n"));
    assert.match(update.stdout, /^s4: updated to [0-9a-f]{8}$/m);
    for (const name of SIX.filter((n) => n !== "s4")) {
      assert.match(
        update.stdout,
        new RegExp(
          `^${name}: repository moved, skill unchanged \\([0-9a-f]{8} → [0-9a-f]{8}, branch main\\); files kept, recorded the new commit$`,
          "m",
        ),
      );
    }
    assert.ok(await Deno.stat(join(p.home, "s4", "notes.md")));
    assert.deepEqual(
      await p.files(join(p.home, "s1")),
      before,
      "an unchanged skill is not rewritten",
    );

    // The new commit was recorded for all six: nothing is outdated and nothing is fetched.
    const outdated = await p.cli(["outdated", "--json"], { cwd: p.dir, env });
    assert.equal(outdated.code, 0, outdated.stdout);
    assert.deepEqual(
      JSON.parse(outdated.stdout).skills.map((s: { status: string }) => s.status),
      SIX.map(() => "up_to_date"),
    );
    calls = verbs(await git.calls());
    assert.deepEqual(calls, ["ls-remote"]);
  } finally {
    await server.close();
  }
});

Deno.test("outdated on a repository of five skills where one changed reports that one, fetching once", async () => {
  await using p = await project();
  const five = ["a", "b", "c", "d", "e"];
  const repo = await createRepo(p.dir, "five", multiSkillFiles(five));
  const git = await loggingGit(p.dir);
  const env = { PATH: git.path };
  const add = await p.cli(["add", repo.url, "--skill", "*", "--yes"], { cwd: p.dir, env });
  assert.equal(add.code, 0, add.stderr);
  // Commits elsewhere in the repository and in another skill's folder, then one in c's.
  await repo.commit({ "README.md": "# Renamed collection\n" });
  await repo.commit({ "skills/c/references/guide.md": "# c guide, second edition\n" });
  await git.calls();

  const text = await p.cli(["outdated"], { cwd: p.dir, env });
  assert.equal(text.code, 1, text.stderr);
  assert.match(text.stdout, /^c\s+user\s+branch main\s+[0-9a-f]{8}\s+[0-9a-f]{8}\s+outdated$/m);
  for (const name of ["a", "b", "d", "e"]) {
    assert.match(
      text.stdout,
      new RegExp(`^${name}\\s+user\\s+branch main\\s+.*repository moved, skill unchanged$`, "m"),
    );
  }
  assert.match(text.stderr, /^1 outdated: update with `skills update c`$/m);
  const calls = verbs(await git.calls());
  assert.equal(count(calls, "ls-remote"), 1, calls.join("\n"));
  assert.equal(count(calls, "cat-file"), 1, `one read of the repository: ${calls.join("\n")}`);

  const json = await p.cli(["outdated", "--json"], { cwd: p.dir, env });
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.outdated, true);
  assert.deepEqual(
    doc.skills.map((s: { name: string; status: string }) => [s.name, s.status]),
    [["a", "moved"], ["b", "moved"], ["c", "outdated"], ["d", "moved"], ["e", "moved"]],
  );
});

Deno.test("a project's locked skills: outdated reports only the changed one; update records the moved ones' commit without rewriting them", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", multiSkillFiles(["alpha", "beta", "gamma"]));
  const add = await p.cli(["add", repo.url, "--project", "--skill", "*", "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const head = await repo.commit({ "skills/beta/notes.md": "new\n" });

  const outdated = await p.cli(["outdated", "--json"]);
  assert.equal(outdated.code, 1);
  assert.deepEqual(
    JSON.parse(outdated.stdout).skills.map((s: Record<string, string>) => [s.name, s.status]),
    [["alpha", "moved"], ["beta", "outdated"], ["gamma", "moved"]],
  );

  const alphaDir = join(p.root, ".agents", "skills", "alpha");
  const alphaBefore = await p.files(alphaDir);
  const lockBefore = (await p.lock()).skills;
  const dry = await p.cli(["update", "--project", "--dry-run"]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(
    dry.stdout,
    /^alpha: repository moved, skill unchanged .*would record the new commit$/m,
  );
  const dryJson = JSON.parse((await p.cli(["update", "--project", "--dry-run", "--json"])).stdout);
  assert.deepEqual(
    dryJson.updates.map((u: Record<string, string>) => [u.name, u.status, u.new_sha]),
    [["alpha", "moved", head], ["beta", "would_update", head], ["gamma", "moved", head]],
  );
  assert.deepEqual((await p.lock()).skills, lockBefore, "a dry run writes nothing");

  const update = await p.cli(["update", "--project", "--yes"]);
  assert.equal(update.code, 0, update.stderr);
  assert.match(update.stdout, /^beta: updated to [0-9a-f]{8}$/m);
  assert.match(
    update.stdout,
    /^gamma: repository moved, skill unchanged .*recorded the new commit$/m,
  );
  const lock = (await p.lock()).skills;
  for (const name of ["alpha", "beta", "gamma"]) assert.equal(lock[name]!.commit, head, name);
  assert.equal(lock.alpha!.digest, lockBefore.alpha!.digest);
  assert.deepEqual(lock.alpha!.files, lockBefore.alpha!.files);
  assert.deepEqual(await p.files(alphaDir), alphaBefore);
  assert.equal((await p.cli(["outdated"])).code, 0);
  assert.equal((await p.cli(["install", "--frozen"])).code, 0, "folders and lock agree");
});

Deno.test("copies made by link --copy follow update (both scopes) and install, so check stays quiet", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", multiSkillFiles(["alpha", "omega"]));
  assert.equal((await p.cli(["add", repo.url, "--project", "--skill", "alpha", "--yes"])).code, 0);
  const omega = await p.cli(["add", repo.url, "--skill", "omega", "--yes"], { cwd: p.dir });
  assert.equal(omega.code, 0, omega.stderr);
  const projectCopy = await p.cli(["link", "alpha", "--agent", "claude-code", "--copy"]);
  assert.equal(projectCopy.code, 0, projectCopy.stderr);
  const userCopy = await p.cli(["link", "omega", "--agent", "windsurf", "--global", "--copy"]);
  assert.equal(userCopy.code, 0, userCopy.stderr);
  const alphaCopy = join(p.root, ".claude", "skills", "alpha");
  const omegaCopy = join(p.dir, ".codeium", "windsurf", "skills", "omega");
  assert.ok(!Deno.lstatSync(alphaCopy).isSymlink && !Deno.lstatSync(omegaCopy).isSymlink);
  const lockAtFirst = await Deno.readTextFile(join(p.root, "skills-lock.json"));

  await repo.commit({
    "skills/alpha/notes.md": "alpha, second edition\n",
    "skills/omega/notes.md": "omega, second edition\n",
  });
  const update = await p.cli(["update", "alpha", "omega", "--yes"]);
  assert.equal(update.code, 0, update.stdout + update.stderr);
  assert.equal(await Deno.readTextFile(join(alphaCopy, "notes.md")), "alpha, second edition\n");
  assert.equal(await Deno.readTextFile(join(omegaCopy, "notes.md")), "omega, second edition\n");
  const check = await p.cli(["check", "--json"]);
  assert.deepEqual(JSON.parse(check.stdout).links, [], check.stdout);

  // A teammate's older lockfile comes back (git checkout): install restores that version,
  // and once it is trusted the copy shows it too.
  await Deno.writeTextFile(join(p.root, "skills-lock.json"), lockAtFirst);
  const install = await p.cli(["install", "--force", "--trust"]);
  assert.equal(install.code, 0, install.stdout + install.stderr);
  assert.equal(await Deno.readTextFile(join(alphaCopy, "notes.md")).catch(() => null), null);
  assert.deepEqual(
    await p.files(alphaCopy),
    await p.files(join(p.root, ".agents", "skills", "alpha")),
  );
  const after = await p.cli(["check", "--json"]);
  assert.deepEqual(JSON.parse(after.stdout).links, [], after.stdout);
});

Deno.test("a copy edited since link --copy made it is left alone by update, and said so", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", multiSkillFiles(["alpha"]));
  assert.equal((await p.cli(["add", repo.url, "--project", "--yes"])).code, 0);
  assert.equal((await p.cli(["link", "alpha", "--agent", "claude-code", "--copy"])).code, 0);
  const copy = join(p.root, ".claude", "skills", "alpha");
  await Deno.writeTextFile(join(copy, "mine.md"), "my own note\n");
  await repo.commit({ "skills/alpha/notes.md": "upstream\n" });
  const update = await p.cli(["update", "alpha", "--yes"]);
  assert.equal(update.code, 0, update.stderr);
  assert.match(update.stderr, /the copy at .*alpha was edited since it was made; left as it is/);
  assert.equal(await Deno.readTextFile(join(copy, "mine.md")), "my own note\n");
  assert.equal(await Deno.readTextFile(join(copy, "notes.md")).catch(() => null), null);
});

Deno.test("update does not refresh a copy through a .claude the repository turned into a link out of the project", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", multiSkillFiles(["alpha"]));
  assert.equal((await p.cli(["add", repo.url, "--project", "--yes"])).code, 0);
  assert.equal((await p.cli(["link", "alpha", "--agent", "claude-code", "--copy"])).code, 0);
  // A pull replaces the project's .claude with a link to a folder outside it (as a hostile
  // repository could, towards the user's ~/.claude), holding the same copy.
  const outside = join(p.dir, "outside");
  await Deno.rename(join(p.root, ".claude"), outside);
  await Deno.symlink(outside, join(p.root, ".claude"));
  await repo.commit({ "skills/alpha/notes.md": "upstream\n" });
  const update = await p.cli(["update", "alpha", "--yes"]);
  assert.equal(update.code, 0, update.stderr);
  assert.match(update.stderr, /the copy at .*alpha was not refreshed: \.claude is a symlink/);
  assert.equal(
    await Deno.readTextFile(join(outside, "skills", "alpha", "notes.md")).catch(() => null),
    null,
    "nothing written outside the project",
  );
});
