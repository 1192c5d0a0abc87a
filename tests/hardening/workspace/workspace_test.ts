/**
 * The workspace a sandboxed script writes in (core/policy/workspace.ts, runtime/workspace,
 * sandbox/mounts.ts): writable, yet every guarded path stays as it was, secret files read
 * empty at any depth, a home or `--read-only` workspace is not written, a symlink out of
 * the workspace widens nothing, and guarded paths a script creates are taken away.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { setupLab } from "../sandbox/sandbox_helpers.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";
import { git } from "../../fixtures/git_repos.ts";
import { project } from "../../helpers/project.ts";
import { runCli } from "../../helpers/cli.ts";
import { installFixtureSkill, RUNNER_SKILLS } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";
import { userLab } from "../../helpers/unprivileged.ts";

/** Guarded files of a project, with the content each starts with. */
const GUARDED: Record<string, string> = {
  ".git/hooks/pre-commit": "#!/bin/sh\necho the user's own hook\n",
  ".gitmodules": '[submodule "lib"]\n\tpath = lib\n',
  ".bashrc": "# the user's shell\n",
  ".envrc": "export PROJECT=1\n",
  ".vscode/tasks.json": '{"tasks": []}\n',
  ".idea/workspace.xml": "<project/>\n",
  ".claude/settings.json": "{}\n",
  ".github/workflows/ci.yml": "on: push\n",
  ".mcp.json": '{"mcpServers": {}}\n',
  "skills-lock.json": '{"version": 1, "skills": {}}\n',
};

async function plantProject(dir: string): Promise<void> {
  await git(dir, ["init", "-q"]);
  // A submodule's git folder lives in the parent's: its hooks run too.
  await Deno.mkdir(join(dir, ".git/modules/lib/hooks"), { recursive: true });
  await Deno.writeTextFile(join(dir, ".git/modules/lib/config"), "[core]\n");
  await writeTree(dir, GUARDED);
}

