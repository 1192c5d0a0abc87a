/**
 * `--write` folders, which a sandboxed script writes directly (no overlay, no diff): every
 * guarded path there — the names the workspace's diff holds back (core/policy/workspace_rules.ts)
 * — stays read-only at any depth, a repository's `.git` and `.github` cannot be swapped or
 * pointed elsewhere, and a guarded path the run made is moved aside when it ends
 * (runtime/exec/workspace_walk.ts, sandbox/mounts.ts), as root and as an ordinary user.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type Lab, setupLab } from "../sandbox/sandbox_helpers.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";
import { git } from "../../fixtures/git_repos.ts";
import { installFixtureSkill, RUNNER_SKILLS } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";
import { userLab } from "../../helpers/unprivileged.ts";

type Seen = Record<string, { ok: boolean }>;

/** A git repository outside the workspace, with `tree` written into it: the folder granted. */
async function grantedRepo(lab: Lab, tree: Record<string, string> = {}): Promise<string> {
  await git(lab.outside, ["init", "-q", "repo"]);
  const granted = join(lab.outside, "repo");
  await writeTree(granted, tree);
  return granted;
}

/** `skills run --write <granted> sandbox-lab attempt <ops> --json`: its report and stderr. */
async function attemptIn(
  lab: Lab,
  granted: string,
  ops: string[],
): Promise<{ seen: Seen; stderr: string }> {
  const result = await lab.run(["--write", granted, "sandbox-lab", "attempt", ...ops, "--json"]);
  assert.equal(result.code, 0, result.stderr);
  return { seen: JSON.parse(result.stdout), stderr: result.stderr };
}

/** The run's stderr says `rel` in `granted` was moved aside, and it is gone from there. */
async function assertMovedAside(granted: string, rel: string, stderr: string): Promise<void> {
  await assert.rejects(Deno.lstat(join(granted, rel)), Deno.errors.NotFound, `${rel} moved aside`);
  assert.match(stderr, new RegExp(`held back: ${join(granted, rel)}, made by the script`));
}

Deno.test(
  "in a --write folder every guarded path stays read-only, however deep: a nested repository's hooks too",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    // A repository nested seven folders down (services/…/app/.git), as monorepos vendor them.
    const deep = "services/payments/api/internal/v2/app";
    const guarded: Record<string, string> = {
      ".git/hooks/pre-commit": "#!/bin/sh\necho the user's own hook\n",
      ".envrc": "export PROJECT=1\n",
      [`${deep}/.git/hooks/pre-commit`]: "#!/bin/sh\necho the nested repository's hook\n",
      [`${deep}/.git/config`]: "[core]\n",
      [`${deep}/.envrc`]: "export NESTED=1\n",
    };
    const granted = await grantedRepo(lab, guarded);
    const writes = [...Object.keys(guarded), `${deep}/notes.txt`];
    const { seen } = await attemptIn(
      lab,
      granted,
      writes.map((rel) => `write:${join(granted, rel)}`),
    );
    for (const [rel, text] of Object.entries(guarded)) {
      assert.equal(seen[`write:${join(granted, rel)}`]!.ok, false, `${rel} is read-only`);
      assert.equal(await Deno.readTextFile(join(granted, rel)), text, rel);
    }
    assert.equal(
      seen[`write:${join(granted, `${deep}/notes.txt`)}`]!.ok,
      true,
      "the rest is writable",
    );
  },
);

Deno.test(
  "a --write folder guards what the workspace holds back: a submodule's .git file, husky, pre-commit, cargo",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    // Paths whose change runs code on the user's next git, commit or build: the workspace's
    // diff holds each back, and so must a --write folder.
    const existing: Record<string, string> = {
      "vendor/lib/.git": "gitdir: ../../.git/modules/lib\n",
      ".husky/pre-commit": "npm test\n",
      ".pre-commit-config.yaml": "repos: []\n",
      ".cargo/config.toml": "[build]\n",
      ".devcontainer/devcontainer.json": "{}\n",
    };
    const granted = await grantedRepo(lab, existing);
    const made = [".githooks", "src/.git", ".gitlab-ci.yml", ".tool-versions"];
    const { seen, stderr } = await attemptIn(lab, granted, [
      ...Object.keys(existing).map((rel) => `write:${join(granted, rel)}`),
      ...[".githooks/pre-commit", ...made.slice(1)].map((rel) => `create:${join(granted, rel)}`),
    ]);
    for (const [rel, text] of Object.entries(existing)) {
      assert.equal(seen[`write:${join(granted, rel)}`]!.ok, false, `${rel} is read-only`);
      assert.equal(await Deno.readTextFile(join(granted, rel)), text, rel);
    }
    for (const rel of made) await assertMovedAside(granted, rel, stderr);
  },
);

