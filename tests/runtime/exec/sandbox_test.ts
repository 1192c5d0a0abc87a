import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError, UsageError } from "../../../src/core/errors.ts";
import type { NetPolicy } from "../../../src/core/policy/net_grants.ts";
import type { LoadedSkill } from "../../../src/runtime/catalog/catalog.ts";
import { planLaunch } from "../../../src/runtime/exec/languages/launch_plan.ts";
import { spawnProcessGroup } from "../../../src/runtime/exec/spawn/process_group.ts";
import { sandboxRequestFor } from "../../../src/runtime/exec/spawn/sandbox_request.ts";
import { findOnPath } from "../../../src/runtime/os/probe.ts";
import { tempDir } from "../../helpers/cli.ts";
import { alive, waitGone } from "../../helpers/processes.ts";
import { realPython } from "../../helpers/python.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";

const NO_DEPS = "# /// script\n# dependencies = []\n# ///\nprint('hi')\n";
const WITH_DEPS = '# /// script\n# dependencies = ["httpx"]\n# ///\nprint("hi")\n';

async function writeExecutable(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, 0o755);
}

Deno.test("planLaunch() uses `uv run --script <abs> <args>` when uv is on PATH", async () => {
  await using dir = await tempDir();
  await writeExecutable(join(dir.path, "uv"), "#!/bin/sh\nexit 0\n");
  const script = join(dir.path, "deps.py");
  await Deno.writeTextFile(script, WITH_DEPS);
  const plan = await planLaunch({ path: script }, ["--limit", "2"], { PATH: dir.path });
  assert.deepEqual(plan, {
    command: "uv",
    args: ["run", "--script", script, "--limit", "2"],
    launcher: "uv",
    fetchesPackages: true,
  });
  assert.equal(findOnPath("uv", { PATH: `/nonexistent:${dir.path}` }), join(dir.path, "uv"));
});

Deno.test("planLaunch() ignores a uv on PATH that is not executable", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "uv"), "not executable");
  const script = join(dir.path, "plain.py");
  await Deno.writeTextFile(script, NO_DEPS);
  const plan = await planLaunch({ path: script }, [], { PATH: dir.path });
  assert.equal(plan.launcher, "python3");
});

Deno.test("planLaunch() honours SKILLS_UV and SKILLS_PYTHON", async () => {
  await using dir = await tempDir();
  const script = join(dir.path, "plain.py");
  await Deno.writeTextFile(script, NO_DEPS);
  const uv = await planLaunch({ path: script }, ["a"], {
    PATH: dir.path,
    SKILLS_UV: "/opt/uv/bin/uv",
  });
  assert.deepEqual(uv, {
    command: "/opt/uv/bin/uv",
    args: ["run", "--script", script, "a"],
    launcher: "uv",
    fetchesPackages: false,
  });
  const py = await planLaunch({ path: script }, ["a"], {
    PATH: dir.path,
    SKILLS_PYTHON: "/usr/bin/py3",
  });
  assert.deepEqual(py, { command: "/usr/bin/py3", args: [script, "a"], launcher: "python3" });
});

Deno.test("planLaunch() runs a dependency-free script with python3 when uv is absent", async () => {
  await using dir = await tempDir();
  const script = join(dir.path, "plain.py");
  await Deno.writeTextFile(script, NO_DEPS);
  const plan = await planLaunch({ path: script }, ["--json"], { PATH: dir.path });
  assert.deepEqual(plan, { command: "python3", args: [script, "--json"], launcher: "python3" });
});

Deno.test("planLaunch() refuses a dependency-declaring script without uv: dependency_unavailable", async () => {
  await using dir = await tempDir();
  const script = join(dir.path, "deps.py");
  await Deno.writeTextFile(script, WITH_DEPS);
  await assert.rejects(
    () => planLaunch({ path: script }, [], { PATH: dir.path }),
    (error: unknown) => {
      assert.ok(error instanceof SkillError);
      assert.equal(error.code, "dependency_unavailable");
      assert.match(error.message, /needs httpx and uv is not installed/);
      assert.match(error.hint ?? "", /Install uv/);
      return true;
    },
  );
});

Deno.test("planLaunch() on Windows falls back to python, or `python -m uv` for dependencies", async () => {
  await using dir = await tempDir();
  const plain = join(dir.path, "plain.py");
  const deps = join(dir.path, "deps.py");
  await Deno.writeTextFile(plain, NO_DEPS);
  await Deno.writeTextFile(deps, WITH_DEPS);
  const env = { PATH: dir.path };
  assert.deepEqual(await planLaunch({ path: plain }, ["x"], env, "windows"), {
    command: "python",
    args: [plain, "x"],
    launcher: "python3",
  });
  assert.deepEqual(await planLaunch({ path: deps }, ["x"], env, "windows"), {
    command: "python",
    args: ["-m", "uv", "run", "--script", deps, "x"],
    launcher: "python-m-uv",
    fetchesPackages: true,
  });
});