Deno.test(
  "in a writable workspace every guarded path a script writes, renames or deletes stays as it was, held back",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    await plantProject(lab.callerDir);
    const gitConfig = await Deno.readTextFile(join(lab.callerDir, ".git/config"));
    const ops = [
      ...Object.keys(GUARDED).map((rel) => `write:${rel}`),
      "write:.git/config",
      "write:.git/hooks/post-checkout",
      "write:.git/modules/lib/hooks/post-checkout",
      "write:.git/modules/lib/config",
      "write:.vscode/settings.json",
      "write:.github/workflows/evil.yml",
      "move:.git>.git-old",
      "move:.mcp.json>mcp.bak",
      "delete:.bashrc",
      "write:notes.txt",
    ];
    const result = await lab.run(["sandbox-lab", "attempt", ...ops, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const seen = JSON.parse(result.stdout);
    assert.equal(seen["write:notes.txt"]!.ok, true, "the rest of the workspace is writable");
    for (const [rel, text] of Object.entries(GUARDED)) {
      assert.equal(await Deno.readTextFile(join(lab.callerDir, rel)), text, `${rel} changed`);
    }
    assert.equal(await Deno.readTextFile(join(lab.callerDir, ".git/config")), gitConfig);
    for (const absent of [".git/hooks/post-checkout", ".vscode/settings.json", ".git-old"]) {
      await assert.rejects(Deno.lstat(join(lab.callerDir, absent)), Deno.errors.NotFound, absent);
    }
    assert.equal(await Deno.readTextFile(join(lab.callerDir, "notes.txt")), "written by a skill\n");
    const receipt = JSON.parse(
      result.stderr.split("\n").find((line) => line.startsWith("receipt: "))!.slice(9),
    );
    // Every guarded path the script touched is named, held back, never applied (`.envrc` is
    // a secret file too: masked, it cannot even be written).
    assert.deepEqual(receipt.files.quarantined, [
      ".bashrc",
      ".claude",
      ".git",
      ".github/workflows",
      ".gitmodules",
      ".idea",
      ".mcp.json",
      ".vscode",
      "skills-lock.json",
    ]);
  },
);

Deno.test(
  "a guarded path a script creates where there was none is moved to quarantine and reported",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    await Deno.mkdir(join(lab.callerDir, "packages", "web"), { recursive: true });
    const result = await lab.run([
      "sandbox-lab",
      "attempt",
      "write:.mcp.json",
      "create:packages/web/.claude/settings.json",
      "create:packages/web/.github/workflows/ci.yml",
      "write:made.txt",
      "--json",
    ]);
    assert.equal(result.code, 0, result.stderr);
    await assert.rejects(Deno.lstat(join(lab.callerDir, ".mcp.json")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(lab.callerDir, "made.txt")), "written by a skill\n");
    const receipt = JSON.parse(
      result.stderr.split("\n").find((line) => line.startsWith("receipt: "))!.slice(9),
    );
    assert.deepEqual(receipt.files.quarantined, [
      ".mcp.json",
      "packages/web/.claude",
      "packages/web/.github/workflows",
    ]);
    for (const made of ["packages/web/.claude", "packages/web/.github/workflows"]) {
      await assert.rejects(Deno.lstat(join(lab.callerDir, made)), Deno.errors.NotFound, made);
    }
    assert.deepEqual(receipt.files.created, ["made.txt"]);
    assert.match(receipt.files.quarantine, /^\$SKILLS_HOME\/\.cache\/quarantine\//);
    const kept = await Deno.readTextFile(
      join(receipt.files.quarantine.replace("$SKILLS_HOME", lab.home), ".mcp.json"),
    );
    assert.equal(kept, "written by a skill\n", "nothing is lost: the file is kept aside");
  },
);

Deno.test(
  "secret files at any depth of the workspace cannot be read",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const secrets: Record<string, string> = {
      "services/api/.env.production": "DB_PASSWORD=nested-env-secret",
      "web/.npmrc": "//registry.npmjs.org/:_authToken=npm-secret-token",
      "deploy/.netrc": "machine example.com password netrc-secret",
      "tools/.pypirc": "[pypi]\npassword = pypi-secret",
      ".env.example": "DB_PASSWORD=change-me",
    };
    for (const [rel, text] of Object.entries(secrets)) {
      await Deno.mkdir(join(lab.callerDir, rel, ".."), { recursive: true });
      await Deno.writeTextFile(join(lab.callerDir, rel), text);
    }
    const seen = await lab.attempt(Object.keys(secrets).map((rel) => `read:${rel}`));
    for (const rel of Object.keys(secrets).filter((r) => !r.endsWith(".example"))) {
      // Masked by a device the sandbox may not open: reading fails outright.
      assert.equal(seen[`read:${rel}`]!.ok, false, `${rel} was readable`);
      assert.ok(!seen[`read:${rel}`]!.detail.includes("secret"), seen[`read:${rel}`]!.detail);
    }
    assert.equal(
      seen["read:.env.example"]!.detail,
      "DB_PASSWORD=change-me",
      "templates are not secrets",
    );
  },
);

Deno.test(
  "a workspace that is the home folder, or one run with --read-only, is not written",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const home = await lab.run(["sandbox-lab", "attempt", "write:planted", "--json"], {}, {
      cwd: lab.userHome,
    });
    assert.equal(home.code, 0, home.stderr);
    assert.equal(JSON.parse(home.stdout)["write:planted"].ok, false);
    await assert.rejects(Deno.lstat(join(lab.userHome, "planted")), Deno.errors.NotFound);

    for (const [flags, env] of [[["--read-only"], {}], [[], { SKILLS_READ_ONLY: "1" }]] as const) {
      const seen = await lab.attempt(["write:planted"], env, [...flags]);
      assert.equal(seen["write:planted"]!.ok, false, `${flags} ${JSON.stringify(env)}`);
      await assert.rejects(Deno.lstat(join(lab.callerDir, "planted")), Deno.errors.NotFound);
    }
  },
);

Deno.test(
  "a symlink in the workspace pointing outside it does not widen what is writable",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    await Deno.symlink(lab.outside, join(lab.callerDir, "out"));
    await Deno.symlink(join(lab.userHome, ".ssh"), join(lab.callerDir, "keys"));
    const seen = await lab.attempt(["write:out/planted", "write:keys/authorized_keys"]);
    assert.equal(seen["write:out/planted"]!.ok, false, seen["write:out/planted"]!.detail);
    assert.equal(seen["write:keys/authorized_keys"]!.ok, false);
    await assert.rejects(Deno.lstat(join(lab.outside, "planted")), Deno.errors.NotFound);
    await assert.rejects(
      Deno.lstat(join(lab.userHome, ".ssh", "authorized_keys")),
      Deno.errors.NotFound,
    );
  },
);