Deno.test(
  "guarded paths a script makes in a --write folder, at any depth, are moved aside after the run",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const granted = await grantedRepo(lab, {
      ".github/README.md": "docs\n",
      "src/main.py": "print(1)\n",
    });
    const made = [
      ".envrc",
      ".vscode/tasks.json",
      ".github/workflows/evil.yml",
      "src/app/.claude/settings.json",
    ];
    const ops = [...made, "src/notes.txt"].map((rel) => `create:${join(granted, rel)}`);
    const { seen, stderr } = await attemptIn(lab, granted, ops);
    for (const op of ops) assert.equal(seen[op]!.ok, true, `${op}: written during the run`);
    for (const top of [".envrc", ".vscode", ".github/workflows", "src/app/.claude"]) {
      await assertMovedAside(granted, top, stderr);
    }
    assert.equal(await Deno.readTextFile(join(granted, "src/notes.txt")), "written by a skill\n");
    assert.equal(await Deno.readTextFile(join(granted, ".github/README.md")), "docs\n");
    const quarantine = /was moved to \$SKILLS_HOME\/(\S+)\/\.vscode\b/.exec(stderr)![1]!;
    assert.equal(
      await Deno.readTextFile(join(lab.home, quarantine, ".vscode/tasks.json")),
      "written by a skill\n",
    );
  },
);

Deno.test(
  "a repository in a --write folder cannot be pointed at a config the script wrote (.git/commondir)",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const granted = await grantedRepo(lab);
    await git(granted, ["init", "-q", "vendor/lib"]);
    // A linked worktree's git folder names the main one in its own commondir.
    const author = ["-c", "user.name=t", "-c", "user.email=t@t"];
    await git(granted, [...author, "commit", "-q", "--allow-empty", "-m", "c"]);
    await git(granted, ["worktree", "add", "-q", join(lab.outside, "wt")]);
    const worktreeCommon = join(granted, ".git/worktrees/wt/commondir");
    const common = await Deno.readTextFile(worktreeCommon);
    // git reads config, hooks and core.fsmonitor from the folder a commondir file names.
    const { seen, stderr } = await attemptIn(lab, granted, [
      `create:${join(granted, "planted/config")}`,
      `create:${join(granted, ".git/commondir")}`,
      `create:${join(granted, "vendor/lib/.git/commondir")}`,
      `write:${worktreeCommon}`,
    ]);
    assert.equal(seen[`write:${worktreeCommon}`]!.ok, false, "a worktree's commondir is read-only");
    assert.equal(await Deno.readTextFile(worktreeCommon), common);
    for (const rel of [".git/commondir", "vendor/lib/.git/commondir"]) {
      await assertMovedAside(granted, rel, stderr);
    }
    assert.equal(await Deno.readTextFile(join(granted, "planted/config")), "written by a skill\n");
  },
);

/**
 * A script granted `--write` to a repository tries to swap its `.git` (and `.github`) for ones
 * carrying its own hook and workflow; `attempt` runs the ops and returns its report.
 */
async function assertNoSwap(
  granted: string,
  attempt: (ops: string[]) => Promise<Seen>,
): Promise<void> {
  const config = await Deno.readTextFile(join(granted, ".git/config"));
  const at = (rel: string) => join(granted, rel);
  const seen = await attempt([
    `move:${at(".git")}>${at(".git-old")}`,
    `create:${at(".git/hooks/pre-commit")}`,
    `move:${at(".github")}>${at(".github-old")}`,
    `create:${at(".github/workflows/evil.yml")}`,
    `write:${at("notes.txt")}`,
  ]);
  assert.equal(seen[`move:${at(".git")}>${at(".git-old")}`]!.ok, false, "the .git folder stays");
  assert.equal(seen[`move:${at(".github")}>${at(".github-old")}`]!.ok, false, ".github stays");
  assert.equal(seen[`write:${at("notes.txt")}`]!.ok, true, "the folder is written");
  assert.equal(await Deno.readTextFile(join(granted, ".git/config")), config);
  for (const rel of [".git/hooks/pre-commit", ".github/workflows/evil.yml"]) {
    await assert.rejects(Deno.lstat(join(granted, rel)), Deno.errors.NotFound, rel);
  }
}

Deno.test(
  "in a --write folder a repository's .git cannot be swapped for one with the script's hooks",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const granted = await grantedRepo(lab, { ".github/workflows/ci.yml": "on: push\n" });
    await assertNoSwap(granted, async (ops) => (await attemptIn(lab, granted, ops)).seen);
  },
);

Deno.test(
  "as an ordinary user too, a --write folder's .git cannot be swapped",
  { ignore: needsSandbox.ignore || Deno.uid() !== 0 || Deno.build.os !== "linux" },
  async () => {
    await using lab = await userLab();
    await installFixtureSkill(lab.skillsHome, join(RUNNER_SKILLS, "sandbox-lab"));
    const granted = join(lab.cwd, "repo");
    await git(lab.cwd, ["init", "-q", "repo"]);
    await writeTree(granted, { ".github/workflows/ci.yml": "on: push\n" });
    await lab.give(lab.home);
    await lab.give(lab.cwd);
    await assertNoSwap(granted, async (ops) => {
      const result = await lab.run(
        ["run", "--write", granted, "sandbox-lab", "attempt", ...ops, "--json"],
        { fuse: false },
      );
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout);
    });
  },
);
