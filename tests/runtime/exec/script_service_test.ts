import assert from "node:assert/strict";
import { join } from "node:path";
import type { Envelope, FailureEnvelope } from "../../../src/core/envelope.ts";
import { type Catalog, loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import {
  type ScriptDeps,
  scriptHelp,
  scriptList,
  scriptRun,
  usageLine,
} from "../../../src/runtime/exec/script_service.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill, installRunnerSkill } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";

interface Fixture extends AsyncDisposable {
  home: string;
  catalog: Catalog;
  deps: ScriptDeps;
}

async function fixture(options: { untrusted?: boolean } = {}): Promise<Fixture> {
  const dir = await tempDir();
  await installRunnerSkill(dir.path, "runner-lab");
  await installRunnerSkill(dir.path, "runner-limited", { trusted: !options.untrusted });
  const catalog = await loadCatalog(dir.path);
  return {
    home: dir.path,
    catalog,
    deps: { home: dir.path, env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" } },
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

function failure(envelope: Envelope): FailureEnvelope {
  assert.equal(envelope.success, false, JSON.stringify(envelope));
  return envelope as FailureEnvelope;
}

Deno.test("scriptList() maps every skill with scripts to its scripts", async () => {
  await using f = await fixture();
  const all = scriptList(f.catalog);
  assert.ok(all.success);
  assert.deepEqual(Object.keys(all.result).sort(), [
    "hello-extended",
    "kalshi-markets",
    "runner-lab",
    "runner-limited",
  ]);
  assert.equal(all.result["kalshi-markets"]?.length, 10);
  assert.deepEqual(all.result["runner-limited"], [
    {
      name: "chatty",
      path: join(f.home, "runner-limited", "scripts", "chatty.py"),
      interpreter: "python",
    },
    {
      name: "slow",
      path: join(f.home, "runner-limited", "scripts", "slow.py"),
      interpreter: "python",
    },
  ]);
  const total = Object.values(all.result).reduce((n, s) => n + s.length, 0);
  assert.equal(all.message, `Found ${total} scripts across 4 skills`);

  const one = scriptList(f.catalog, "Kalshi_Markets");
  assert.ok(one.success);
  assert.deepEqual(Object.keys(one.result), ["kalshi-markets"]);
  assert.equal(one.message, "Found 10 scripts in kalshi-markets");
});

Deno.test("scriptList() and scriptRun() report unknown and invalid names", async () => {
  await using f = await fixture();
  const unknown = failure(scriptList(f.catalog, "unknown-skill"));
  assert.equal(unknown.error, "not_found");
  assert.match(unknown.message, /^Skill 'unknown-skill' not loaded or installed/);
  const badSkill = failure(await scriptRun(f.catalog, "../etc", "status", [], true, f.deps));
  assert.equal(badSkill.error, "invalid_name");
  assert.match(badSkill.message, /^Invalid skill name: '\.\.\/etc'/);
  const badScript = failure(
    await scriptRun(f.catalog, "kalshi-markets", "../../x", [], true, f.deps),
  );
  assert.equal(badScript.error, "invalid_name");
  const missing = failure(await scriptRun(f.catalog, "kalshi-markets", "xyz", [], true, f.deps));
  assert.equal(missing.error, "not_found");
  assert.match(missing.message, /^Script 'xyz' not found in skill 'kalshi-markets'/);
});

Deno.test("a script not found names the skill's scripts: the first twelve, and how many more", async () => {
  await using f = await fixture();
  // The hint follows the message, on its own line, as the agents' tools return it.
  const hintOf = async (catalog: Catalog, skill: string) =>
    failure(await scriptRun(catalog, skill, "nope", [], true, f.deps)).message.split("\n")[1];
  assert.match(
    String(await hintOf(f.catalog, "runner-lab")),
    /^Its scripts: bad_utf8, chatter, .*, sleeper, stream\. Run `skills scripts runner-lab`/,
  );
  const many = join(f.home, "src", "many-tools");
  await writeTree(many, {
    "SKILL.md": "---\nname: many-tools\ndescription: Many tools.\n---\n# Many\n",
    ...Object.fromEntries(
      Array.from({ length: 14 }, (_, i) => [`scripts/t${String(i).padStart(2, "0")}.py`, ""]),
    ),
  });
  const none = join(f.home, "src", "no-tools");
  await writeTree(none, { "SKILL.md": "---\nname: no-tools\ndescription: None.\n---\n# None\n" });
  await installFixtureSkill(f.home, many);
  await installFixtureSkill(f.home, none);
  const catalog = await loadCatalog(f.home);
  assert.match(
    String(await hintOf(catalog, "many-tools")),
    /^Its scripts: t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, t10, t11 and 2 more\. Run/,
  );
  assert.match(String(await hintOf(catalog, "no-tools")), /^It has no scripts under scripts\/\./);
});

Deno.test("scriptRun() returns the parsed JSON and resolves name variants", async () => {
  await using f = await fixture();
  const run = await scriptRun(f.catalog, "Runner_Lab", "Echo_Args.py", ["x"], true, f.deps);
  // Scripts run from the verified private copy of the skill (runtime/trust/snapshot.ts).
  const copy = await Array.fromAsync(Deno.readDir(join(f.home, ".cache", "run")));
  const dir = copy.find((e) => e.isDirectory && /^runner-lab-[0-9a-f]{32}$/.test(e.name));
  assert.ok(dir, "the verified copy exists");
  const cwd = join(f.home, ".cache", "run", dir.name, "scripts");
  // Without a workspace the script starts in its own (read-only) folder.
  // A run that changed nothing and reached nothing carries no receipt to the model.
  assert.deepEqual(run, {
    success: true,
    result: { args: ["x", "--json"], cwd },
    message: "Executed echo_args script",
  });
  const text = await scriptRun(f.catalog, "runner-lab", "echo_args", null, false, f.deps);
  assert.ok(text.success);
  assert.equal(text.result, `args: \ncwd: ${cwd}\n`);
});

Deno.test("scriptRun() refuses 101 arguments with args_too_large", async () => {
  await using f = await fixture();
  const env = failure(
    await scriptRun(f.catalog, "runner-lab", "echo_args", Array(150).fill("a"), true, f.deps),
  );
  assert.deepEqual(env, {
    success: false,
    error: "args_too_large",
    message: "Too many arguments: 150 (max 100)",
  });
  const bad = failure(
    await scriptRun(f.catalog, "runner-lab", "echo_args", [1 as unknown as string], true, f.deps),
  );
  assert.equal(bad.error, "usage");
});

Deno.test("scriptRun() accepts exactly 100 arguments in JSON mode, like skills run", async () => {
  await using f = await fixture();
  const args = Array.from({ length: 100 }, (_, i) => `a${i}`);
  const envelope = await scriptRun(f.catalog, "runner-lab", "echo_args", args, true, f.deps);
  assert.ok(envelope.success, JSON.stringify(envelope));
  assert.equal((envelope.result as { args: string[] }).args.length, 101);
});

Deno.test("scriptRun() reports non-JSON output as parse_error with both excerpts", async () => {
  await using f = await fixture();
  const env = failure(await scriptRun(f.catalog, "runner-lab", "not_json", [], true, f.deps));
  assert.equal(env.error, "parse_error");
  assert.equal(
    env.message,
    "Expected JSON output, got: plain text, not JSON at all\nstderr: note from not_json on stderr",
  );
});

Deno.test("scriptRun() hands a failing script's JSON error to the caller", async () => {
  await using f = await fixture();
  const env = failure(await scriptRun(f.catalog, "runner-lab", "fail_json", [], true, f.deps));
  assert.equal(env.error, "execution_failed");
  assert.equal(
    env.message,
    'Script failed with exit code 3\noutput: {"error":"Widget not found: W-1"}\nstderr: looking up widget W-1 ... failed',
  );
  assert.deepEqual(env.details, { exit_code: 3, output: { error: "Widget not found: W-1" } });
});

Deno.test("scriptRun() applies the manifest's limits: timeout and output cap", {
  ignore: SKIP_SLOW,
}, async () => {
  await using f = await fixture();
  const slow = failure(await scriptRun(f.catalog, "runner-limited", "slow", [], true, f.deps));
  assert.equal(slow.error, "timeout");
  assert.equal(slow.message, "Script timed out after 1s");
  const chatty = await scriptRun(f.catalog, "runner-limited", "chatty", [], false, f.deps);
  assert.ok(chatty.success);
  assert.equal(chatty.result, "y".repeat(4096));
  assert.equal(chatty.message, "Executed chatty script (output truncated at 4096 bytes)");
  const override = await scriptRun(f.catalog, "runner-limited", "chatty", [], false, {
    ...f.deps,
    env: { ...f.deps.env, MAX_SCRIPT_OUTPUT: "20000" },
  });
  assert.ok(override.success);
  assert.equal(override.result, "y".repeat(10240));
});

Deno.test("scriptRun() times out with the stderr tail: 'Script timed out after Ns'", {
  ignore: SKIP_SLOW,
}, async () => {
  await using f = await fixture();
  const env = failure(
    await scriptRun(f.catalog, "runner-lab", "sleeper", [join(f.home, "pids")], true, {
      ...f.deps,
      timeoutSeconds: 2,
    }),
  );
  assert.equal(env.error, "timeout");
  assert.equal(env.message, "Script timed out after 2s\nstderr: grandchild started");
});

Deno.test(
  "scriptRun() after a timeout in the sandbox with no host granted: the details say the run had no network",
  needsSandbox,
  async () => {
    await using f = await fixture();
    const sandboxed = { ...f.deps, env: { ...f.deps.env, SKILLS_SANDBOX: "required" } };
    const slow = failure(await scriptRun(f.catalog, "runner-limited", "slow", [], true, sandboxed));
    assert.equal(slow.error, "timeout");
    assert.equal(slow.message, "Script timed out after 1s");
    assert.match(
      String(slow.details?.hint),
      /^'runner-limited' declares no network access, so the sandbox gave this run none: a script that waits on a download or an API times out here\./,
    );
    // In policy mode the script had the machine's network: no such note.
    const policy = { ...f.deps, env: { ...f.deps.env, SKILLS_SANDBOX: "off" } };
    const open = failure(await scriptRun(f.catalog, "runner-limited", "slow", [], true, policy));
    assert.equal(open.details?.hint, undefined);
  },
);

Deno.test("scriptRun() refuses env requests outside the allowlist: permission_denied", async () => {
  await using f = await fixture();
  const denied = failure(
    await scriptRun(f.catalog, "runner-lab", "env_dump", [], true, {
      ...f.deps,
      extraEnv: ["SECRET_KEY"],
    }),
  );
  assert.equal(denied.error, "permission_denied");
  assert.match(denied.message, /^Env var 'SECRET_KEY' not in allowlist/);
  const allowed = await scriptRun(f.catalog, "runner-lab", "env_dump", [], true, {
    ...f.deps,
    env: { ...f.deps.env, OPENAI_API_KEY: "sk-x", RUNNER_MODE: "fast" },
    extraEnv: ["EXTRA_TOKEN=abc"],
  });
  assert.ok(allowed.success);
  const seen = allowed.result as Record<string, string>;
  assert.equal(seen.EXTRA_TOKEN, "abc");
  assert.equal(seen.RUNNER_MODE, "fast");
  assert.equal(seen.OPENAI_API_KEY, undefined);
});

Deno.test("scriptRun() refuses untrusted and modified skills", async () => {
  await using f = await fixture({ untrusted: true });
  const untrusted = failure(
    await scriptRun(f.catalog, "runner-limited", "chatty", [], true, f.deps),
  );
  assert.equal(untrusted.error, "untrusted");
  assert.match(untrusted.message, /skills trust runner-limited/);
  const helpRefused = failure(await scriptHelp(f.catalog, "runner-limited", "chatty", f.deps));
  assert.equal(helpRefused.error, "untrusted");

  await Deno.writeTextFile(join(f.home, "runner-lab", "scripts", "echo_args.py"), "print(1)\n");
  const changed = failure(await scriptRun(f.catalog, "runner-lab", "echo_args", [], true, f.deps));
  assert.equal(changed.error, "integrity_mismatch");
});

Deno.test("scriptRun() without uv refuses a dependency-declaring script", async () => {
  await using f = await fixture();
  const env = failure(
    await scriptRun(f.catalog, "runner-lab", "needs_deps", [], true, {
      ...f.deps,
      env: { PATH: "/usr/bin:/bin", SKILLS_PYTHON: "python3" },
    }),
  );
  assert.equal(env.error, "dependency_unavailable");
  // Not installed for python3 either: named, with what the user can do.
  assert.match(
    env.message,
    /needs the Python packages httpx, rich, not installed for python3, and uv is not installed/,
  );
  assert.match(env.message, /python3 -m pip install httpx rich/);
});

Deno.test("scriptHelp() returns the help text and its usage line", async () => {
  await using f = await fixture();
  const help = await scriptHelp(f.catalog, "hello-extended", "Advanced_Greeting", f.deps);
  assert.ok(help.success, JSON.stringify(help));
  assert.equal(help.message, "Retrieved help for advanced_greeting");
  assert.match(help.result.help_text, /--name/);
  assert.match(help.result.usage, /^usage: advanced_greeting\.py .*--name NAME/);
  const missing = failure(await scriptHelp(f.catalog, "hello-extended", "nope", f.deps));
  assert.equal(missing.error, "not_found");
});

Deno.test(
  "scriptHelp() never changes the workspace: what a script writes when asked for --help is discarded",
  needsSandbox,
  async () => {
    await using f = await fixture();
    await installRunnerSkill(f.home, "workspace-lab");
    const catalog = await loadCatalog(f.home);
    await using workspace = await tempDir();
    const warnings: string[] = [];
    const deps: ScriptDeps = {
      ...f.deps,
      env: { ...f.deps.env, SKILLS_SANDBOX: "required" },
      cwd: workspace.path,
      warn: (message) => warnings.push(message),
    };
    // build_log writes ./build.log whatever its arguments, --help included (as codeql's does).
    const help = await scriptHelp(catalog, "workspace-lab", "build_log", deps);
    assert.ok(help.success, JSON.stringify(help));
    assert.match(help.result.help_text, /build\.log/);
    assert.deepEqual([...Deno.readDirSync(workspace.path)], []);
    assert.match(
      warnings.join("\n"),
      /changes were discarded: a --help run changes nothing \(1 created\); the folder is as it was \(not written: build\.log\)/,
    );
    // Run for real, the same script's file is applied.
    warnings.length = 0;
    const run = await scriptRun(catalog, "workspace-lab", "build_log", [], true, deps);
    assert.ok(run.success, JSON.stringify(run));
    assert.match(await Deno.readTextFile(join(workspace.path, "build.log")), /build started/);
    assert.deepEqual(warnings, []);
  },
);

Deno.test("usageLine() joins argparse's wrapped usage paragraph", () => {
  const help = "usage: markets.py [-h] [--status {open,closed}]\n" +
    "                  [--limit N] [--json]\n\nList markets.\n";
  assert.equal(
    usageLine(help),
    "usage: markets.py [-h] [--status {open,closed}] [--limit N] [--json]",
  );
  assert.equal(usageLine("\nEcho things.\nMore.\n"), "Echo things.");
});