Deno.test(
  "--write grants one more folder; never /, the home or $SKILLS_HOME",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const seen = await lab.attempt([`write:${join(lab.outside, "granted")}`], {}, [
      "--write",
      lab.outside,
    ]);
    assert.equal(seen[`write:${join(lab.outside, "granted")}`]!.ok, true);
    for (const path of ["/", lab.userHome, lab.home]) {
      const refused = await lab.run(["--write", path, "sandbox-lab", "attempt", "--json"]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /Cannot grant --write/);
    }
  },
);

Deno.test(
  "in a --write folder every guarded path stays read-only, however deep: a nested repository's hooks too",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const granted = join(lab.outside, "monorepo");
    // A repository nested seven folders down (services/…/app/.git), as monorepos vendor them.
    const deep = "services/payments/api/internal/v2/app";
    await writeTree(granted, {
      ".git/hooks/pre-commit": "#!/bin/sh\necho the user's own hook\n",
      ".envrc": "export PROJECT=1\n",
      [`${deep}/.git/hooks/pre-commit`]: "#!/bin/sh\necho the nested repository's hook\n",
      [`${deep}/.git/config`]: "[core]\n",
      [`${deep}/.envrc`]: "export NESTED=1\n",
    });
    const guarded = [
      ".git/hooks/pre-commit",
      ".envrc",
      `${deep}/.git/hooks/pre-commit`,
      `${deep}/.git/config`,
      `${deep}/.envrc`,
    ];
    const before = await Promise.all(guarded.map((rel) => Deno.readTextFile(join(granted, rel))));
    const ops = [...guarded, `${deep}/notes.txt`].map((rel) => `write:${join(granted, rel)}`);
    const seen = await lab.attempt(ops, {}, ["--write", granted]);
    for (const rel of guarded) {
      assert.equal(seen[`write:${join(granted, rel)}`]!.ok, false, `${rel} is read-only`);
    }
    assert.equal(
      seen[`write:${join(granted, `${deep}/notes.txt`)}`]!.ok,
      true,
      "the rest is writable",
    );
    const after = await Promise.all(guarded.map((rel) => Deno.readTextFile(join(granted, rel))));
    assert.deepEqual(after, before);
  },
);

/**
 * A script granted `--write` to a repository tries to swap its `.git` (and `.github`) for ones
 * carrying its own hook and workflow; `attempt` runs the ops in `granted` and returns its report.
 */
async function assertNoSwap(
  granted: string,
  attempt: (ops: string[]) => Promise<Record<string, { ok: boolean }>>,
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
  await assert.rejects(Deno.lstat(join(granted, ".git/hooks/pre-commit")), Deno.errors.NotFound);
  await assert.rejects(
    Deno.lstat(join(granted, ".github/workflows/evil.yml")),
    Deno.errors.NotFound,
  );
}

