/**
 * `skills run` / `skills scripts` end to end: the real CLI with the binary's permission
 * flags (the `compile` task's, `CLI_FLAGS`), against the runner's test skills.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { okJson, runCli, spawnCli, tempDir } from "../../helpers/cli.ts";
import { samplePeakRss, sleeperPids, waitGone } from "../../helpers/processes.ts";
import { realPython } from "../../helpers/python.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { installFixtureSkill, installRunnerSkill } from "../../helpers/install_fixture.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";
import { writeTree } from "../../helpers/tree.ts";
import {
  CALLER_ENV,
  dumpedNames,
  forwardedBase,
  forwardedTrust,
  SET_BY_EVERY_RUN,
} from "../../helpers/script_env.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

/** A temp SKILLS_HOME with runner-lab (trusted) and runner-limited installed. */
async function home(options: { limitedTrusted?: boolean } = {}) {
  const dir = await tempDir();
  await installRunnerSkill(dir.path, "runner-lab");
  await installRunnerSkill(dir.path, "runner-limited", { trusted: options.limitedTrusted ?? true });
  return dir;
}

/** A bin dir with `python3` → the real interpreter, and optionally a recording fake `uv`. */
async function binDir(root: string, withUv: boolean): Promise<string> {
  const bin = join(root, "bin");
  await Deno.mkdir(bin);
  const python = await realPython();
  await Deno.symlink(python, join(bin, "python3"));
  if (withUv) {
    await Deno.writeTextFile(
      join(bin, "uv"),
      `#!${python}
"""Fake uv: records argv and env on stderr (a sandboxed uv can write nowhere the test
reads), then runs the script with python3."""
import json, os, sys
sys.stderr.write("uv-call " + json.dumps({"argv": sys.argv[1:], "env": dict(os.environ)}) + "\\n")
sys.stderr.flush()
assert sys.argv[1:3] == ["run", "--script"], sys.argv
os.execv(${JSON.stringify(python)}, [${JSON.stringify(python)}, *sys.argv[3:]])
`,
    );
    await Deno.chmod(join(bin, "uv"), 0o755);
  }
  return bin;
}

Deno.test("skills run passes the caller's TLS trust to the script, but not a path in the home the sandbox hides", async () => {
  await using dir = await home();
  const bin = await binDir(dir.path, false);
  const callerHome = join(dir.path, "caller");
  const result = await runCli(["run", "runner-lab", "env_dump", "--json"], {
    env: {
      SKILLS_SANDBOX: "off",
      SKILLS_HOME: dir.path,
      PATH: `${bin}:${SYSTEM_PATH}`,
      HOME: callerHome,
      SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt",
      SSL_CERT_DIR: "/etc/ssl/certs:/usr/local/share/ca-certificates",
      NODE_EXTRA_CA_CERTS: join(callerHome, "corp-ca.pem"),
      REQUESTS_CA_BUNDLE: "certs/relative.pem",
    },
  });
  const seen: Record<string, string> = okJson(result);
  assert.equal(seen.SSL_CERT_FILE, "/etc/ssl/certs/ca-certificates.crt");
  assert.equal(seen.SSL_CERT_DIR, "/etc/ssl/certs:/usr/local/share/ca-certificates");
  assert.equal(seen.NODE_EXTRA_CA_CERTS, undefined);
  assert.equal(seen.REQUESTS_CA_BUNDLE, undefined);
});

Deno.test("skills run passes only the base set and allowlisted variables to the script", async () => {
  await using dir = await home();
  const bin = await binDir(dir.path, false);
  const result = await runCli(["run", "runner-lab", "env_dump", "--json"], {
    env: {
      // Policy mode; the sandbox adds its own variables (tests/hardening/sandbox/sandbox_test.ts).
      SKILLS_SANDBOX: "off",
      SKILLS_HOME: dir.path,
      PATH: `${bin}:${SYSTEM_PATH}`,
      ...CALLER_ENV,
      OPENAI_API_KEY: "sk-secret",
      EXTRA_TOKEN: "tok",
      UNRELATED: "x",
    },
  });
  const seen: Record<string, string> = okJson(result);
  assert.deepEqual(
    dumpedNames(seen),
    [
      ...SET_BY_EVERY_RUN,
      ...forwardedTrust(),
      ...forwardedBase(),
      "EXTRA_TOKEN",
      "HOME",
      "LANG",
      "PATH",
      "RUNNER_MODE",
    ].sort(),
  );
  assert.equal(seen.RUNNER_MODE, "fast");
  // The skill root (its verified copy) is importable; the run's own folders are named.
  assert.match(seen.PYTHONPATH!, /\/\.cache\/run\/runner-lab-[0-9a-f]+$/);
  assert.match(seen.SKILLS_WORK_DIR!, /skills-work-/);
  assert.ok(
    !result.stdout.includes(CALLER_ENV.AWS_SECRET_ACCESS_KEY) &&
      !result.stdout.includes("sk-secret"),
  );
});