Deno.test("planLaunch() passes a requirements.txt (script folder first, then skill root) to uv for scripts without PEP 723", async () => {
  await using dir = await tempDir();
  await writeExecutable(join(dir.path, "uv"), "#!/bin/sh\nexit 0\n");
  const skill = join(dir.path, "skill");
  await Deno.mkdir(join(skill, "scripts"), { recursive: true });
  const script = join(skill, "scripts", "gif.py");
  await Deno.writeTextFile(script, "import imageio\n");
  await Deno.writeTextFile(join(skill, "requirements.txt"), "imageio\n");
  const env = { PATH: dir.path };
  const atRoot = await planLaunch({ path: script, language: "python" }, ["x"], env, "linux", skill);
  assert.deepEqual(atRoot.args, [
    "run",
    "--no-project",
    "--with-requirements",
    join(skill, "requirements.txt"),
    "--script",
    script,
    "x",
  ]);
  assert.equal(atRoot.fetchesPackages, true);
  await Deno.writeTextFile(join(skill, "scripts", "requirements.txt"), "pillow\n");
  const beside = await planLaunch({ path: script }, [], env, "linux", skill);
  assert.equal(beside.args[3], join(skill, "scripts", "requirements.txt"));
  // A PEP 723 block wins, even one declaring nothing.
  await Deno.writeTextFile(script, NO_DEPS);
  const pep = await planLaunch({ path: script }, [], env, "linux", skill);
  assert.deepEqual(pep.args, ["run", "--script", script]);
  assert.equal(pep.fetchesPackages, false);
});

Deno.test("planLaunch() without uv: a requirements.txt is dependency_unavailable naming the file", async () => {
  await using dir = await tempDir();
  const script = join(dir.path, "gif.py");
  await Deno.writeTextFile(script, "import imageio\n");
  await Deno.writeTextFile(join(dir.path, "requirements.txt"), "imageio\n");
  await assert.rejects(
    () => planLaunch({ path: script }, [], { PATH: "/nonexistent" }, "linux", dir.path),
    (error: unknown) => {
      assert.ok(error instanceof SkillError);
      assert.equal(error.code, "dependency_unavailable");
      assert.ok(
        // The skill's own path, not the folder it runs from.
        error.message.startsWith(
          "Cannot run gif.py: the script needs the packages listed in requirements.txt",
        ),
        error.message,
      );
      return true;
    },
  );
});

Deno.test("planLaunch() runs .sh with bash, .js with node (else deno), .ts with deno, from PATH", async () => {
  await using dir = await tempDir();
  const bin = join(dir.path, "bin");
  await Deno.mkdir(bin);
  const env = { PATH: bin };
  const missing = async (path: string, language: "bash" | "node" | "typescript", what: RegExp) =>
    await assert.rejects(
      () => planLaunch({ path, language }, [], env),
      (error: unknown) => {
        assert.ok(error instanceof SkillError);
        assert.equal(error.code, "dependency_unavailable");
        assert.match(error.message, what);
        return true;
      },
    );
  await missing("/s/build.sh", "bash", /needs bash, which is not on PATH/);
  await missing("/s/render.mjs", "node", /needs node or deno/);
  await missing("/s/check.ts", "typescript", /needs deno/);

  await writeExecutable(join(bin, "deno"), "#!/bin/sh\n");
  const js = await planLaunch({ path: "/s/render.mjs", language: "node" }, ["--json"], env);
  assert.deepEqual(js, {
    command: "deno",
    args: ["run", "--allow-all", "--no-prompt", "/s/render.mjs", "--json"],
    launcher: "deno",
  });
  await writeExecutable(join(bin, "node"), "#!/bin/sh\n");
  await writeExecutable(join(bin, "bash"), "#!/bin/sh\n");
  assert.deepEqual(await planLaunch({ path: "/s/render.mjs", language: "node" }, ["a"], env), {
    command: "node",
    args: ["/s/render.mjs", "a"],
    launcher: "node",
  });
  assert.deepEqual(await planLaunch({ path: "/s/build.sh", language: "bash" }, ["a"], env), {
    command: "bash",
    args: ["/s/build.sh", "a"],
    launcher: "bash",
  });
  assert.equal(
    (await planLaunch({ path: "/s/check.ts", language: "typescript" }, [], env)).launcher,
    "deno",
  );
});

const TREE_SCRIPT = `
import os, subprocess, sys, time
kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"]),
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)]
print(os.getpid(), os.getpgid(0), os.getsid(0), kids[0].pid, kids[1].pid, flush=True)
time.sleep(300)
`;

