/**
 * The parent watch (src/runtime/exec/parent_watch.ts) in real Python processes: invisible to the
 * script, chained only to a sitecustomize it shadows in a folder it cannot write, and killing its group once the parent
 * is gone, but never a group it shares with its parent.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="../../../src/generated/parent_watch_py.d.ts"
import { PARENT_WATCH_SOURCE } from "../../../src/generated/parent_watch_py.ts";
import { parentWatchDir, parentWatchEnv } from "../../../src/runtime/exec/parent_watch.ts";
import { tempDir } from "../../helpers/cli.ts";
import { deadPid } from "../../helpers/processes.ts";

const BASE = { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" };

/**
 * Runs python3 in a session of its own, as the sandbox does (`detached` applies to
 * `spawn()` only, not to `output()`).
 */
function python(code: string, env: Record<string, string>, args: string[] = []) {
  const child = new Deno.Command("python3", {
    args: ["-c", code, ...args],
    env: { ...BASE, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  return { pid: child.pid, output: () => child.output() };
}

Deno.test("parentWatchEnv writes the module once and puts it first on PYTHONPATH", async () => {
  await using home = await tempDir();
  const env = parentWatchEnv(home.path, { PYTHONPATH: "/opt/lib" });
  const dir = parentWatchDir(home.path);
  assert.equal(env.PYTHONPATH, `${dir}:/opt/lib`);
  assert.equal(env.SKILLS_PARENT_PID, String(Deno.pid));
  assert.equal(await Deno.readTextFile(join(dir, "sitecustomize.py")), PARENT_WATCH_SOURCE);
  assert.equal(parentWatchEnv(home.path, {}).PYTHONPATH, dir);
  // Where PYTHONPATH could not name the directory, or it cannot be written: no watch.
  assert.deepEqual(parentWatchEnv(join(home.path, "a:b"), {}), {});
  await Deno.writeTextFile(join(home.path, "file"), "");
  assert.deepEqual(parentWatchEnv(join(home.path, "file"), {}), {});
});

Deno.test("a watched script sees none of the watch, and a sitecustomize it shadows in a writable folder does not run", async () => {
  await using home = await tempDir();
  const shadowed = join(home.path, "user-lib");
  await Deno.mkdir(shadowed);
  await Deno.writeTextFile(
    join(shadowed, "sitecustomize.py"),
    'import os\nos.environ["SHADOWED_SITECUSTOMIZE"] = "ran"\n',
  );
  const out = await python(
    `import json, os, sys, time
# The watch thread was started, but may not have run yet: give it up to 5 s to appear.
for _ in range(100):
    threads = [f.f_code.co_name for f in sys._current_frames().values()]
    if len(threads) > 1:
        break
    time.sleep(0.05)
print(json.dumps({
  "pythonpath": os.environ.get("PYTHONPATH"),
  "parent": os.environ.get("SKILLS_PARENT_PID"),
  "shadowed": os.environ.get("SHADOWED_SITECUSTOMIZE"),
  "path": sys.path,
  "threads": threads,
}))`,
    parentWatchEnv(home.path, { PYTHONPATH: shadowed }),
  ).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const seen = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(seen.pythonpath, shadowed);
  assert.equal(seen.parent, null);
  // Writable by this process, so possibly planted by an earlier script: not chained to
  // (the watch chains only to a sitecustomize in a folder it cannot write).
  assert.equal(seen.shadowed, null);
  assert.ok(!seen.path.includes(parentWatchDir(home.path)), seen.path.join("\n"));
  // The watch thread sits in its loop (watch) or in one of its checks.
  assert.ok(
    seen.threads.some((name: string) => ["watch", "gone", "identity"].includes(name)),
    `the watch runs while we live: ${seen.threads}`,
  );
});

Deno.test("once its parent is gone, the watch SIGKILLs its process group", async () => {
  await using home = await tempDir();
  const env = { ...parentWatchEnv(home.path, {}), SKILLS_PARENT_PID: String(await deadPid()) };
  const started = performance.now();
  const out = await python("import time; time.sleep(30)", env).output();
  assert.equal(out.signal, "SIGKILL", new TextDecoder().decode(out.stderr));
  assert.ok(performance.now() - started < 10_000);
});

Deno.test("the watch never kills a process group it shares with its parent", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir();
  const watchEnv = parentWatchEnv(home.path, {});
  // A leads its own session and starts B in that same group, watching A (the watch erased
  // itself from A's environment, so A hands it on); then A exits.
  const parent = await python(
    `import os, subprocess, sys
env = dict(os.environ, SKILLS_PARENT_PID=str(os.getpid()), PYTHONPATH=sys.argv[1])
child = subprocess.Popen(
    [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(30)"],
    env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
child.stdout.readline()  # B's watch has made up its mind
print(child.pid)`,
    watchEnv,
    [watchEnv.PYTHONPATH!],
  ).output();
  assert.equal(parent.code, 0, new TextDecoder().decode(parent.stderr));
  const orphan = Number(new TextDecoder().decode(parent.stdout).trim());
  try {
    await new Promise((r) => setTimeout(r, 1_000)); // five polls of the watch
    const stat = Deno.readTextFileSync(`/proc/${orphan}/stat`);
    assert.match(stat, /^\d+ \(.*\) [RS]/, "B must still run");
  } finally {
    Deno.kill(orphan, "SIGKILL");
  }
});

Deno.test("the watch imports no module a plain Python start does not: every script pays for what it loads", async () => {
  await using home = await tempDir();
  const modules = async (env: Record<string, string>) => {
    const out = await python("import sys; print('\\n'.join(sorted(sys.modules)))", env).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).trim().split("\n");
  };
  const plain = new Set(await modules({ PYTHONDONTWRITEBYTECODE: "1" }));
  const watched = await modules({ PYTHONDONTWRITEBYTECODE: "1", ...parentWatchEnv(home.path, {}) });
  // The watch itself (where the interpreter has no sitecustomize of its own), and modules
  // built into the interpreter, nothing to find or compile, that its thread uses.
  const own = new Set(["sitecustomize", "_thread", "time"]);
  const added = watched.filter((name) => !plain.has(name) && !own.has(name));
  // importlib.util alone once brought contextlib, collections, functools and types: ~4 ms.
  assert.deepEqual(added, []);
});