Deno.test(
  "in a --write folder a repository's .git cannot be swapped for one with the script's hooks",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const granted = join(lab.outside, "repo");
    await git(lab.outside, ["init", "-q", "repo"]);
    await writeTree(granted, { ".github/workflows/ci.yml": "on: push\n" });
    await assertNoSwap(granted, (ops) => lab.attempt(ops, {}, ["--write", granted]));
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

Deno.test(
  "guarded paths a script makes in a --write folder, at any depth, are moved aside after the run",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const granted = join(lab.outside, "repo");
    await git(lab.outside, ["init", "-q", "repo"]);
    await writeTree(granted, { ".github/README.md": "docs\n", "src/main.py": "print(1)\n" });
    const made = [
      ".envrc",
      ".vscode/tasks.json",
      ".github/workflows/evil.yml",
      "src/app/.claude/settings.json",
    ];
    const ops = [...made, "src/notes.txt"].map((rel) => `create:${join(granted, rel)}`);
    const result = await lab.run(["--write", granted, "sandbox-lab", "attempt", ...ops, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const seen = JSON.parse(result.stdout);
    for (const op of ops) assert.equal(seen[op]!.ok, true, `${op}: written during the run`);
    for (const top of [".envrc", ".vscode", ".github/workflows", "src/app/.claude"]) {
      await assert.rejects(Deno.lstat(join(granted, top)), Deno.errors.NotFound, top);
      assert.match(
        result.stderr,
        new RegExp(`held back: ${join(granted, top)}, made by the script`),
      );
    }
    assert.equal(await Deno.readTextFile(join(granted, "src/notes.txt")), "written by a skill\n");
    assert.equal(await Deno.readTextFile(join(granted, ".github/README.md")), "docs\n");
    const quarantine = /was moved to \$SKILLS_HOME\/(\S+)\/\.vscode\b/.exec(result.stderr)![1]!;
    assert.equal(
      await Deno.readTextFile(join(lab.home, quarantine, ".vscode/tasks.json")),
      "written by a skill\n",
    );
  },
);

Deno.test(
  "a --write folder guards what the workspace holds back: a submodule's .git file, husky, pre-commit, cargo",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const granted = join(lab.outside, "repo");
    // Paths whose change runs code on the user's next git, commit or build: the workspace's
    // diff holds each back (core/policy/workspace_rules.ts), and so must a --write folder.
    const existing: Record<string, string> = {
      "vendor/lib/.git": "gitdir: ../../.git/modules/lib\n",
      ".husky/pre-commit": "npm test\n",
      ".pre-commit-config.yaml": "repos: []\n",
      ".cargo/config.toml": "[build]\n",
      ".devcontainer/devcontainer.json": "{}\n",
    };
    await writeTree(granted, existing);
    const made = [".githooks/pre-commit", "src/.git", ".gitlab-ci.yml", ".tool-versions"];
    const ops = [
      ...Object.keys(existing).map((rel) => `write:${join(granted, rel)}`),
      ...made.map((rel) => `create:${join(granted, rel)}`),
    ];
    const result = await lab.run(["--write", granted, "sandbox-lab", "attempt", ...ops, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const seen = JSON.parse(result.stdout);
    for (const rel of Object.keys(existing)) {
      assert.equal(seen[`write:${join(granted, rel)}`]!.ok, false, `${rel} is read-only`);
      assert.equal(await Deno.readTextFile(join(granted, rel)), existing[rel], rel);
    }
    for (const rel of made) {
      const top = rel.split("/")[0] === "src" ? rel : rel.split("/")[0]!;
      await assert.rejects(
        Deno.lstat(join(granted, top)),
        Deno.errors.NotFound,
        `${top} moved aside`,
      );
    }
  },
);

Deno.test(
  "a repository in a --write folder cannot be pointed at a config the script wrote (.git/commondir)",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const granted = join(lab.outside, "repo");
    await git(lab.outside, ["init", "-q", "repo"]);
    await git(lab.outside, ["init", "-q", "repo/vendor/lib"]);
    // A linked worktree's git folder names the main one in its own commondir.
    await git(granted, [
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@t",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "c",
    ]);
    await git(granted, ["worktree", "add", "-q", join(lab.outside, "wt")]);
    const worktreeCommon = join(granted, ".git/worktrees/wt/commondir");
    const common = await Deno.readTextFile(worktreeCommon);
    // git reads config, hooks and core.fsmonitor from the folder a commondir file names.
    const ops = [
      `create:${join(granted, "planted/config")}`,
      `create:${join(granted, ".git/commondir")}`,
      `create:${join(granted, "vendor/lib/.git/commondir")}`,
      `write:${worktreeCommon}`,
    ];
    const result = await lab.run(["--write", granted, "sandbox-lab", "attempt", ...ops, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout)[`write:${worktreeCommon}`].ok, false, "read-only");
    assert.equal(await Deno.readTextFile(worktreeCommon), common);
    for (const rel of [".git/commondir", "vendor/lib/.git/commondir"]) {
      await assert.rejects(Deno.lstat(join(granted, rel)), Deno.errors.NotFound, rel);
      assert.match(
        result.stderr,
        new RegExp(`held back: ${join(granted, rel)}, made by the script`),
      );
    }
    assert.equal(await Deno.readTextFile(join(granted, "planted/config")), "written by a skill\n");
  },
);

Deno.test(
  "the sandbox's /var/tmp is private like /tmp",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const name = `/var/tmp/skills-sbx-private-${crypto.randomUUID()}`;
    const seen = await lab.attempt([`write:${name}`]);
    assert.equal(seen[`write:${name}`]!.ok, true, seen[`write:${name}`]!.detail);
    await assert.rejects(
      Deno.lstat(name),
      Deno.errors.NotFound,
      "the host's /var/tmp is untouched",
    );
  },
);

Deno.test(
  "a run's receipt lists the file it created and the connection the sandbox refused",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const result = await lab.run(
      ["sandbox-lab", "attempt", "write:report.txt", "http:http://127.0.0.1:9/", "--json"],
      // Any grant starts the proxy, which sees (and refuses) every other target.
      { SKILLS_ALLOW_NET: "example.invalid:443", LAB_TOKEN: "lab-token-value-5e1f" },
    );
    assert.equal(result.code, 0, result.stderr);
    const receipt = JSON.parse(
      result.stderr.split("\n").find((line) => line.startsWith("receipt: "))!.slice(9),
    );
    assert.deepEqual(receipt.files.created, ["report.txt"]);
    assert.deepEqual(receipt.network.refused.map((r: { target: string }) => r.target), [
      "127.0.0.1:9",
    ]);
    assert.equal(receipt.workspace.writable, true);
    assert.equal(receipt.sandbox, "bubblewrap");
    assert.ok(receipt.env.includes("SKILLS_SKILL_DIR"));

    // In text mode, one line on stderr.
    const text = await lab.run(["sandbox-lab", "attempt", "write:again.txt"]);
    assert.match(
      text.stderr,
      /^receipt: sandbox-lab\/attempt exit 0 in \d+ ms; 1 created \(again\.txt\)$/m,
    );
  },
);

