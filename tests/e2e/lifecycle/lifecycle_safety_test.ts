/**
 * Safety of `skills add` end to end: confirmation without and with a terminal, hostile
 * sources, hooks and submodules, kill -9 at random points, and concurrent installs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgv, killAfter, spawnCli } from "../../helpers/cli.ts";
import { userHome } from "../../helpers/user_home.ts";
import { PtySession } from "../../helpers/pty.ts";
import { exists, sleep, waitFor } from "../../helpers/wait.ts";
import {
  createRepo,
  git,
  hookingGitConfig,
  MIRRORED_LINKS,
  mirroredSkillRepo,
  multiSkillFiles,
  skillFiles,
  submoduleRepo,
  symlinkSkillRepo,
} from "../../fixtures/git_repos.ts";
import { startGitHttpsServer } from "../../fixtures/git_https_server.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { exitedOk as ok } from "../../helpers/cli.ts";

async function workspace() {
  const ws = await userHome();
  const cli = (args: string[], extra: Record<string, string> = {}) => ws.cli(args, { env: extra });
  /** Everything under $SKILLS_HOME except its caches (and the bundled skills materialised there). */
  const written = async () => {
    try {
      return (await Array.fromAsync(Deno.readDir(ws.home))).map((e) => e.name).filter((n) =>
        n !== ".cache"
      ).sort();
    } catch {
      return [];
    }
  };
  return { ...ws, cli, written };
}

/** An HTTPS git server in `dir` serving one skill's repository, whose every answer hangs. */
async function hangingGitServer(dir: string) {
  const root = join(dir, "srv");
  await Deno.mkdir(root);
  await createRepo(root, "repo", skillFiles("alpha"));
  return await startGitHttpsServer(root, dir, () => "hang");
}

Deno.test("without a terminal and without --yes, skills add shows the summary, refuses and writes nothing", async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
  const result = await ws.cli(["add", repo.url]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /Skill 'alpha'\n {2}Description: The alpha skill, for tests\./);
  assert.match(result.stderr, /error: Cannot install skill 'alpha': confirmation required/);
  assert.match(result.stderr, /hint: .*pass --yes/);
  assert.deepEqual(await ws.written(), []);
  const json = await ws.cli(["add", repo.url, "--json"]);
  assert.equal(JSON.parse(json.stdout).error, "confirmation_required");
});

/** Runs the CLI inside a pseudo-terminal, typing `input`; returns its exit code and output. */
async function inPty(ws: Awaited<ReturnType<typeof workspace>>, args: string[], input: string) {
  const pty = new PtySession(cliArgv(args), ws.env, ws.dir.path);
  await pty.type(input);
  const status = await pty.close();
  return { code: status.code, text: pty.output.replaceAll("\r\n", "\n") };
}

Deno.test("on a real terminal, answering n to the prompt writes nothing; y installs", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using ws = await workspace();
  const repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
  const sha = await repo.head();
  const no = await inPty(ws, ["add", repo.url], "n\n");
  assert.equal(no.code, 1, no.text);
  assert.ok(
    no.text.includes(`Install untrusted skill 'alpha' from ${repo.url} at ${sha}? [y/N]`),
    no.text,
  );
  assert.match(no.text, /Installation declined; nothing was installed/);
  assert.deepEqual(await ws.written(), []);
  const yes = await inPty(ws, ["add", repo.url], "y\n");
  assert.equal(yes.code, 0, yes.text);
  assert.deepEqual(await ws.written(), ["alpha", "registry.json", "registry.lock"]);
});

