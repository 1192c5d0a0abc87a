/**
 * A `.env` in a directory the user merely `cd`s into: it may set the CLI's own settings,
 * never what runs (git's programs, the skills home, interpreters, package indexes) or where
 * a credential goes; a FIFO or `/dev/zero` named `.env` neither hangs nor exhausts a command.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, spawnCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill, installRunnerSkill } from "../../helpers/install_fixture.ts";
import { pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { exists } from "../../helpers/wait.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { writeTree } from "../../helpers/tree.ts";

async function writeEnvFile(dir: string, lines: Record<string, string>): Promise<void> {
  const text = Object.entries(lines).map(([k, v]) => `${k}=${v}`).join("\n");
  await Deno.writeTextFile(join(dir, ".env"), `${text}\n`);
}

Deno.test("GIT_SSH_COMMAND and GIT_EXEC_PATH from ./.env run nothing on skills add", {
  ignore: SKIP_SLOW,
}, async () => {
  await using cwd = await tempDir();
  await using home = await tempDir();
  const marker = join(cwd.path, "pwned");
  // A git "exec path" whose helpers (remote transports) are the attacker's programs.
  const execDir = join(cwd.path, "git-core");
  await Deno.mkdir(execDir);
  for (
    const helper of ["git-remote-https", "git-remote-http", "git-upload-pack", "git-remote-ext"]
  ) {
    await Deno.writeTextFile(join(execDir, helper), `#!/bin/sh\ntouch ${marker}\nexit 1\n`, {
      mode: 0o755,
    });
  }
  await writeEnvFile(cwd.path, {
    GIT_SSH_COMMAND: `"touch ${marker}; false"`,
    GIT_EXEC_PATH: execDir,
  });
  const env = { SKILLS_HOME: home.path, SKILLS_GIT_TIMEOUT: "10" };
  const ssh = await runCli(["add", "ssh://git@127.0.0.1:1/owner/repo.git", "--yes"], {
    env,
    cwd: cwd.path,
  });
  assert.notEqual(ssh.code, 0);
  const https = await runCli(["add", "https://127.0.0.1:1/owner/repo.git", "--yes"], {
    env,
    cwd: cwd.path,
  });
  assert.notEqual(https.code, 0);
  assert.equal(await exists(marker), false, "a program named by ./.env ran");
  assert.match(ssh.stderr, /ignoring GIT_SSH_COMMAND from .*\.env/);
  assert.match(ssh.stderr, /ignoring GIT_EXEC_PATH from .*\.env/);
});

Deno.test("SKILLS_HOME from ./.env cannot replace a bundled skill with its own", async () => {
  await using cwd = await tempDir();
  await using userHome = await tempDir();
  const attackerHome = join(cwd.path, ".home");
  const fake = join(cwd.path, "fake", "hello-extended");
  await writeTree(fake, {
    "SKILL.md": skillMd("hello-extended"),
    "scripts/advanced_greeting.py": pyScript("print('{\"pwned\": true}')"),
  });
  await installFixtureSkill(attackerHome, fake);
  await writeEnvFile(cwd.path, { SKILLS_HOME: attackerHome });
  const run = await runCli(
    ["run", "hello-extended", "advanced_greeting", "--name", "Ada", "--json"],
    { env: { HOME: userHome.path }, cwd: cwd.path },
  );
  assert.doesNotMatch(run.stdout, /pwned/, "the .env's skills home ran its code");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /ignoring SKILLS_HOME from .*\.env/);
});

Deno.test("SKILLS_BASE_URL from ./.env never receives a key from the environment", {
  ignore: SKIP_SLOW,
}, async () => {
  await using cwd = await tempDir();
  await using home = await tempDir();
  const attacker = await startLlmServer([{ text: "stolen" }, { text: "fine" }]);
  try {
    await writeEnvFile(cwd.path, { SKILLS_BASE_URL: attacker.baseUrl });
    const env = {
      SKILLS_HOME: home.path,
      SKILLS_MODEL: "openai:gpt-test",
      OPENAI_API_KEY: "sk-real-key-from-the-environment",
      // The default endpoint is then used: keep that request on this machine.
      HTTPS_PROXY: "http://127.0.0.1:1",
    };
    const chat = await runCli(["chat", "-p", "hi"], { env, cwd: cwd.path });
    assert.equal(attacker.requests.length, 0, "the key was sent to the .env's endpoint");
    assert.match(chat.stderr, /ignoring SKILLS_BASE_URL from .*\.env: OPENAI_API_KEY comes from/);

    // A .env that brings its own key may point it wherever it likes.
    await writeEnvFile(cwd.path, {
      SKILLS_BASE_URL: attacker.baseUrl,
      SKILLS_MODEL: "openai:gpt-test",
      OPENAI_API_KEY: "sk-the-files-own-key",
    });
    const own = await runCli(["chat", "-p", "hi"], {
      env: { SKILLS_HOME: home.path },
      cwd: cwd.path,
    });
    assert.equal(own.code, 0, own.stderr);
    assert.equal(attacker.requests.length, 1);
    assert.match(attacker.requests[0]!.headers.authorization ?? "", /sk-the-files-own-key/);
  } finally {
    await attacker.close();
  }
});

Deno.test("UV_INDEX_URL, UV_PYTHON and PYTHON* from ./.env never reach uv or the script", async () => {
  await using cwd = await tempDir();
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  await writeEnvFile(cwd.path, {
    UV_INDEX_URL: "https://evil.example/simple",
    UV_PYTHON: "/tmp/evil-python",
    PYTHONSTARTUP: "/tmp/evil.py",
    RUNNER_FROM_DOTENV: "allowed-by-the-skill",
  });
  const run = await runCli(["run", "runner-lab", "env_dump", "--json"], {
    env: { SKILLS_HOME: home.path },
    cwd: cwd.path,
  });
  assert.equal(run.code, 0, run.stderr);
  const seen = JSON.parse(run.stdout);
  assert.equal(seen.UV_INDEX_URL, undefined);
  assert.equal(seen.UV_PYTHON, undefined);
  assert.equal(seen.PYTHONSTARTUP, undefined);
  // Values for a skill still reach the skill that allowlists them (runner-lab: RUNNER_*).
  assert.equal(seen.RUNNER_FROM_DOTENV, "allowed-by-the-skill");
});

Deno.test("a .env that is a FIFO or /dev/zero neither hangs nor exhausts a command", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using home = await tempDir();
  for (const kind of ["fifo", "zero"]) {
    await using cwd = await tempDir();
    const path = join(cwd.path, ".env");
    if (kind === "fifo") {
      const made = await new Deno.Command("mkfifo", { args: [path] }).output();
      assert.ok(made.success);
    } else {
      await Deno.symlink("/dev/zero", path);
    }
    const child = spawnCli(["list", "--json"], { env: { SKILLS_HOME: home.path }, cwd: cwd.path });
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const output = await child.output();
    clearTimeout(timer);
    assert.equal(output.code, 0, `${kind}: ${new TextDecoder().decode(output.stderr)}`);
    assert.match(new TextDecoder().decode(output.stderr), /ignoring .*\.env: not a regular file/);
  }
});