Deno.test(
  "a project skill named like another skill never shares its sandbox cache",
  needsSandbox,
  async () => {
    await using p = await project();
    const lab = join(RUNNER_SKILLS, "sandbox-lab");
    await installFixtureSkill(p.home, lab); // the user's own sandbox-lab
    await copyDir(lab, join(p.root, ".agents", "skills", "sandbox-lab"));
    const trusted = await p.cli(["trust", "sandbox-lab", "--yes"]);
    assert.equal(trusted.code, 0, trusted.stderr);
    const attempt = async (cwd: string, op: string) => {
      const result = await p.cli(["run", "sandbox-lab", "attempt", op, "--json"], { cwd });
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout)[op] as { ok: boolean; detail: string };
    };
    // Inside the project the project's skill runs and plants a file in its cache.
    const projectCache = (await attempt(p.root, "env:XDG_CACHE_HOME")).detail;
    assert.equal((await attempt(p.root, `write:${projectCache}/markets.json`)).ok, true);
    // Outside it, the user's skill of the same name has a cache of its own: nothing planted.
    const userCache = (await attempt(p.dir, "env:XDG_CACHE_HOME")).detail;
    assert.notEqual(userCache, projectCache);
    const read = await attempt(p.dir, `read:${userCache}/markets.json`);
    assert.equal(read.ok, false, read.detail);
  },
);

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

Deno.test(
  "a skill removed and added again starts with an empty sandbox cache",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const cache = (await lab.attempt(["env:XDG_CACHE_HOME"]))["env:XDG_CACHE_HOME"]!.detail;
    const planted = `${cache}/planted`;
    assert.equal((await lab.attempt([`write:${planted}`]))[`write:${planted}`]!.ok, true);
    const removed = await runCli(["remove", "sandbox-lab", "--yes"], {
      env: { SKILLS_HOME: lab.home, HOME: lab.userHome },
    });
    assert.equal(removed.code, 0, removed.stderr);
    await installFixtureSkill(lab.home, join(RUNNER_SKILLS, "sandbox-lab"));
    const again = await lab.attempt(["env:XDG_CACHE_HOME", `read:${planted}`]);
    assert.equal(again["env:XDG_CACHE_HOME"]!.detail, cache, "the same skill, the same folder");
    assert.equal(again[`read:${planted}`]!.ok, false, "nothing the removed install left");
  },
);