Deno.test("hostile sources are rejected before git runs and nothing is installed", async () => {
  await using ws = await workspace();
  const marker = join(ws.dir.path, "pwned");
  const repo = await createRepo(ws.dir.path, "r", skillFiles("alpha"));
  const cases: [string[], number, RegExp][] = [
    [["add", `--upload-pack=touch ${marker}`, repo.url, "--yes"], 2, /Unknown option/],
    [["add", "--yes", "--", `--upload-pack=touch ${marker}`], 1, /starts with '-'/],
    [["add", `ext::sh -c touch% ${marker}`, "--yes"], 1, /'ext::' remote helper transport/],
    [
      ["add", `ssh://-oProxyCommand=touch%20${marker}/repo`, "--yes"],
      1,
      /host name starts with '-'/,
    ],
    [["add", repo.url, `--ref=--upload-pack=touch ${marker}`, "--yes"], 1, /starts with '-'/],
    [["add", `${repo.url}#-ofoo`, "--yes"], 1, /starts with '-'/],
    [["add", "https://me:s3cret@example.com/o/r.git", "--yes"], 1, /credential\.helper/],
    [["add", "http://example.com/o/r.git", "--yes"], 1, /plain http:\/\/ is not allowed/],
  ];
  for (const [args, code, message] of cases) {
    const r = await ws.cli(args);
    assert.equal(r.code, code, `${args.join(" ")}\n${r.stderr}`);
    assert.match(r.stderr, message, args.join(" "));
    assert.doesNotMatch(r.stderr, /s3cret/);
    assert.doesNotMatch(r.stderr, /Cloning|Reading/, "git never ran");
  }
  assert.equal(await exists(marker), false);
  assert.deepEqual(await ws.written(), []);
});

