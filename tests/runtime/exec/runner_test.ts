import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import { type LoadedSkill, loadSkillDir } from "../../../src/runtime/catalog/loader.ts";
import {
  checkArgs,
  DEFAULT_MAX_OUTPUT_BYTES,
  resolveLimits,
  type RunRequest,
  runScript,
  type RunTrace,
  stderrTail,
  trimPartialUtf8,
} from "../../../src/runtime/exec/runner.ts";
import { scriptEnvironment } from "../../../src/core/policy/env_policy.ts";
import { tempDir } from "../../helpers/cli.ts";
import { RUNNER_SKILLS } from "../../helpers/install_fixture.ts";
import { waitGone } from "../../helpers/processes.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

async function lab(): Promise<LoadedSkill> {
  return await loadSkillDir(join(RUNNER_SKILLS, "runner-lab"), RUNNER_SKILLS, {
    origin: "local",
    trusted: true,
  });
}

async function request(
  script: string,
  args: string[],
  extra: Partial<RunRequest> = {},
): Promise<RunRequest> {
  const skill = await lab();
  const info = skill.scripts.find((s) => s.name === script);
  assert.ok(info, `fixture script ${script}`);
  return {
    skill,
    script: info,
    args,
    env: scriptEnvironment(skill, { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" }),
    limits: { timeoutSeconds: 30, maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES },
    json: false,
    ...extra,
  };
}

Deno.test("resolveLimits() prefers the explicit value, then the environment, then the manifest", () => {
  const manifest = { limits: { timeoutSeconds: 5, maxOutputBytes: 4096 } };
  const cases: [
    Record<string, string>,
    { timeoutSeconds?: number; maxOutputBytes?: number },
    typeof manifest | { limits?: undefined },
    [number, number],
  ][] = [
    [{}, {}, {}, [60, 1048576]],
    [{}, {}, manifest, [5, 4096]],
    [{ SCRIPT_TIMEOUT: "7", MAX_SCRIPT_OUTPUT: "2048" }, {}, manifest, [7, 2048]],
    [{ SCRIPT_TIMEOUT: "7" }, { timeoutSeconds: 2 }, manifest, [2, 4096]],
    [{}, { maxOutputBytes: 10 }, {}, [60, 10]],
  ];
  for (const [env, overrides, m, [timeout, output]] of cases) {
    assert.deepEqual(resolveLimits(m, env, overrides), {
      timeoutSeconds: timeout,
      maxOutputBytes: output,
    });
  }
});

Deno.test("resolveLimits() warns about and ignores unusable environment values", () => {
  const warnings: string[] = [];
  const limits = resolveLimits(
    {},
    { SCRIPT_TIMEOUT: "soon", MAX_SCRIPT_OUTPUT: "1.5" },
    {},
    (m) => warnings.push(m),
  );
  assert.deepEqual(limits, { timeoutSeconds: 60, maxOutputBytes: 1048576 });
  assert.deepEqual(warnings, [
    "Ignoring SCRIPT_TIMEOUT='soon': expected a positive number",
    "Ignoring MAX_SCRIPT_OUTPUT='1.5': expected a positive integer",
  ]);
});

Deno.test("checkArgs() allows 100 arguments and 4 KiB, and refuses more with args_too_large", () => {
  checkArgs(Array(100).fill("x"));
  checkArgs(["a".repeat(4096)]);
  const refused = (args: string[], message: string) =>
    assert.throws(() => checkArgs(args), (error: unknown) => {
      assert.ok(error instanceof SkillError);
      assert.equal(error.code, "args_too_large");
      assert.equal(error.exitCode, 2);
      assert.equal(error.message, message);
      return true;
    });
  refused(Array(150).fill("x"), "Too many arguments: 150 (max 100)");
  refused(Array(101).fill("x"), "Too many arguments: 101 (max 100)");
  refused(["a".repeat(4000), "é".repeat(50)], "Arguments too large: 4100 bytes (max 4096)");
});

Deno.test("trimPartialUtf8() and stderrTail() never split a character", () => {
  const bytes = new TextEncoder().encode("ok ✓");
  assert.deepEqual(trimPartialUtf8(bytes.subarray(0, bytes.length - 1)), bytes.subarray(0, 3));
  assert.deepEqual(trimPartialUtf8(bytes), bytes);
  const long = new TextEncoder().encode(`${"é".repeat(400)}\n`);
  const tail = stderrTail(long, 501);
  assert.equal(tail, "é".repeat(250));
  assert.equal(stderrTail(new TextEncoder().encode("short\n")), "short");
});

Deno.test("runScript() runs in the script's folder and appends --json once in JSON mode", async () => {
  const req = await request("echo_args", ["a b", "--flag"], { json: true });
  const outcome = await runScript(req);
  assert.equal(outcome.error, null);
  assert.equal(outcome.launcher, "python3");
  assert.deepEqual(outcome.parsed?.value, {
    args: ["a b", "--flag", "--json"],
    cwd: join(RUNNER_SKILLS, "runner-lab", "scripts"),
  });
  const again = await runScript(await request("echo_args", ["--json", "x"], { json: true }));
  assert.deepEqual((again.parsed?.value as { args: string[] }).args, ["--json", "x"]);
});

Deno.test("runScript() decodes UTF-8 with replacement characters", async () => {
  const outcome = await runScript(await request("bad_utf8", []));
  assert.equal(outcome.error, null);
  assert.equal(outcome.stdout, "café \uFFFD\uFFFD ok ✓\n");
  assert.equal(outcome.stderrTail, "err \uFFFD ✓");
});

Deno.test("runScript() stops a script past the stdout cap and says it truncated", async () => {
  const started = performance.now();
  const outcome = await runScript(
    await request("flood", [], { limits: { timeoutSeconds: 30, maxOutputBytes: 100_000 } }),
  );
  assert.ok(performance.now() - started < 10_000);
  assert.equal(outcome.truncated, true);
  assert.equal(outcome.bytesOut, 100_000);
  assert.equal(outcome.stdout.length, 100_000);
  // Stopped by the runner (null), or it exited on its own once its pipe closed (0).
  assert.ok(outcome.exitCode === null || outcome.exitCode === 0, String(outcome.exitCode));
  assert.equal(outcome.error, null, "text mode: truncated output is still a result");
  const json = await runScript(
    await request("flood", [], {
      json: true,
      limits: { timeoutSeconds: 30, maxOutputBytes: 5000 },
    }),
  );
  assert.equal(json.error, "parse_error");
  assert.equal(json.truncated, true);
});

Deno.test("runScript() stops a script at the cap without a BrokenPipeError traceback", async () => {
  for (const json of [false, true]) {
    const stderr: string[] = [];
    const outcome = await runScript(
      await request("chatter", [], {
        json,
        limits: { timeoutSeconds: 30, maxOutputBytes: 10_000 },
        onStdout: () => {},
        onStderr: (chunk) => stderr.push(new TextDecoder().decode(chunk)),
      }),
    );
    assert.equal(outcome.truncated, true);
    const shown = stderr.join("");
    assert.doesNotMatch(shown, /Traceback|BrokenPipeError/, `json: ${json}`);
    assert.doesNotMatch(outcome.stderrTail, /Traceback|BrokenPipeError/, `json: ${json}`);
  }
});

Deno.test(
  "runScript() kills a script at the timeout and reports it",
  { ignore: SKIP_SLOW },
  async () => {
    await using dir = await tempDir();
    const started = performance.now();
    const outcome = await runScript(
      await request("sleeper", [join(dir.path, "pids")], {
        limits: { timeoutSeconds: 2, maxOutputBytes: 1024 },
      }),
    );
    const elapsed = performance.now() - started;
    assert.equal(outcome.error, "timeout");
    assert.equal(outcome.timedOut, true);
    assert.equal(outcome.exitCode, null);
    assert.ok(elapsed >= 2000 && elapsed < 10_000, `took ${elapsed} ms`);
    assert.match(outcome.stderrTail, /grandchild started/);
  },
);

Deno.test("runScript() ends a leftover grandchild that holds the pipes after the script exits", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using dir = await tempDir();
  const pidFile = join(dir.path, "pid");
  const started = performance.now();
  const outcome = await runScript(await request("leaves_child", [pidFile], { json: true }));
  assert.ok(performance.now() - started < 5000, "did not wait for the grandchild");
  assert.equal(outcome.error, null);
  assert.equal(outcome.exitCode, 0);
  const pid = Number((await Deno.readTextFile(pidFile)).trim());
  assert.deepEqual(outcome.parsed?.value, { left_behind: pid });
  const gone = await waitGone(pid);
  assert.ok(gone, `grandchild ${pid} still running`);
});

Deno.test("runScript() reports a non-zero exit as execution_failed with the parsed JSON", async () => {
  const outcome = await runScript(await request("fail_json", [], { json: true }));
  assert.equal(outcome.error, "execution_failed");
  assert.equal(outcome.exitCode, 3);
  assert.deepEqual(outcome.parsed?.value, { error: "Widget not found: W-1" });
  assert.match(outcome.stderrTail, /looking up widget/);
});

Deno.test("runScript() streams stdout chunks before the script ends", async () => {
  const seen: { text: string; at: number }[] = [];
  const started = performance.now();
  const outcome = await runScript(
    await request("stream", ["0.8"], {
      onStdout: (chunk) =>
        seen.push({ text: new TextDecoder().decode(chunk), at: performance.now() - started }),
    }),
  );
  const ended = performance.now() - started;
  assert.equal(outcome.error, null);
  assert.equal(outcome.stdout, "", "streamed output is not kept");
  assert.equal(outcome.bytesOut, "first line\nsecond line\n".length);
  assert.equal(seen[0]?.text, "first line\n");
  assert.ok(ended - seen[0]!.at >= 500, "the first line arrived well before the end");
});

Deno.test("runScript() stops the script when the signal aborts", async () => {
  await using dir = await tempDir();
  const controller = new AbortController();
  const pending = runScript(
    await request("sleeper", [join(dir.path, "pids")], { signal: controller.signal }),
  );
  setTimeout(() => controller.abort(), 300);
  const outcome = await pending;
  assert.equal(outcome.error, "cancelled");
  assert.equal(outcome.aborted, true);
});

Deno.test("runScript() traces every run, including refusals", async () => {
  const traces: RunTrace[] = [];
  const logs: string[] = [];
  await runScript(
    await request("fail_json", [], {
      json: true,
      onTrace: (t) => traces.push(t),
      log: (m) => logs.push(m),
    }),
  );
  await assert.rejects(
    async () =>
      await runScript(
        await request("echo_args", Array(101).fill("x"), { onTrace: (t) => traces.push(t) }),
      ),
    SkillError,
  );
  assert.equal(traces.length, 2);
  const [failed, refused] = traces;
  assert.equal(failed?.skill, "runner-lab");
  assert.equal(failed?.script, "fail_json");
  assert.equal(failed?.exitCode, 3);
  assert.equal(failed?.error, "execution_failed");
  assert.ok(failed!.bytesOut > 0 && failed!.bytesErr > 0 && failed!.durationMs >= 0);
  assert.equal(refused?.error, "args_too_large");
  assert.equal(refused?.exitCode, null);
  assert.ok(logs.some((l) => /^run runner-lab\/fail_json\.py: \d+ ms, exit 3, /.test(l)), logs[1]);
});
