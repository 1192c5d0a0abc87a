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