Deno.test("a repo whose SKILL.md is a symlink to /etc/passwd is rejected during staging", async () => {
  await using ws = await workspace();
  const repo = await symlinkSkillRepo(ws.dir.path, "evil");
  const r = await ws.cli(["add", repo.url, "--yes"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /SKILL\.md is a symlink \(refused\)/);
  assert.deepEqual(await ws.written(), []);
});

Deno.test("--skill '*' leaves out folders whose SKILL.md is a symlink in one line; named, one is refused", async () => {
  await using ws = await workspace();
  const repo = await mirroredSkillRepo(ws.dir.path, "mirrored");

  const all = await ws.cli(["add", repo.url, "--skill", "*", "--yes", "--json"]);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(JSON.parse(all.stdout).installed.map((i: { name: string }) => i.name), [
    "alpha",
  ]);
  assert.deepEqual(JSON.parse(all.stdout).refused, []);
  assert.deepEqual(JSON.parse(all.stdout).skipped_links, MIRRORED_LINKS);
  assert.match(
    all.stderr,
    /Skipped 2 folder\(s\) whose SKILL\.md is a symlink, never followed \(\.gemini\/skills\/alpha -> \.\.\/\.\.\/\.\.\/skills\/alpha\/SKILL\.md, \.gemini\/skills\/deploy -> /,
  );
  assert.doesNotMatch(all.stderr, /Not installing/);
  assert.deepEqual((await ws.written()).filter((n) => n !== "registry.lock"), [
    "alpha",
    "registry.json",
  ]);

  const named = await ws.cli(["add", repo.url, "--skill", "deploy", "--yes"]);
  assert.equal(named.code, 1);
  assert.match(named.stderr, /SKILL\.md is a symlink \(refused\)/);
});

Deno.test("git hooks never run and submodules are never fetched", async () => {
  await using ws = await workspace();
  const marker = join(ws.dir.path, "hook-ran");
  const config = await hookingGitConfig(ws.dir.path, marker);
  const repo = await submoduleRepo(ws.dir.path, "withsub");
  // Control: plain git with this config does run the hooks.
  await git(ws.dir.path, ["clone", "--quiet", repo.url, join(ws.dir.path, "control")], {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: ws.dir.path,
    GIT_CONFIG_GLOBAL: config,
  });
  assert.equal(await exists(marker), true, "the control clone ran a hook");
  await Deno.remove(marker);

  ok(await ws.cli(["add", repo.url, "--yes"], { GIT_CONFIG_GLOBAL: config }));
  assert.equal(await exists(marker), false, "no hook ran during skills add");
  const vendored = join(ws.home, "withsub", "vendor", "inner");
  assert.equal(await exists(join(vendored, "secret.txt")), false, "submodule not fetched");
  assert.equal(await exists(join(ws.home, "withsub", ".git")), false);
});

Deno.test(
  "killing skills add at random points never leaves entries without files or files without entries",
  { ignore: SKIP_SLOW },
  async () => {
    await using ws = await workspace();
    const names = Array.from({ length: 8 }, (_, i) => `kill-${i}`);
    const repo = await createRepo(ws.dir.path, "r", multiSkillFiles(names));
    // How long one add takes here, to spread the kills over its whole run.
    const started = performance.now();
    ok(await ws.cli(["add", repo.url, "--skill", names[0]!, "--yes"]));
    const full = performance.now() - started;
    const runs = 6;
    let interrupted = 0; // kills that left a staging directory behind
    for (let i = 0; i < runs; i++) {
      const name = names[i + 1]!;
      const child = spawnCli(["add", repo.url, "--skill", name, "--yes"], {
        cwd: ws.dir.path,
        env: ws.env,
        stdout: "null",
        stderr: "null",
      });
      const delay = full * (0.2 + (0.9 * (i + Math.random())) / runs);
      await killAfter(child, delay);
      await sleep(100); // let an orphaned git child finish
      const staged = await Array.fromAsync(Deno.readDir(join(ws.home, ".staging"))).catch(() => []);
      if (staged.length > 0) interrupted++;

      // The next command cleans up; then the home must be consistent.
      ok(await ws.cli(["untrust", names[0]!]));
      const check = JSON.parse((await ws.cli(["check", "home", "--json"])).stdout);
      assert.deepEqual(check.consistency.missing, [], `run ${i}: entry without files`);
      assert.deepEqual(check.consistency.orphans, [], `run ${i}: files without entry`);
      const registry = JSON.parse(await Deno.readTextFile(join(ws.home, "registry.json")));
      const hasEntry = registry.skills.some((s: { name_canonical: string }) =>
        s.name_canonical === name
      );
      assert.equal(hasEntry, await exists(join(ws.home, name)), `run ${i}: ${name}`);
    }
    assert.ok(interrupted >= 1, "at least one kill landed while staging was in use");
    ok(await ws.cli(["add", repo.url, "--skill", names[7]!, "--yes"]));
    const final = JSON.parse((await ws.cli(["check", "home", "--json"])).stdout);
    assert.deepEqual(final.consistency, { missing: [], orphans: [], leftovers: [] });
  },
);

Deno.test(
  "16 concurrent skills add of different skills produce 16 entries",
  { ignore: SKIP_SLOW },
  async () => {
    await using ws = await workspace();
    const names = Array.from({ length: 16 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);
    const repo = await createRepo(ws.dir.path, "r", multiSkillFiles(names));
    const results = await Promise.all(
      names.map((name) => ws.cli(["add", repo.url, "--skill", name, "--yes"])),
    );
    results.forEach(ok);
    const registry = JSON.parse(await Deno.readTextFile(join(ws.home, "registry.json")));
    assert.deepEqual(
      registry.skills.map((s: { name_canonical: string }) => s.name_canonical),
      names,
    );
    const check = JSON.parse((await ws.cli(["check", "--json"])).stdout);
    assert.deepEqual(check.consistency, { missing: [], orphans: [], leftovers: [] });
    assert.deepEqual(check.skills.filter((s: { status: string }) => s.status !== "ok"), []);
  },
);

Deno.test("Ctrl-C during the clone stops git, rolls back and exits 130 with nothing written", async () => {
  await using ws = await workspace();
  const server = await hangingGitServer(ws.dir.path);
  try {
    const child = spawnCli(["add", `${server.origin}/repo.git`, "--yes"], {
      cwd: ws.dir.path,
      env: { ...ws.env, GIT_SSL_CAINFO: server.caFile },
    });
    await waitFor(() => server.requests.length > 0, {
      what: "git to reach the server",
      timeoutMs: 20_000,
    });
    assert.ok(server.requests.length > 0, "git reached the server");
    child.kill("SIGINT");
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 130, stderr);
    assert.match(stderr, /error: Interrupted/);
    assert.deepEqual(await ws.written(), []);
  } finally {
    await server.close();
  }
});

Deno.test("a git clone that stalls hits SKILLS_GIT_TIMEOUT: exit 124 and nothing written", {
  ignore: SKIP_SLOW,
}, async () => {
  await using ws = await workspace();
  const server = await hangingGitServer(ws.dir.path);
  try {
    const r = await ws.cli(["add", `${server.origin}/repo.git`, "--yes"], {
      GIT_SSL_CAINFO: server.caFile,
      SKILLS_GIT_TIMEOUT: "1",
    });
    assert.equal(r.code, 124, r.stderr);
    assert.match(
      r.stderr,
      /error: Cannot install from https:\/\/127\.0\.0\.1:\d+\/repo\.git: git clone timed out after 1s\n/,
    );
    assert.match(r.stderr, /hint: .*SKILLS_GIT_TIMEOUT/);
    assert.deepEqual(await ws.written(), []);
  } finally {
    await server.close();
  }
});
