/**
 * Bounded input: a huge line on the MCP or REPL stdin is refused in linear time with bounded
 * memory, and the next line still works; a local source's huge file is refused before it is
 * copied; a `registry.lock` symlink is never followed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  baseEnv,
  cliArgv,
  defaultCwd,
  REPO_ROOT,
  runCli,
  spawnCli,
  tempDir,
} from "../../helpers/cli.ts";
import { samplePeakRss } from "../../helpers/processes.ts";
import { pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";

const MiB = 1024 * 1024;

Deno.test("a 48 MiB line to skills mcp is refused quickly, in bounded memory, and the next works", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir();
  const child = spawnCli(["mcp"], { env: { SKILLS_HOME: home.path }, stdin: "piped" });
  // Killed (and the wait failed) when still running after 30 s.
  const peak = samplePeakRss(child, { everyMs: 20, timeoutMs: 30_000 }).catch((e) => e as Error);
  const started = Date.now();
  const writer = child.stdin.getWriter();
  const chunk = new TextEncoder().encode("x".repeat(MiB));
  await writer.write(
    new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'),
  );
  for (let i = 0; i < 48; i++) await writer.write(chunk);
  await writer.write(new TextEncoder().encode('"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n'));
  await writer.close();
  const output = await child.output();
  const elapsed = Date.now() - started;
  const rss = await peak;
  assert.ok(!(rss instanceof Error), `${rss}`);
  const lines = new TextDecoder().decode(output.stdout).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  assert.ok(
    lines.some((m) => m.error && /too large/i.test(m.error.message)),
    JSON.stringify(lines),
  );
  assert.ok(lines.some((m) => m.id === 2 && m.result !== undefined), "the next message was served");
  assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
  assert.ok(rss.peakKiB < 250 * 1024, `peak RSS ${Math.round(rss.peakKiB / 1024)} MiB`);
});

Deno.test("a local source's 2 GiB sparse file is refused before anything is copied", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using root = await tempDir();
  const source = join(root.path, "huge-skill");
  await writeTree(source, {
    "SKILL.md": skillMd("huge-skill"),
    "scripts/go.py": pyScript("print('{}')"),
  });
  const file = await Deno.open(join(source, "assets.bin"), { write: true, create: true });
  await file.truncate(2 * 1024 * MiB); // sparse: takes no space until copied
  file.close();
  const home = join(root.path, "home");
  const started = Date.now();
  const add = await runCli(["add", source, "--yes"], { env: { SKILLS_HOME: home } });
  assert.notEqual(add.code, 0);
  assert.match(
    add.stderr,
    /assets\.bin is \d+ bytes; files over \d+ bytes \(100 MiB\) are refused/,
  );
  assert.ok(Date.now() - started < 10_000, "the file was copied before the check");
});

Deno.test("a registry.lock symlink is refused, its target untouched", async () => {
  await using root = await tempDir();
  const home = join(root.path, "home");
  await Deno.mkdir(home);
  const target = join(root.path, "precious.txt");
  await Deno.writeTextFile(target, "keep me\n");
  await Deno.symlink(target, join(home, "registry.lock"));
  const source = join(root.path, "small");
  await writeTree(source, { "SKILL.md": skillMd("small") });
  const add = await runCli(["add", source, "--yes"], { env: { SKILLS_HOME: home } });
  assert.equal(
    await Deno.readTextFile(target),
    "keep me\n",
    "the symlink's target was overwritten",
  );
  assert.notEqual(add.code, 0);
  assert.match(add.stderr, /registry\.lock.*symlink/);
  assert.doesNotMatch(add.stderr, /Unexpected error/);
});

/** Runs the CLI in a private mount namespace where `home` is a fresh tmpfs mounted `opts`. */
async function inMountedHome(opts: string, args: string[][]) {
  const home = await Deno.makeTempDir();
  const script = [
    `mount -t tmpfs -o ${opts} tmpfs "${home}"`,
    ...args.map((a) => `${cliArgv(a).map((w) => `'${w}'`).join(" ")}; echo "exit=$?"`),
  ].join("\n");
  const out = await new Deno.Command("unshare", {
    args: ["-rm", "sh", "-c", script],
    env: baseEnv({ SKILLS_HOME: home }),
    clearEnv: true,
    cwd: defaultCwd(),
  }).output();
  await Deno.remove(home, { recursive: true });
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.ok(out.success, text);
  return text;
}

Deno.test("a read-only or full SKILLS_HOME is a clear error, never a stack trace", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  const readOnly = await inMountedHome("ro,size=1m", [["list"], [
    "run",
    "hello-extended",
    "advanced_greeting",
    "--name",
    "A",
    "--json",
  ]]);
  assert.doesNotMatch(readOnly, /Unexpected error|^\s+at /m, readOnly);
  assert.match(readOnly, /error: Cannot .*: the file system is read-only/);
  assert.match(readOnly, /"error": "io_error"/);

  const full = await inMountedHome("size=48k", [["list"], [
    "add",
    `${REPO_ROOT}/skills/core/kalshi-markets`,
    "--name",
    "k",
    "--yes",
  ]]);
  assert.doesNotMatch(full, /Unexpected error|^\s+at /m, full);
  assert.match(full, /error: Cannot .*: the disk is full/);
});

Deno.test("a manifest cannot raise the stdout cap past 16 MiB: run --json stays bounded", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using root = await tempDir();
  const source = join(root.path, "flood-skill");
  await writeTree(source, {
    "SKILL.md": skillMd("flood-skill", undefined, "limits:\n  max_output: 268435456\n"),
    "scripts/flood.py": pyScript("import sys\nsys.stdout.write('\"' + 'x' * (200 << 20) + '\"')"),
  });
  const home = join(root.path, "home");
  assert.equal((await runCli(["add", source, "--yes"], { env: { SKILLS_HOME: home } })).code, 0);
  const child = spawnCli(["run", "flood-skill", "flood", "--json"], {
    env: { SKILLS_HOME: home },
  });
  const peak = samplePeakRss(child, { everyMs: 20 });
  const output = await child.output();
  const rss = await peak;
  const envelope = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(envelope.error, "parse_error", JSON.stringify(envelope).slice(0, 300));
  assert.match(envelope.message, /exceeded 16777216 bytes/);
  assert.ok(rss.peakKiB < 300 * 1024, `peak RSS ${Math.round(rss.peakKiB / 1024)} MiB`);
});