Deno.test("skills run --env forwards allowlisted names and refuses others", async () => {
  await using dir = await home();
  const env = { SKILLS_HOME: dir.path, OPENAI_API_KEY: "sk-secret" };
  const ok = await runCli(
    ["run", "--env", "RUNNER_X=42", "--env", "TZ=UTC", "runner-lab", "env_dump", "--json"],
    { env },
  );
  assert.equal(ok.code, 0, ok.stderr);
  const seen = JSON.parse(ok.stdout);
  assert.equal(seen.RUNNER_X, "42");
  assert.equal(seen.TZ, "UTC");
  const denied = await runCli(
    ["run", "--env", "OPENAI_API_KEY", "runner-lab", "env_dump", "--json"],
    { env },
  );
  assert.equal(denied.code, 1);
  const body = JSON.parse(denied.stdout);
  assert.equal(body.error, "permission_denied");
  assert.match(body.message, /^Env var 'OPENAI_API_KEY' not in allowlist/);
  assert.match(denied.stderr, /error: Env var 'OPENAI_API_KEY' not in allowlist/);
});

Deno.test("skills run kills the whole process tree on timeout and exits 124", {
  ignore: Deno.build.os !== "linux" || SKIP_SLOW,
}, async () => {
  await using dir = await home();
  const pidFile = join(dir.path, "pids");
  const started = performance.now();
  // The pids are found while the script runs (in the OS sandbox it cannot write pidFile).
  const [result, [grandchild, script]] = await Promise.all([
    runCli(
      ["run", "--timeout", "3", "runner-lab", "sleeper", pidFile, "--json"],
      { env: { SKILLS_HOME: dir.path } },
    ),
    sleeperPids(pidFile),
  ]);
  assert.ok(performance.now() - started < 15_000);
  assert.equal(result.code, 124, result.stderr);
  const body = JSON.parse(result.stdout);
  assert.equal(body.error, "timeout");
  assert.equal(body.message, "Script timed out after 3s\nstderr: grandchild started");
  assert.ok(await waitGone(script!), `script ${script} still running`);
  assert.ok(await waitGone(grandchild!), `grandchild ${grandchild} still running`);
});

Deno.test("skills run also kills a grandchild that left the process group (SCRIPT_TIMEOUT)", {
  ignore: Deno.build.os !== "linux" || SKIP_SLOW,
}, async () => {
  await using dir = await home();
  const pidFile = join(dir.path, "pids");
  const [result, pids] = await Promise.all([
    runCli(["run", "runner-lab", "sleeper", pidFile, "--escape"], {
      env: { SKILLS_HOME: dir.path, SCRIPT_TIMEOUT: "3" },
    }),
    sleeperPids(pidFile),
  ]);
  assert.equal(result.code, 124);
  assert.match(result.stderr, /grandchild started/);
  assert.match(result.stderr, /error: Script 'sleeper' timed out after 3s/);
  assert.match(result.stderr, /hint: Raise the limit with --timeout/);
  assert.equal(result.stdout, "");
  for (const pid of pids) assert.ok(await waitGone(pid), `${pid} still running`);
});

Deno.test("skills run exits 130 and kills the tree on Ctrl-C", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using dir = await home();
  const pidFile = join(dir.path, "pids");
  const child = spawnCli(["run", "runner-lab", "sleeper", pidFile], {
    env: { SKILLS_HOME: dir.path },
  });
  const output = child.output();
  const pids = await sleeperPids(pidFile);
  child.kill("SIGINT");
  const result = await output;
  assert.equal(result.code, 130, new TextDecoder().decode(result.stderr));
  assert.match(new TextDecoder().decode(result.stderr), /error: Interrupted/);
  for (const pid of pids) assert.ok(await waitGone(pid), `${pid} still running`);
});

