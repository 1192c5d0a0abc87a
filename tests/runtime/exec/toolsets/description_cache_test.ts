/**
 * A toolset's tool list is kept by what decides it (runtime/exec/toolsets/description_cache.ts):
 * an unchanged toolset's tools are listed without starting its host, the host starts (in
 * the sandbox) when a tool is called, and a toolset whose files or environment changed is
 * asked again. The toolset here says on stderr each time its module is imported, which the
 * host's log shows: that is how a test sees whether a host ran.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { findSkill, loadCatalog } from "../../../../src/runtime/catalog/catalog.ts";
import { ToolsetHost } from "../../../../src/runtime/exec/toolset_host.ts";
import {
  descriptionKey,
  readDescription,
  writeDescription,
} from "../../../../src/runtime/exec/toolsets/description_cache.ts";
import { sandboxStatus } from "../../../../src/runtime/exec/spawn/sandbox_request.ts";
import { tempDir } from "../../../helpers/cli.ts";
import { installSkill, skillMd } from "../../../helpers/installed_skills.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

function toolset(extraMethod = ""): string {
  return `
import os, socket, sys
print("TOOLSET-IMPORTED", file=sys.stderr, flush=True)

class Counted:
    """A toolset that says when it is imported."""

    def ping(self, text: str = "pong") -> str:
        """Echo the text."""
        return text

    def where(self) -> str:
        """The host name the toolset runs under."""
        return socket.gethostname()

    if os.environ.get("COUNTED_EXTRA"):
        def extra(self) -> str:
            """Only with COUNTED_EXTRA set."""
            return "extra"
${extraMethod}`;
}

async function installCounted(home: string, extraMethod = ""): Promise<string> {
  return await installSkill(home, "counted", {
    "SKILL.md": skillMd("counted", [
      "toolsets:",
      "  - tools.counted:Counted",
      "permissions:",
      "  env:",
      "    - COUNTED_*",
    ], "# Counted"),
    "tools/__init__.py": "",
    "tools/counted.py": toolset(extraMethod),
  });
}

/** Starts the host of `counted`, runs `use` on it, closes it; the log and the result. */
async function withHost<T>(
  home: string,
  env: Record<string, string>,
  use: (host: ToolsetHost) => Promise<T>,
  startProcess = false,
): Promise<{ imported: number; result: T }> {
  const logs: string[] = [];
  const catalog = await loadCatalog(home);
  const host = await ToolsetHost.start(findSkill(catalog, "counted"), {
    home,
    env,
    log: (message) => logs.push(message),
    startProcess,
  });
  let result: T;
  try {
    result = await use(host);
  } finally {
    await host.close();
  }
  const imported = logs.filter((line) => line.includes("TOOLSET-IMPORTED")).length;
  return { imported, result };
}

const names = (host: ToolsetHost) => host.methods.map((m) => m.name);

Deno.test("an unchanged toolset's tools are listed without a host; a call starts it sandboxed", async () => {
  await using home = await tempDir();
  await installCounted(home.path);
  const first = await withHost(home.path, ENV, (host) => Promise.resolve(host.methods));
  assert.equal(first.imported, 1, "the first activation asks the host");
  assert.deepEqual(first.result.map((m) => m.name), ["ping", "where"]);

  const again = await withHost(home.path, ENV, (host) => Promise.resolve(host.methods));
  assert.equal(again.imported, 0, "the same toolset, interpreter and environment: no host");
  assert.deepEqual(again.result, first.result);
  // The doctor's check (runtime/inspect/toolset_probe.ts) starts it all the same.
  const checked = await withHost(home.path, ENV, (host) => Promise.resolve(host.methods), true);
  assert.equal(checked.imported, 1);
  assert.deepEqual(checked.result, first.result);

  const called = await withHost(home.path, ENV, async (host) => {
    const ping = await host.call("ping", { text: "hi" });
    const where = await host.call("where", {});
    return { ping, where };
  });
  assert.equal(called.imported, 1, "a call starts the host");
  assert.deepEqual(called.result.ping, { success: true, result: "hi", message: "ping completed" });
  const sandbox = await sandboxStatus(ENV, home.path);
  const where = called.result.where as { success: boolean; result: unknown };
  assert.equal(where.success, true);
  // Under bubblewrap the host has the sandbox's own host name: it still runs inside.
  assert.equal(where.result, sandbox.kind === "bwrap" ? "skills-sandbox" : Deno.hostname());
});

