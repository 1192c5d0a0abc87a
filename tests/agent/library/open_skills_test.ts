/**
 * The library's contract in detail, in process and through mod.ts only: definitions are
 * checked when written, handlers' failures stay envelopes, stored skills keep the CLI's
 * trust rules, installed skills come from the skills home, and importing the library does
 * not load the CLI.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import {
  defineSkill,
  openSkills,
  SkillError,
  SkillManifestError,
  skillTool,
} from "../../../mod.ts";
import { installSkill, skillMd } from "../../helpers/installed_skills.ts";
import { tempDir } from "../../helpers/cli.ts";
import { localGraph } from "../../helpers/module_graph.ts";
import { writeTree } from "../../helpers/tree.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

function codeOf(error: unknown): string | undefined {
  return error instanceof SkillError ? error.code : undefined;
}

Deno.test("defineSkill() refuses a bad definition at once", () => {
  const ok = { name: "ok", description: "Fine.", body: "# Ok" };
  const handler = () => null;
  const bad: [string, unknown, RegExp][] = [
    ["name", { ...ok, name: "../up" }, /name/],
    ["description", { ...ok, description: " " }, /description/],
    ["body", { ...ok, body: undefined }, /body/],
    ["tool name", { ...ok, tools: [{ name: "a b", description: "d", handler }] }, /tool name/],
    [
      "duplicate",
      {
        ...ok,
        tools: [{ name: "a", description: "d", handler }, { name: "a", description: "d", handler }],
      },
      /two tools are named 'a'/,
    ],
    ["handler", { ...ok, tools: [{ name: "a", description: "d" }] }, /handler function/],
    [
      "schema",
      { ...ok, tools: [{ name: "a", description: "d", handler, inputSchema: 3 }] },
      /inputSchema/,
    ],
  ];
  for (const [what, definition, message] of bad) {
    assert.throws(
      () => defineSkill(definition as Parameters<typeof defineSkill>[0]),
      (error) => codeOf(error) === "invalid_manifest" && message.test((error as Error).message),
      what,
    );
  }
});

Deno.test("handlers get the caller's signal; throwing or returning non-JSON stays an envelope", async () => {
  let seen: AbortSignal | undefined;
  const skill = defineSkill({
    name: "probe",
    description: "Probes.",
    body: "# Probe",
    tools: [
      skillTool({
        name: "signal",
        description: "Reports its signal.",
        inputSchema: z.object({}),
        handler: (_input, { signal }) => {
          seen = signal;
          return { aborted: signal?.aborted ?? null };
        },
      }),
      skillTool({ name: "bigint", description: "Not JSON.", handler: () => 1n }),
      skillTool({
        name: "reject",
        description: "Rejects.",
        handler: () => Promise.reject(new TypeError("no such thing")),
      }),
    ],
  });
  await using skills = await openSkills({ skills: [skill], env: ENV, home: "/nonexistent" });
  await skills.callTool("activate_skill", { name: "probe" });
  const controller = new AbortController();
  const call = (tool: string) =>
    skills.callTool("call_skill_tool", { skill: "probe", tool }, { signal: controller.signal });
  assert.deepEqual((await call("signal")).success, true);
  assert.equal(seen, controller.signal);
  const bigint = await call("bigint");
  assert.equal(bigint.success ? "" : bigint.error, "execution_failed");
  const rejected = await call("reject");
  assert.ok(!rejected.success);
  assert.equal(rejected.error, "execution_failed");
  assert.match(rejected.message, /no such thing/);

  // The AI SDK shape: execute() is the same dispatcher.
  const tools = skills.tools();
  const output = await tools.call_skill_tool!.execute!(
    { skill: "probe", tool: "signal", input: {} },
    { toolCallId: "t1", messages: [], context: {} },
  );
  // No signal from the caller: the handler still gets one (docs/library.md), never aborted.
  assert.deepEqual(output, {
    success: true,
    result: { aborted: false },
    message: "Called tool 'signal' of skill 'probe'",
  });
  assert.ok(seen instanceof AbortSignal);
  assert.deepEqual(
    (await skills.callTool("call_skill_tool", { skill: "probe", tool: "signal" }))
      .success,
    true,
  );
  assert.equal(seen?.aborted, false);
});

Deno.test(
  "stored skills keep the CLI's trust rules: a path's script runs only with allowUntrusted",
  {
    ignore: Deno.build.os !== "linux",
  },
  async () => {
    await using dir = await tempDir("skills-library-");
    const skillDir = join(dir.path, "echoer");
    await writeTree(skillDir, {
      "SKILL.md": skillMd("echoer", [], "# Echo"),
      "scripts/echo.py": "import json, sys\nprint(json.dumps({'args': sys.argv[1:]}))\n",
    });
    const home = join(dir.path, "home");
    const run = { skill_name: "echoer", script_name: "echo", args: ["hi"], json: false };

    await using refused = await openSkills({ paths: [skillDir], env: ENV, home });
    const denied = await refused.callTool("script_run", run);
    assert.equal(denied.success ? "" : denied.error, "untrusted");
    // Opened by path, the skill is not installed: `skills trust` cannot help, the opt-in can.
    const hint = denied.success ? "" : denied.message;
    assert.match(hint, /allowUntrusted: true/);
    assert.doesNotMatch(hint, /skills trust/);

    await using opted = await openSkills({
      paths: [skillDir],
      env: ENV,
      home,
      allowUntrusted: true,
    });
    const ran = await opted.callTool("script_run", run);
    assert.ok(ran.success, JSON.stringify(ran));
    assert.match(JSON.stringify(ran.result), /hi/);
  },
);

Deno.test("installed: true serves the trusted installed skills; names pick any, unknown throws", async () => {
  await using dir = await tempDir("skills-library-");
  await installSkill(dir.path, "approved", { "SKILL.md": skillMd("approved", [], "# A") });
  await installSkill(dir.path, "pending", { "SKILL.md": skillMd("pending", [], "# P") }, {
    trusted: false,
  });
  await using all = await openSkills({ installed: true, env: ENV, home: dir.path });
  assert.match(all.systemPrompt, /<name>approved<\/name>/);
  assert.match(all.systemPrompt, /<name>hello-extended<\/name>/, "bundled skills are trusted");
  assert.doesNotMatch(all.systemPrompt, /pending/);

  await using named = await openSkills({ installed: ["pending"], env: ENV, home: dir.path });
  assert.match(named.systemPrompt, /<name>pending<\/name>/);
  assert.doesNotMatch(named.systemPrompt, /approved/);

  await assert.rejects(
    openSkills({ installed: ["missing"], env: ENV, home: dir.path }),
    (error) => codeOf(error) === "not_found",
  );
  await assert.rejects(
    openSkills({
      installed: ["approved"],
      skills: [defineSkill({ name: "approved", description: "Clash.", body: "" })],
      env: ENV,
      home: dir.path,
    }),
    (error) => codeOf(error) === "conflict",
  );
});

Deno.test("a directory of skills with one invalid SKILL.md throws SkillManifestError with its line", async () => {
  await using dir = await tempDir("skills-library-");
  await writeTree(dir.path, {
    "good/SKILL.md": skillMd("good", [], "# Good"),
    "bad/SKILL.md": "---\nname: bad\ndescription: 42\n---\n\nBody\n",
  });
  await assert.rejects(
    openSkills({ paths: [dir.path], env: ENV, home: "/nonexistent" }),
    (error) => {
      assert.ok(error instanceof SkillManifestError);
      assert.equal(error.line, 3);
      assert.equal(error.file, join(dir.path, "bad", "SKILL.md"));
      assert.match(error.message, /SKILL\.md:3: .*description/);
      return true;
    },
  );
});

Deno.test("importing mod.ts loads none of the CLI's modules", async () => {
  const local = await localGraph("mod.ts");
  assert.ok(local.includes("src/agent/surface/tools.ts"), "the graph is read");
  assert.deepEqual(
    local.filter((path) => path.startsWith("src/cli/") || path === "src/main.ts"),
    [],
  );
});

Deno.test("openSkills({ workspace }) runs scripts in that folder, which they may write", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const workspace = join(dir.path, "project");
  await Deno.mkdir(workspace);
  await Deno.chmod(workspace, 0o755);
  const { installRunnerSkill } = await import("../../helpers/install_fixture.ts");
  await installRunnerSkill(home, "workspace-lab");
  await using skills = await openSkills({
    installed: ["workspace-lab"],
    env: ENV,
    home,
    workspace,
  });
  const ran = await skills.callTool("script_run", {
    skill_name: "workspace-lab",
    script_name: "build_log",
  });
  assert.ok(ran.success, JSON.stringify(ran));
  assert.match(await Deno.readTextFile(join(workspace, "build.log")), /^build started in /);
});

Deno.test("openSkills({ reviewWorkspace }) is asked before a script's changes are applied", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const workspace = join(dir.path, "project");
  await Deno.mkdir(workspace);
  await Deno.chmod(workspace, 0o755);
  const { installRunnerSkill } = await import("../../helpers/install_fixture.ts");
  await installRunnerSkill(home, "workspace-lab");
  const asked: string[][] = [];
  let answer = false;
  await using skills = await openSkills({
    installed: ["workspace-lab"],
    env: ENV,
    home,
    workspace,
    reviewWorkspace: (plan) => {
      asked.push(plan.created);
      return Promise.resolve(answer);
    },
  });
  const run = { skill_name: "workspace-lab", script_name: "build_log" };
  const declined = await skills.callTool("script_run", run);
  assert.ok(declined.success, JSON.stringify(declined));
  await assert.rejects(Deno.lstat(join(workspace, "build.log")), Deno.errors.NotFound);
  answer = true;
  const applied = await skills.callTool("script_run", run);
  assert.ok(applied.success, JSON.stringify(applied));
  assert.match(await Deno.readTextFile(join(workspace, "build.log")), /^build started in /);
  assert.deepEqual(asked, [["build.log"], ["build.log"]]);
  // The model is told what changed, and only that.
  assert.deepEqual((applied as { receipt?: unknown }).receipt, {
    files: { created: ["build.log"] },
  });
});