Deno.test({
  name: "spawnProcessGroup() makes the child a group leader and killTree() kills every descendant",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const proc = spawnProcessGroup(
      { command: "python3", args: ["-c", TREE_SCRIPT], launcher: "python3" },
      { cwd: Deno.cwd(), env: { PATH: Deno.env.get("PATH") ?? "/usr/bin", HOME: "/tmp" } },
    );
    const reader = proc.child.stdout.getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      line += new TextDecoder().decode(value);
    }
    const [pid, pgid, sid, grandchild, escaped] = line.trim().split(" ").map(Number);
    assert.equal(pid, proc.pid);
    assert.equal(pgid, proc.pid, "the child leads its own process group");
    assert.equal(sid, proc.pid, "the child leads its own session");
    assert.ok(alive(grandchild!) && alive(escaped!));
    await proc.killTree();
    await proc.killTree(); // idempotent
    const status = await proc.child.status;
    assert.equal(status.signal, "SIGKILL");
    assert.ok(await waitGone(grandchild!), "grandchild in the group is gone");
    assert.ok(await waitGone(escaped!), "grandchild that left the group is gone");
    reader.releaseLock();
    await proc.child.stdout.cancel();
    await proc.child.stderr.cancel();
  },
});

Deno.test("spawnProcessGroup() gives the child exactly the environment it is handed", async () => {
  const proc = spawnProcessGroup(
    {
      command: await realPython(),
      args: ["-c", "import json, os; print(json.dumps(sorted(os.environ)))"],
      launcher: "python3",
    },
    { cwd: "/", env: { PATH: "/usr/bin:/bin", ONLY_THIS: "1" } },
  );
  const [status, stdout] = await Promise.all([
    proc.child.status,
    new Response(proc.child.stdout).text(),
    proc.child.stderr.cancel(),
  ]);
  assert.equal(status.code, 0);
  // Python may add LC_CTYPE itself (PEP 538 locale coercion); nothing else may appear.
  const names = (JSON.parse(stdout) as string[]).filter((n) => n !== "LC_CTYPE");
  assert.deepEqual(names, ["ONLY_THIS", "PATH"]);
});

Deno.test("spawnProcessGroup() reports a missing launcher as dependency_unavailable", () => {
  assert.throws(
    () =>
      spawnProcessGroup(
        { command: "/nonexistent/uv", args: ["run"], launcher: "uv" },
        { cwd: "/", env: {} },
      ),
    (error: unknown) => error instanceof SkillError && error.code === "dependency_unavailable",
  );
});

Deno.test(
  "sandboxRequestFor(): the network is the manifest's hosts and the user's grants, none when no host is named",
  needsSandbox,
  async () => {
    await using home = await tempDir();
    const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", SKILLS_SANDBOX: "required" };
    const warnings: string[] = [];
    const request = (
      network: NetPolicy | undefined,
      scope: { env?: Record<string, string>; allowNet?: string[]; declaredNetwork?: boolean } = {},
    ) =>
      sandboxRequestFor(
        { dir: home.path, canonical: "net-lab", manifest: { network } as LoadedSkill["manifest"] },
        {
          home: home.path,
          env: { ...env, ...scope.env },
          cwd: home.path,
          skillKey: "key",
          skillGeneration: "1",
          allowNet: scope.allowNet,
          declaredNetwork: scope.declaredNetwork,
          limits: { processes: 1, memoryBytes: 1, cpuSeconds: 1, fileSizeBytes: 1 },
          warn: (message) => warnings.push(message),
        },
      ).then((r) => r?.network);
    const api = { host: "api.example.com", port: 443 };
    // The user's grants are marked as theirs: a name so granted may reach a private address.
    const apiByUser = { ...api, byUser: true };
    assert.deepEqual(await request(undefined), { any: false, grants: [] });
    assert.deepEqual(await request({ any: true, grants: [] }), { any: true, grants: [] });
    assert.deepEqual(
      await request({ any: true, grants: [] }, { declaredNetwork: false }),
      { any: false, grants: [] },
    );
    assert.deepEqual(
      await request(undefined, { env: { SKILLS_ALLOW_NET: " , " }, allowNet: [""] }),
      { any: false, grants: [] },
    );
    assert.deepEqual(await request({ any: false, grants: [api] }), { any: false, grants: [api] });
    assert.deepEqual(
      await request({ any: false, grants: [api] }, { declaredNetwork: false }),
      { any: false, grants: [] },
    );
    assert.deepEqual(
      await request(undefined, { env: { SKILLS_ALLOW_NET: "api.example.com:443" } }),
      { any: false, grants: [apiByUser] },
    );
    assert.deepEqual(await request(undefined, { allowNet: ["api.example.com:443"] }), {
      any: false,
      grants: [apiByUser],
    });
    await assert.rejects(
      () => request(undefined, { env: { SKILLS_ALLOW_NET: "a b" } }),
      (error: unknown) =>
        error instanceof UsageError && /Invalid SKILLS_ALLOW_NET/.test(error.message),
    );
    // A skill's own grant of a local address is reached only when the user grants it too.
    const local = { host: "127.0.0.1", port: 8080 };
    assert.deepEqual(await request({ any: false, grants: [local] }), { any: false, grants: [] });
    assert.match(warnings.join("\n"), /declares 127\.0\.0\.1:8080, which is not a public address/);
    assert.deepEqual(
      await request({ any: false, grants: [local] }, { allowNet: ["127.0.0.1:8080"] }),
      { any: false, grants: [{ ...local, byUser: true }] },
    );
  },
);
