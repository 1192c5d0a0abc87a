import assert from "node:assert/strict";
import { join } from "node:path";
import { findSkill, loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import {
  envelopeFrom,
  hostLaunchPlan,
  parseDescription,
  ToolsetHost,
  toolsetHostPath,
} from "../../../src/runtime/exec/toolset_host.ts";
import { tempDir } from "../../helpers/cli.ts";
import {
  installLimited,
  installSkill,
  LIMITED_TOOLSET,
  skillMd,
} from "../../helpers/installed_skills.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

Deno.test("hostLaunchPlan() runs the embedded host with plain python and an argv array", () => {
  const skill = { dir: "/s/hello", manifest: { toolsets: ["toolsets.hello:HelloExtended"] } };
  const plan = hostLaunchPlan(
    "/h/.core/toolset_host-x.py",
    skill as never,
    { PATH: "/nonexistent" },
    "linux",
  );
  assert.deepEqual(plan, {
    command: "python3",
    args: ["-B", "-s", "/h/.core/toolset_host-x.py", "/s/hello", "toolsets.hello:HelloExtended"],
    launcher: "python3",
  });
  // The interpreter is an absolute path from PATH's absolute entries, never the cwd's.
  const found = hostLaunchPlan("/h", skill as never, ENV, "linux").command;
  assert.ok(found.startsWith("/") && found.endsWith("python3"), found);
  assert.equal(hostLaunchPlan("/h", skill as never, { PATH: ".:bin" }, "linux").command, "python3");
  assert.equal(hostLaunchPlan("/h", skill as never, { SKILLS_PYTHON: "/py" }).command, "/py");
  assert.equal(hostLaunchPlan("/h", skill as never, {}, "windows").command, "python");
});

Deno.test("parseDescription() keeps well-formed tools and reports load errors", () => {
  const parsed = parseDescription({
    tools: [
      { name: "a", description: "A.", input_schema: { type: "object", properties: {} } },
      { name: 3 },
      "junk",
      { name: "b" },
    ],
    errors: [{ toolset: "x:Y", message: "boom" }, 7],
  });
  assert.deepEqual(parsed.methods.map((m) => m.name), ["a", "b"]);
  assert.deepEqual(parsed.methods[1]!.inputSchema, { type: "object", properties: {} });
  assert.deepEqual(parsed.errors, [{ toolset: "x:Y", message: "boom" }]);
});

Deno.test("envelopeFrom() rejects malformed envelopes from the host", () => {
  assert.equal(envelopeFrom({ envelope: { success: "yes" } }, "t").success, false);
  assert.deepEqual(envelopeFrom({ envelope: { success: false } }, "t"), {
    success: false,
    error: "execution_failed",
    message: "",
  });
  assert.deepEqual(envelopeFrom({ envelope: { success: true, result: 1, message: "m" } }, "t"), {
    success: true,
    result: 1,
    message: "m",
  });
});

Deno.test("envelopeFrom() says where a host reply is malformed, and passes a toolset's own code", () => {
  assert.deepEqual(envelopeFrom({ envelope: { success: "yes" } }, "t"), {
    success: false,
    error: "parse_error",
    message:
      "Tool t returned a malformed envelope (envelope.success: expected boolean, got string)",
  });
  assert.deepEqual(envelopeFrom({}, "t"), {
    success: false,
    error: "parse_error",
    message: "Tool t returned a malformed envelope (envelope: expected object, got nothing)",
  });
  assert.deepEqual(
    envelopeFrom(
      { envelope: { success: false, error: "unsupported_language", message: "m" } },
      "t",
    ),
    { success: false, error: "unsupported_language", message: "m" },
  );
});

Deno.test("ToolsetHost runs hello-extended's toolset and returns its envelopes", async () => {
  await using home = await tempDir();
  const catalog = await loadCatalog(home.path);
  const host = await ToolsetHost.start(findSkill(catalog, "hello-extended"), {
    home: home.path,
    env: ENV,
  });
  try {
    assert.deepEqual(host.methods.map((m) => m.name), ["greet_in_language", "greet_multiple"]);
    assert.deepEqual(host.errors, []);
    const schema = host.methods[0]!.inputSchema as { required: string[] };
    assert.deepEqual(schema.required, ["name"]);
    assert.deepEqual(await host.call("greet_in_language", { name: "Ada", language: "fr" }), {
      success: true,
      result: "Bonjour, Ada!",
      message: "Greeted Ada in French",
    });
    const unsupported = await host.call("greet_in_language", { name: "Ada", language: "xx" });
    assert.equal(unsupported.success, false);
    assert.equal(!unsupported.success && unsupported.error, "unsupported_language");
    const missing = await host.call("nope", {});
    assert.equal(!missing.success && missing.error, "not_found");
    // The host file is materialised once under .core, content-addressed.
    assert.ok((await Deno.stat(toolsetHostPath(home.path))).isFile);
  } finally {
    await host.close();
  }
});

Deno.test("ToolsetHost skips a toolset that fails to import and keeps the others", async () => {
  await using home = await tempDir();
  await installLimited(home.path);
  const catalog = await loadCatalog(home.path);
  const logs: string[] = [];
  const host = await ToolsetHost.start(findSkill(catalog, "limited"), {
    home: home.path,
    env: ENV,
    log: (m) => logs.push(m),
  });
  try {
    assert.deepEqual(host.methods.map((m) => m.name), ["ping", "sleep", "crash", "env"]);
    assert.equal(host.errors.length, 1);
    assert.equal(host.errors[0]!.toolset, "tools.broken:Broken");
    assert.match(host.errors[0]!.message, /module_that_does_not_exist/);
    assert.ok(logs.some((l) => l.includes("tools.broken:Broken")));
    assert.equal((await host.call("ping", { text: "hi" })).success, true);
  } finally {
    await host.close();
  }
});

Deno.test("ToolsetHost passes only allowlisted environment variables", async () => {
  await using home = await tempDir();
  await installLimited(home.path, "limited__*", ["permissions:", "  env:", "    - LIMITED_*"]);
  const catalog = await loadCatalog(home.path);
  const host = await ToolsetHost.start(findSkill(catalog, "limited"), {
    home: home.path,
    env: { ...ENV, LIMITED_TOKEN: "yes", SECRET_KEY: "no" },
  });
  try {
    assert.equal(
      (await host.call("env", { name: "LIMITED_TOKEN" }) as { result: unknown }).result,
      "yes",
    );
    assert.equal(
      (await host.call("env", { name: "SECRET_KEY" }) as { result: unknown }).result,
      null,
    );
  } finally {
    await host.close();
  }
});

Deno.test("ToolsetHost kills a call that times out and restarts on the next call", {
  ignore: SKIP_SLOW,
}, async () => {
  await using home = await tempDir();
  await installLimited(home.path);
  const catalog = await loadCatalog(home.path);
  const host = await ToolsetHost.start(findSkill(catalog, "limited"), {
    home: home.path,
    env: ENV,
    timeoutMs: 1500,
  });
  try {
    const started = performance.now();
    const slow = await host.call("sleep", { seconds: 30 });
    assert.equal(!slow.success && slow.error, "timeout");
    assert.ok(performance.now() - started < 10_000);
    assert.deepEqual(await host.call("ping", {}), {
      success: true,
      result: "pong",
      message: "ping completed",
    });
  } finally {
    await host.close();
  }
});

Deno.test("ToolsetHost cancels a call on abort and survives a crashed host", async () => {
  await using home = await tempDir();
  await installLimited(home.path);
  const catalog = await loadCatalog(home.path);
  const host = await ToolsetHost.start(findSkill(catalog, "limited"), {
    home: home.path,
    env: ENV,
  });
  try {
    const controller = new AbortController();
    const pending = host.call("sleep", { seconds: 30 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const cancelled = await pending;
    assert.equal(!cancelled.success && cancelled.error, "cancelled");

    const crashed = await host.call("crash", {});
    assert.equal(!crashed.success && crashed.error, "execution_failed");
    assert.match(crashed.message, /exited/);
    assert.equal(
      (await host.call("ping", { text: "again" }) as { result: unknown }).result,
      "again",
    );
  } finally {
    await host.close();
  }
});

Deno.test("ToolsetHost refuses oversized arguments without starting anything", async () => {
  await using home = await tempDir();
  await installLimited(home.path);
  const catalog = await loadCatalog(home.path);
  const host = await ToolsetHost.start(findSkill(catalog, "limited"), {
    home: home.path,
    env: ENV,
  });
  try {
    const big = await host.call("ping", { text: "x".repeat(70 * 1024) });
    assert.equal(!big.success && big.error, "args_too_large");
  } finally {
    await host.close();
  }
});

Deno.test("ToolsetHost will not start for an untrusted or modified skill", async () => {
  await using home = await tempDir();
  const files = {
    "SKILL.md": skillMd("shady", ["toolsets:", "  - tools.limited:Limited"], "# Shady"),
    "tools/limited.py": LIMITED_TOOLSET,
  };
  await installSkill(home.path, "shady", files, { trusted: false });
  const dir = await installSkill(home.path, "changed", {
    ...files,
    "SKILL.md": skillMd("changed", ["toolsets:", "  - tools.limited:Limited"], "# Changed"),
  });
  await Deno.writeTextFile(join(dir, "tools", "limited.py"), `${LIMITED_TOOLSET}\n# edited\n`);
  const catalog = await loadCatalog(home.path);
  await assert.rejects(
    ToolsetHost.start(findSkill(catalog, "shady"), { home: home.path, env: ENV }),
    (error: Error & { code?: string }) => error.code === "untrusted",
  );
  await assert.rejects(
    ToolsetHost.start(findSkill(catalog, "changed"), { home: home.path, env: ENV }),
    (error: Error & { code?: string }) => error.code === "integrity_mismatch",
  );
});