Deno.test(
  "skills run cuts a 1 GiB stdout at the cap and stops the script",
  { ignore: SKIP_SLOW },
  async () => {
    await using dir = await home();
    const started = performance.now();
    const human = await runCli(["run", "runner-lab", "flood"], { env: { SKILLS_HOME: dir.path } });
    assert.ok(performance.now() - started < 15_000);
    assert.equal(human.code, 1);
    assert.equal(human.stdout.length, 1024 * 1024);
    assert.match(human.stderr, /warning: Output of 'flood' truncated at 1048576 bytes/);

    const json = await runCli(["run", "runner-lab", "flood", "--json"], {
      env: { SKILLS_HOME: dir.path, MAX_SCRIPT_OUTPUT: "65536" },
    });
    assert.equal(json.code, 1);
    const body = JSON.parse(json.stdout);
    assert.equal(body.error, "parse_error");
    assert.match(body.message, /^Script output exceeded 65536 bytes and was truncated/);
    assert.ok(body.message.length < 1000);
  },
);

Deno.test("skills run keeps its own memory bounded while a script prints 1 GiB", {
  ignore: Deno.build.os !== "linux" || SKIP_SLOW,
}, async () => {
  await using dir = await home();
  const child = spawnCli(["run", "runner-lab", "flood"], {
    env: { SKILLS_HOME: dir.path },
    stderr: "null",
  });
  // Count stdout as it arrives instead of keeping it, and sample the CLI's peak RSS.
  let bytes = 0;
  const counted = (async () => {
    for await (const chunk of child.stdout) bytes += chunk.length;
  })();
  const { peakKiB, samples } = await samplePeakRss(child, { everyMs: 10 });
  const status = child.status;
  await counted;
  assert.equal((await status).code, 1);
  assert.equal(bytes, 1024 * 1024);
  assert.ok(samples > 0, "sampled the CLI's memory");
  assert.ok(peakKiB < 150 * 1024, `CLI peak RSS ${Math.round(peakKiB / 1024)} MiB`);
});