Deno.test("starts of the same toolset at once share one host's answer; a failed one is not shared", async () => {
  await using home = await tempDir();
  await installCounted(home.path);
  // skills context learns a toolset in the background while it activates other skills, then
  // activates this one: the second start waits for the first one's describe.
  const [a, b] = await Promise.all([
    withHost(home.path, ENV, (host) => Promise.resolve(names(host))),
    withHost(home.path, ENV, (host) => Promise.resolve(names(host))),
  ]);
  assert.equal(a.imported + b.imported, 1, "one host imported the toolset");
  assert.deepEqual(a.result, ["ping", "where"]);
  assert.deepEqual(b.result, ["ping", "where"]);

  // A host that dies before it answers has no answer to share: each start asks for itself,
  // and each reports it.
  await installSkill(home.path, "broken", {
    "SKILL.md": skillMd("broken", ["toolsets:", "  - tools.broken:Broken"], "# Broken"),
    "tools/__init__.py": "",
    "tools/broken.py":
      'import os, sys\nprint("BROKEN-IMPORTED", file=sys.stderr, flush=True)\nos._exit(3)\n',
  });
  const catalog = await loadCatalog(home.path);
  const logs: string[] = [];
  const start = () =>
    ToolsetHost.start(findSkill(catalog, "broken"), {
      home: home.path,
      env: ENV,
      log: (message) => logs.push(message),
    }).then((host) => host.close(), (error: Error) => error.message);
  const failures = await Promise.all([start(), start()]);
  for (const failure of failures) {
    assert.match(String(failure), /Cannot load the toolsets of skill 'broken'/);
  }
  assert.equal(logs.filter((line) => line.includes("BROKEN-IMPORTED")).length, 2);
});

Deno.test("a toolset changed after its tools were listed is asked again", async () => {
  await using home = await tempDir();
  await installCounted(home.path);
  const before = await withHost(home.path, ENV, (host) => Promise.resolve(names(host)));
  assert.deepEqual(before.result, ["ping", "where"]);

  // Updated and trusted at its new digest: another description.
  await installCounted(
    home.path,
    '\n    def added(self) -> str:\n        """Added later."""\n        return "added"\n',
  );
  const after = await withHost(home.path, ENV, (host) => Promise.resolve(names(host)));
  assert.equal(after.imported, 1);
  assert.deepEqual(after.result, ["ping", "where", "added"]);

  // Edited without trust: refused before any kept description is read.
  const dir = join(home.path, "counted");
  await Deno.writeTextFile(join(dir, "tools", "counted.py"), `${toolset()}\n# edited\n`);
  await assert.rejects(
    withHost(home.path, ENV, (host) => Promise.resolve(names(host))),
    (error: Error & { code?: string }) => error.code === "integrity_mismatch",
  );
});

Deno.test("another environment for the host is another description", async () => {
  await using home = await tempDir();
  await installCounted(home.path);
  const plain = await withHost(home.path, ENV, (host) => Promise.resolve(names(host)));
  const extra = await withHost(
    home.path,
    { ...ENV, COUNTED_EXTRA: "1" },
    (host) => Promise.resolve(names(host)),
  );
  assert.equal(extra.imported, 1);
  assert.deepEqual(plain.result, ["ping", "where"]);
  assert.deepEqual(extra.result, ["ping", "where", "extra"]);
  // A variable the skill may not see changes nothing the host receives: the kept one serves.
  const unseen = await withHost(
    home.path,
    { ...ENV, UNRELATED_SECRET: "x" },
    (host) => Promise.resolve(names(host)),
  );
  assert.equal(unseen.imported, 0);
  assert.deepEqual(unseen.result, ["ping", "where"]);
});

Deno.test("descriptionKey() moves with every input; an entry is read only under its own key", async () => {
  await using home = await tempDir();
  const python = Deno.execPath();
  const inputs = {
    host: "h",
    digest: "sha256:1",
    toolsets: ["a:B"],
    interpreter: python,
    env: { PATH: "/usr/bin" },
    sandbox: null,
  };
  const key = descriptionKey(inputs)!;
  assert.match(key, /^[0-9a-f]{64}$/);
  const changes = [
    { host: "h2" },
    { digest: "sha256:2" },
    { toolsets: ["a:C"] },
    { env: { PATH: "/bin" } },
    { sandbox: { network: { any: false, grants: [] } } },
  ];
  for (const change of changes) {
    assert.notEqual(descriptionKey({ ...inputs, ...change }), key, JSON.stringify(change));
  }
  assert.equal(descriptionKey({ ...inputs, interpreter: join(home.path, "none") }), undefined);

  writeDescription(home.path, key, { tools: [{ name: "t" }], errors: [] });
  assert.deepEqual(readDescription(home.path, key), { tools: [{ name: "t" }], errors: [] });
  const other = descriptionKey({ ...inputs, digest: "sha256:2" })!;
  const dir = join(home.path, ".cache", "toolsets");
  await Deno.copyFile(join(dir, `${key}.json`), join(dir, `${other}.json`));
  assert.equal(readDescription(home.path, other), undefined, "copied under another key");
  await Deno.writeTextFile(join(dir, `${key}.json`), "{not json");
  assert.equal(readDescription(home.path, key), undefined);
});
