/**
 * The OS sandbox (bubblewrap) against a hostile skill: what a script can read and write.
 * Every test here passes only inside the sandbox; in policy mode (SKILLS_SANDBOX=off, or
 * `main` before it) each attempt below succeeds. Needs bubblewrap (.ci/run installs it).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { okJson, runCli } from "../../helpers/cli.ts";
import {
  CALLER_ENV,
  dumpedNames,
  forwardedTrust,
  SET_BY_EVERY_RUN,
} from "../../helpers/script_env.ts";
import {
  DOTENV_SECRET,
  ENV_SECRET,
  labTest,
  pythonOnlyBin,
  SSH_SECRET,
} from "./sandbox_helpers.ts";

labTest(
  "a sandboxed script cannot read ~/.ssh, another skill, the registry or the CLI's secrets",
  async (lab) => {
    const ops = [
      `read:${join(lab.userHome, ".ssh", "id_test")}`,
      `read:${join(lab.otherDir, "SKILL.md")}`,
      `read:${join(lab.home, "registry.json")}`,
      `proc:${ENV_SECRET}`,
      `proc:${DOTENV_SECRET}`,
      `read:${join(lab.callerDir, ".env")}`,
    ];
    const seen = await lab.attempt(ops);
    for (const op of ops) {
      const { ok, detail } = seen[op]!;
      const leaked = detail.includes(SSH_SECRET) || detail.includes(ENV_SECRET) ||
        detail.includes(DOTENV_SECRET) || detail.includes("Test scripts for the script runner");
      assert.ok(!leaked, `${op} leaked: ${detail}`);
      if (!op.endsWith("/.env")) assert.equal(ok, false, `${op}: ${detail}`);
    }
    // The caller's .env is masked (an empty file), the rest of the directory is readable.
    const caller = await lab.attempt([
      `read:${join(lab.callerDir, "data.txt")}`,
      "env:SKILLS_CALLER_DIR",
    ]);
    assert.deepEqual(caller[`read:${join(lab.callerDir, "data.txt")}`], {
      ok: true,
      detail: "the user's data\n",
    });
    assert.equal(caller["env:SKILLS_CALLER_DIR"]!.detail, await Deno.realPath(lab.callerDir));
  },
);

labTest("a sandboxed script sees only its own processes and its own skill", async (lab) => {
  // It runs from the verified copy of its skill (trust/snapshot.ts): its own files are
  // where its scripts are (SKILLS_SKILL_DIR), the installed folder is hidden like every
  // other skill.
  const seen = await lab.attempt([
    "read:$SKILLS_SKILL_DIR/SKILL.md",
    `read:${join(lab.labDir, "SKILL.md")}`,
    "read:/proc/1/environ",
    "env:HOME",
    "env:OPENAI_API_KEY",
  ]);
  assert.equal(seen["read:$SKILLS_SKILL_DIR/SKILL.md"]!.ok, true, "its own files are readable");
  assert.equal(
    seen[`read:${join(lab.labDir, "SKILL.md")}`]!.ok,
    false,
    "the installed folder is not",
  );
  assert.ok(!seen["read:/proc/1/environ"]!.detail.includes(ENV_SECRET));
  assert.notEqual(seen["env:HOME"]!.detail, lab.userHome, "HOME is the work folder");
  assert.equal(seen["env:OPENAI_API_KEY"]!.ok, false);
});

labTest(
  "a sandboxed script writes only to its work folder and a private /tmp (workspace read-only)",
  async (lab) => {
    // The workspace (callerDir) is writable by default: tests/hardening/workspace/workspace_test.ts.
    const targets = {
      outside: join(lab.outside, "planted"),
      home: join(lab.userHome, "planted"),
      skillsHome: join(lab.home, "planted"),
      ownSkill: join(lab.labDir, "planted"),
      callerDir: join(lab.callerDir, "planted"),
    };
    const tmpName = `/tmp/skills-sbx-private-${crypto.randomUUID()}`;
    const ops = [...Object.values(targets).map((p) => `write:${p}`), `write:${tmpName}`];
    const seen = await lab.attempt(ops, { SKILLS_READ_ONLY: "1" });
    for (const [where, path] of Object.entries(targets)) {
      assert.equal(
        seen[`write:${path}`]!.ok,
        false,
        `wrote into ${where}: ${seen[`write:${path}`]!.detail}`,
      );
      await assert.rejects(Deno.lstat(path), Deno.errors.NotFound, `${where} holds a planted file`);
    }
    assert.equal(seen[`write:${tmpName}`]!.ok, true, "its /tmp is writable");
    await assert.rejects(Deno.lstat(tmpName), Deno.errors.NotFound, "and private");
  },
);

labTest(
  "the work folder is HOME, TMPDIR and SKILLS_WORK_DIR: writable, fresh, removed",
  async (lab) => {
    const ops = ["env:HOME", "env:TMPDIR", "env:SKILLS_WORK_DIR", "write:~/out.txt"];
    const first = await lab.attempt(ops);
    const work = first["env:SKILLS_WORK_DIR"]!.detail;
    assert.equal(first["env:HOME"]!.detail, work);
    assert.equal(first["env:TMPDIR"]!.detail, work);
    assert.deepEqual(first["write:~/out.txt"], { ok: true, detail: `wrote ${work}/out.txt` });
    await assert.rejects(Deno.lstat(work), Deno.errors.NotFound, "removed after the run");
    const second = await lab.attempt(ops);
    assert.notEqual(second["env:SKILLS_WORK_DIR"]!.detail, work, "a fresh folder per run");
  },
);

labTest(
  "SKILLS_SANDBOX=required refuses to run without bubblewrap; auto warns and runs",
  async (lab) => {
    // A PATH with python3 but no bwrap.
    const bin = await pythonOnlyBin(lab.outside);
    const refused = await lab.run(["sandbox-lab", "attempt", "env:HOME"], {
      PATH: bin,
      SKILLS_SANDBOX: "required",
    });
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stdout, "");
    assert.match(
      refused.stderr,
      /SKILLS_SANDBOX=required and bubblewrap \(bwrap\) is not installed/,
    );
    assert.match(refused.stderr, /hint: Install bubblewrap/);

    const fallback = await lab.run(["sandbox-lab", "attempt", "env:HOME", "--json"], { PATH: bin });
    assert.equal(fallback.code, 0, fallback.stderr);
    assert.match(fallback.stderr, /warning: .*not installed.*policy mode/);
    assert.equal(JSON.parse(fallback.stdout)["env:HOME"].detail, lab.userHome, "policy mode");
  },
);

labTest("skills check says which sandbox is in force and why", async (lab) => {
  const env = { SKILLS_HOME: lab.home };
  const on = await runCli(["check", "--json"], { env });
  assert.deepEqual(
    { mode: JSON.parse(on.stdout).sandbox.mode, setting: JSON.parse(on.stdout).sandbox.setting },
    { mode: "bwrap", setting: "auto" },
  );
  // The workspace's overlay engine in force: the kernel's as root, fuse-overlayfs otherwise.
  const engine = Deno.uid() === 0 ? "overlay" : "fuse-overlayfs";
  assert.equal(JSON.parse(on.stdout).sandbox.overlay.engine, engine);
  const human = await runCli(["check"], { env });
  assert.match(
    human.stdout,
    /Sandbox:\n {2}✓ OS sandbox \(SKILLS_SANDBOX=auto\): bubblewrap \d+\.\d+.*\n {2}✓ workspace overlay: /,
  );
  const off = await runCli(["check", "--json"], { env: { ...env, SKILLS_SANDBOX: "off" } });
  const { missing: _missing, ...offSandbox } = JSON.parse(off.stdout).sandbox;
  assert.deepEqual(offSandbox, {
    mode: "policy",
    setting: "off",
    reason: "SKILLS_SANDBOX=off",
  });
  const required = await runCli(["check"], {
    env: { ...env, SKILLS_SANDBOX: "required", PATH: lab.outside },
  });
  assert.equal(required.code, 1, "scripts cannot run: unhealthy");
  assert.match(required.stdout, /✗ no OS sandbox and SKILLS_SANDBOX=required: scripts are refused/);
  const bad = await runCli(["run", "sandbox-lab", "attempt"], {
    env: { ...env, SKILLS_SANDBOX: "sometimes" },
  });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Invalid SKILLS_SANDBOX 'sometimes': expected auto, required or off/);
});

labTest(
  "a sandboxed script's environment: the base set, its allowlist and the sandbox's own",
  async (lab) => {
    const result = await lab.run(["runner-lab", "env_dump", "--json"], {
      // The real interpreter: a version manager's shim would add variables of its own.
      PATH: `${await pythonOnlyBin(lab.outside)}:/usr/bin:/bin`,
      ...CALLER_ENV,
      HTTPS_PROXY: "http://127.0.0.1:9",
    });
    const seen: Record<string, string> = okJson(result);
    const alsoSet = ["HOME", "LANG", "PATH", "PWD", "RUNNER_MODE", "TMPDIR", "XDG_CACHE_HOME"];
    assert.deepEqual(
      dumpedNames(seen),
      [...SET_BY_EVERY_RUN, ...forwardedTrust(), ...alsoSet].sort(),
    );
    assert.equal(seen.HOME, seen.SKILLS_WORK_DIR);
    assert.ok(
      !result.stdout.includes(CALLER_ENV.AWS_SECRET_ACCESS_KEY) &&
        !result.stdout.includes(ENV_SECRET),
    );
  },
);

labTest("a symlinked .env in the caller's directory is masked where it points", async (lab) => {
  await Deno.remove(join(lab.callerDir, ".env"));
  await Deno.mkdir(join(lab.callerDir, "config"));
  await Deno.writeTextFile(join(lab.callerDir, "config", "secrets"), `KEY=${DOTENV_SECRET}\n`);
  await Deno.symlink("config/secrets", join(lab.callerDir, ".env"));
  await Deno.writeTextFile(join(lab.userHome, "env"), `KEY=${DOTENV_SECRET}\n`);
  await Deno.symlink(join(lab.userHome, "env"), join(lab.callerDir, ".env.local"));
  await Deno.symlink("/nonexistent/env", join(lab.callerDir, ".env.dangling"));
  const ops = [
    `read:${join(lab.callerDir, ".env")}`,
    `read:${join(lab.callerDir, "config", "secrets")}`,
    `read:${join(lab.callerDir, ".env.local")}`,
  ];
  const seen = await lab.attempt(ops);
  for (const op of ops) {
    assert.ok(!seen[op]!.detail.includes(DOTENV_SECRET), `${op}: ${seen[op]!.detail}`);
  }
});

labTest(
  "a skill's cache folder (XDG_CACHE_HOME) is kept between its runs and is its own",
  async (lab) => {
    const first = await lab.attempt(["env:XDG_CACHE_HOME"]);
    const cache = first["env:XDG_CACHE_HOME"]!.detail;
    // Named by the skill and keyed by who it is (scope, folder, source): see
    // tests/hardening/workspace/workspace_test.ts for two skills of one name.
    assert.match(
      cache,
      new RegExp(`^${await Deno.realPath(lab.home)}/\\.cache/skills/sandbox-lab-[0-9a-f]{16}$`),
    );
    const file = join(cache, "kept.txt");
    assert.equal((await lab.attempt([`write:${file}`]))[`write:${file}`]!.ok, true);
    assert.equal(
      (await lab.attempt([`read:${file}`]))[`read:${file}`]!.detail,
      "written by a skill\n",
    );
    // Another skill sees neither that folder nor its file.
    const other = await lab.run(["runner-lab", "env_dump", "--json"]);
    assert.equal(other.code, 0, other.stderr);
    assert.match(
      JSON.parse(other.stdout).XDG_CACHE_HOME,
      new RegExp(`^${await Deno.realPath(lab.home)}/\\.cache/skills/runner-lab-[0-9a-f]{16}$`),
    );
  },
);

labTest(
  "a sandboxed script cannot read another installed skill that lives elsewhere, even one that fails to load",
  async (lab) => {
    // runner-lab's folder in the home becomes a link to a folder of the workspace (where
    // the script may otherwise read), and its manifest no longer loads: a run reads
    // neither it nor any other skill it does not name, yet must hide them all.
    const vendored = join(lab.callerDir, "vendored-skill");
    await Deno.rename(lab.otherDir, vendored);
    await Deno.symlink(vendored, lab.otherDir);
    await Deno.chmod(vendored, 0o755);
    const manifest = join(vendored, "SKILL.md");
    await Deno.writeTextFile(manifest, "---\nname: [not a name\n---\nRunner lab's own words.\n");
    await Deno.chmod(manifest, 0o644);
    await Deno.writeTextFile(join(lab.callerDir, "plain.txt"), "a plain file\n");
    await Deno.chmod(join(lab.callerDir, "plain.txt"), 0o644);

    const ops = [`read:${manifest}`, `read:${join(lab.callerDir, "plain.txt")}`];
    const seen = await lab.attempt(ops);
    assert.equal(seen[ops[1]!]!.detail, "a plain file\n", "the workspace beside it is readable");
    assert.equal(seen[ops[0]!]!.ok, false, `the other skill's folder: ${seen[ops[0]!]!.detail}`);
    assert.ok(!seen[ops[0]!]!.detail.includes("Runner lab's own words"));
  },
);