Deno.test("skills run refuses 101 arguments with args_too_large and exit 2", async () => {
  await using dir = await home();
  const args = Array.from({ length: 101 }, (_, i) => `a${i}`);
  const json = await runCli(["run", "runner-lab", "echo_args", ...args, "--json"], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(json.code, 2);
  assert.deepEqual(JSON.parse(json.stdout), {
    success: false,
    error: "args_too_large",
    message: "Too many arguments: 101 (max 100)", // the user's arguments, not the mode flag
  });
  const human = await runCli(["run", "runner-lab", "echo_args", ...args], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(human.code, 2);
  assert.equal(human.stdout, "");
  assert.match(human.stderr, /^error: Too many arguments: 101 \(max 100\)$/m);
});

Deno.test("skills run reports non-JSON output in JSON mode as parse_error with both excerpts", async () => {
  await using dir = await home();
  const result = await runCli(["run", "runner-lab", "not_json", "--json"], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(result.code, 1);
  const body = JSON.parse(result.stdout);
  assert.equal(body.error, "parse_error");
  assert.equal(
    body.message,
    "Expected JSON output, got: plain text, not JSON at all\nstderr: note from not_json on stderr",
  );
});

Deno.test("skills run hands a failing script's JSON error and exit code to the caller", async () => {
  await using dir = await home();
  const json = await runCli(["run", "runner-lab", "fail_json", "--json"], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(json.code, 3);
  const body: Json = JSON.parse(json.stdout);
  assert.equal(body.error, "execution_failed");
  assert.deepEqual(body.details, { exit_code: 3, output: { error: "Widget not found: W-1" } });
  assert.match(json.stderr, /error: Script failed with exit code 3: Widget not found: W-1/);
  const human = await runCli(["run", "runner-lab", "fail_json"], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(human.code, 3);
  assert.equal(human.stdout, '{"error": "Widget not found: W-1"}\n');
  assert.match(human.stderr, /looking up widget W-1/);
});

Deno.test("skills run uses `uv run --script` when uv is on PATH", async () => {
  await using dir = await home();
  const bin = await binDir(dir.path, true);
  const result = await runCli(["run", "runner-lab", "needs_deps", "a b", "--json"], {
    env: { SKILLS_HOME: dir.path, PATH: `${bin}:${SYSTEM_PATH}`, OPENAI_API_KEY: "sk-x" },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { ran: true, args: ["a b", "--json"] });
  const calls = result.stderr.split("\n").filter((l) => l.startsWith("uv-call "))
    .map((l) => JSON.parse(l.slice("uv-call ".length)));
  assert.equal(calls.length, 1);
  // The script runs from the verified private copy of the skill (runtime/trust/snapshot.ts).
  const [run, flag, script, ...rest] = calls[0].argv;
  assert.deepEqual([run, flag, ...rest], ["run", "--script", "a b", "--json"]);
  assert.match(
    script,
    /\/\.cache\/run\/runner-lab-[0-9a-f]{32}\/scripts\/needs_deps\.py$/,
  );
  assert.ok(script.startsWith(dir.path));
  assert.equal(calls[0].env.OPENAI_API_KEY, undefined);
  assert.equal(calls[0].env.PATH, `${bin}:${SYSTEM_PATH}`);
});

Deno.test("skills run without uv runs plain scripts with python3 and refuses dependency-declaring ones", async () => {
  await using dir = await home();
  const bin = await binDir(dir.path, false);
  const env = { SKILLS_HOME: dir.path, PATH: `${bin}:${SYSTEM_PATH}` };
  const plain = await runCli(["run", "-v", "runner-lab", "echo_args", "--json"], { env });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stderr, /debug: exec python3 /);
  assert.match(
    plain.stderr,
    /debug: run runner-lab\/echo_args\.py: \d+ ms, exit 0, .* \(python3\)/,
  );
  const deps = await runCli(["run", "runner-lab", "needs_deps", "--json"], { env });
  assert.equal(deps.code, 1);
  const body = JSON.parse(deps.stdout);
  assert.equal(body.error, "dependency_unavailable");
  assert.match(body.message, /uv is not installed/);
  assert.match(deps.stderr, /hint: Install uv/);
});

Deno.test("skills run refuses an untrusted skill and names the command that trusts it", async () => {
  await using dir = await home({ limitedTrusted: false });
  const human = await runCli(["run", "runner-limited", "chatty"], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(human.code, 1);
  assert.match(human.stderr, /error: Skill 'runner-limited' is not trusted/);
  assert.match(human.stderr, /hint: .*skills trust runner-limited/);
  const json = await runCli(["run", "runner-limited", "chatty", "--json"], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stdout).error, "untrusted");
});

Deno.test("skills run reports bad names: invalid_name exits 2, unknown script exits 1", async () => {
  await using dir = await home();
  const invalid = await runCli(["run", "../etc", "status", "--json"], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(invalid.code, 2);
  const body = JSON.parse(invalid.stdout);
  assert.equal(body.error, "invalid_name");
  assert.match(body.message, /^Invalid skill name: '\.\.\/etc'/);
  const missing = await runCli(["run", "kalshi-markets", "xyz"], {
    env: { SKILLS_HOME: dir.path },
  });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /error: Script 'xyz' not found in skill 'kalshi-markets'/);
  assert.match(
    missing.stderr,
    /hint: Its scripts: event, events, market, markets, orderbook, search, series, series_list, status, trades\. Run `skills scripts kalshi-markets`/,
  );
  const usage = await runCli(["run", "kalshi-markets"], { env: { SKILLS_HOME: dir.path } });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /error: Missing script name/);
});

Deno.test("skills run --help after the script shows the script's help", async () => {
  await using dir = await home();
  const env = { SKILLS_HOME: dir.path };
  const own = await runCli(["run", "--help"], { env });
  assert.equal(own.code, 0);
  assert.match(own.stdout, /^Usage: skills run \[options\] <skill> <script>/);
  const script = await runCli(["run", "runner-lab", "echo_args", "--help"], { env });
  assert.equal(script.code, 0);
  assert.match(script.stdout, /^usage: echo_args\.py/);
  const json = await runCli(["run", "hello-extended", "advanced_greeting", "--help", "--json"], {
    env,
  });
  assert.equal(json.code, 0, json.stderr);
  const body = JSON.parse(json.stdout);
  assert.match(body.usage, /^usage: advanced_greeting\.py/);
  assert.match(body.help_text, /--style/);
});

Deno.test("skills scripts lists scripts per skill, as a table or JSON", async () => {
  await using dir = await home();
  const env = { SKILLS_HOME: dir.path };
  const json = await runCli(["scripts", "Runner_Limited", "--json"], { env });
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), {
    "runner-limited": [
      {
        name: "chatty",
        path: join(dir.path, "runner-limited", "scripts", "chatty.py"),
        interpreter: "python",
      },
      {
        name: "slow",
        path: join(dir.path, "runner-limited", "scripts", "slow.py"),
        interpreter: "python",
      },
    ],
  });
  const all = await runCli(["scripts"], { env });
  assert.equal(all.code, 0);
  assert.match(all.stdout, /^SKILL\s+SCRIPT\s+RUNS WITH\s+PATH$/m);
  assert.match(all.stdout, /^kalshi-markets\s+status\s+python\s+\/.*status\.py$/m);
  assert.match(all.stdout, /^runner-lab\s+env_dump\s+/m);
  assert.match(all.stderr, /Found \d+ scripts across 4 skills/);
  const unknown = await runCli(["scripts", "nope"], { env });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /error: Skill 'nope' not loaded or installed/);
  const invalid = await runCli(["scripts", "../x"], { env });
  assert.equal(invalid.code, 2);
});

Deno.test("skills run names a missing Python module and how to provide it", async () => {
  await using dir = await home();
  const env = { SKILLS_HOME: dir.path };
  const text = await runCli(["run", "runner-lab", "imports_missing"], { env });
  assert.equal(text.code, 1);
  assert.match(text.stderr, /ModuleNotFoundError/, "the script's own traceback is passed through");
  assert.match(
    text.stderr,
    /^hint: The script needs the Python module 'skills_fixture_absent', which is not installed for the python3 that runs it\. Install uv .*python3 -m pip install/m,
  );

  const json = await runCli(["run", "runner-lab", "imports_missing", "--json"], { env });
  assert.equal(json.code, 1);
  const body = JSON.parse(json.stdout);
  assert.equal(body.error, "execution_failed");
  assert.match(body.details.hint, /Python module 'skills_fixture_absent'/);
  assert.match(json.stderr, /^hint: The script needs the Python module 'skills_fixture_absent'/m);
});

/**
 * Installs a skill named `name` made of `files` (SKILL.md written from `description`) into a
 * fresh home, and runs its `script` with `--json` from there.
 */
async function runNewSkill(
  dir: string,
  name: string,
  description: string,
  files: Record<string, string>,
  script: string,
) {
  const source = join(dir, "src", name);
  const skillMd = `---\nname: ${name}\ndescription: ${description}\n---\n\nRun its scripts.\n`;
  await writeTree(source, { "SKILL.md": skillMd, ...files });
  await installFixtureSkill(dir, source);
  return await runCli(["run", name, script, "--json"], { env: { SKILLS_HOME: dir }, cwd: dir });
}

Deno.test("skills run names the npm package a Node script could not import, above Node's stack", async () => {
  await using dir = await tempDir();
  // What mrgoonie's chrome-devtools ships: a package.json, and no node_modules.
  const result = await runNewSkill(dir.path, "browser-kit", "Clicks through pages.", {
    "scripts/package.json":
      '{"type": "module", "dependencies": {"skills-fixture-absent-npm": "^1"}}\n',
    "scripts/click.mjs": 'import "skills-fixture-absent-npm";\nconsole.log("clicked");\n',
  }, "click");
  assert.equal(result.code, 1, result.stderr);
  const body = JSON.parse(result.stdout);
  // Node names the package above a dozen lines of stack, past the message's stderr excerpt:
  // the hint reads further back.
  assert.doesNotMatch(body.message, /Cannot find package/, "Node's stack grew shorter");
  assert.match(
    body.details.hint,
    /npm package 'skills-fixture-absent-npm'.*installs no npm packages/,
  );
});

Deno.test("skills run runs a TypeScript script that imports its sibling module as ./x.js, as Node's TypeScript does", async () => {
  await using dir = await tempDir();
  // mrgoonie's mcp-management: cli.ts imports './mcp-client.js', compiled or run by tsx.
  const result = await runNewSkill(dir.path, "ts-kit", "Lists things with a TypeScript CLI.", {
    "scripts/cli.ts":
      'import { count } from "./client.js";\nconsole.log(JSON.stringify({ count: count() }));\n',
    "scripts/client.ts": "export function count(): number {\n  return 3;\n}\n",
  }, "cli");
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(okJson(result), { count: 3 });
});

Deno.test(
  "skills run names a program a script could not start, and the home the sandbox hides it in",
  needsSandbox,
  async () => {
    await using dir = await home();
    const bin = await binDir(dir.path, false);
    const source = join(dir.path, "src", "tool-caller");
    await writeTree(source, {
      "SKILL.md": "---\nname: tool-caller\ndescription: Runs a command-line tool.\n---\n# Tools\n",
      "scripts/call.py":
        "import subprocess, sys\nsubprocess.run([sys.argv[1], '--version'], check=True)\n",
    });
    await installFixtureSkill(dir.path, source);
    // A tool installed for the user alone, as `pipx` or `gh`'s installer put them.
    const userHome = join(dir.path, "user");
    const userBin = join(userHome, ".local", "bin");
    await writeTree(userBin, { "skills-fixture-tool": "#!/bin/sh\necho 1.0\n" });
    await Deno.chmod(join(userBin, "skills-fixture-tool"), 0o755);
    const env = (sandbox: string) => ({
      SKILLS_HOME: dir.path,
      HOME: userHome,
      PATH: `${userBin}:${bin}:${SYSTEM_PATH}`,
      SKILLS_SANDBOX: sandbox,
    });

    const absent = await runCli(["run", "tool-caller", "call", "skills-fixture-absent"], {
      env: env("required"),
    });
    assert.equal(absent.code, 1);
    assert.match(
      absent.stderr,
      /FileNotFoundError/,
      "the script's own traceback is passed through",
    );
    assert.match(
      absent.stderr,
      /^hint: The script runs `skills-fixture-absent`, which is not installed on this machine/m,
    );
    const hidden = await runCli(["run", "tool-caller", "call", "skills-fixture-tool", "--json"], {
      env: env("required"),
    });
    assert.equal(hidden.code, 1);
    assert.match(
      JSON.parse(hidden.stdout).details.hint,
      new RegExp(
        `^The script runs \`skills-fixture-tool\`, which is installed at ${userBin}/skills-fixture-tool: inside a folder the sandbox hides`,
      ),
    );
    // Without the sandbox the same tool is there to run.
    const policy = await runCli(["run", "tool-caller", "call", "skills-fixture-tool"], {
      env: env("off"),
    });
    assert.equal(policy.code, 0, policy.stderr);
    assert.match(policy.stdout, /1\.0/);
  },
);

Deno.test("skills run and script_run count the same 100 arguments: --json is not one of them", async () => {
  await using dir = await home();
  const env = { SKILLS_HOME: dir.path };
  const args = Array.from({ length: 100 }, (_, i) => `a${i}`);
  const cli = await runCli(["run", "runner-lab", "echo_args", ...args, "--json"], { env });
  assert.equal(cli.code, 0, cli.stdout + cli.stderr);
  assert.equal(JSON.parse(cli.stdout).args.length, 101, "100 arguments and --json reach it");
});

Deno.test("skills run --timeout 0 is refused with a range that does not include 0", async () => {
  const result = await runCli(["run", "--timeout", "0", "runner-lab", "echo_args"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Invalid --timeout '0': expected a number of seconds above 0/);
  assert.doesNotMatch(result.stderr, /between 0 and/);
});

Deno.test(
  "a timeout in the sandbox with no host granted says the script had no network, and how to grant one",
  needsSandbox,
  async () => {
    await using dir = await home();
    const source = join(dir.path, "src", "fetcher");
    await writeTree(source, {
      "SKILL.md": "---\nname: fetcher\ndescription: Waits on a registry.\n---\n# Fetcher\n",
      // npm and pip retry a name that does not resolve for minutes: a wait, not a failure.
      "scripts/wait.py": "import time\ntime.sleep(30)\n",
    });
    await installFixtureSkill(dir.path, source);
    const env = { SKILLS_HOME: dir.path, SKILLS_SANDBOX: "required" };
    const offline = await runCli(["run", "--timeout", "1", "fetcher", "wait"], { env });
    assert.equal(offline.code, 124, offline.stderr);
    assert.match(
      offline.stderr,
      /hint: Raise the limit with --timeout S \(before the skill's name\) or SCRIPT_TIMEOUT\. 'fetcher' declares no network access, so the sandbox gave this run none: a script that waits on a download or an API times out here\. If it should reach a host, run it with --allow-net HOST/,
    );
    const granted = await runCli(
      ["run", "--timeout", "1", "--allow-net", "registry.example.net", "fetcher", "wait"],
      { env },
    );
    assert.equal(granted.code, 124, granted.stderr);
    assert.match(granted.stderr, /hint: Raise the limit with --timeout S/);
    assert.doesNotMatch(granted.stderr, /declares no network access/);
  },
);
