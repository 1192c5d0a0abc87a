/**
 * Every entry point that takes a skill name, script name or skill path refuses the hostile
 * corpus: CLI arguments, model tool calls, and read_skill_file. (MCP calls, `--name` and
 * `--skill` have their own files.) Nothing escapes: each gets `invalid_name` (or another
 * refusal code) or a usage error, and no file outside the skill is ever returned.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { createToolSurface } from "../../../src/agent/surface/tools.ts";
import { type Context, memoryOutput } from "../../../src/core/io.ts";
import { COMMANDS } from "../../../src/cli/registry/command_table.ts";
import { HOSTILE_NAMES, HOSTILE_PATHS } from "./hostile_names.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";

/** Refusal codes a hostile name or path may produce; success is never acceptable. */
const REFUSALS = new Set([
  "invalid_name",
  "invalid_arguments",
  "invalid_path",
  "not_found",
  "permission_denied",
  "binary_file",
]);

function testContext(home: string): Context {
  return {
    env: { SKILLS_HOME: home, HOME: home, PATH: Deno.env.get("PATH") ?? "" },
    cwd: home,
    stdout: memoryOutput(),
    stderr: memoryOutput(),
    isTty: false,
    stdoutIsTty: false,
    signal: new AbortController().signal,
    verbose: false,
    color: false,
    readLine: () => Promise.resolve(null),
  };
}

Deno.test(`the corpus holds at least 200 hostile names`, () => {
  assert.ok(HOSTILE_NAMES.length >= 200, String(HOSTILE_NAMES.length));
});

/** argv builders: where a command takes a skill (and script) name. */
const CLI_ENTRY_POINTS: [string, (name: string) => string[]][] = [
  ["info", (n) => ["--", n]],
  ["scripts", (n) => ["--", n]],
  ["run", (n) => ["--", n, "status"]],
  ["run (script name)", (n) => ["--", "kalshi-markets", n]],
  ["call", (n) => ["--", n, "greet_in_language"]],
  ["remove", (n) => ["--yes", "--", n]],
  ["trust", (n) => ["--yes", "--", n]],
  ["untrust", (n) => ["--", n]],
  ["update", (n) => ["--yes", "--", n]],
];

for (const [label, argv] of CLI_ENTRY_POINTS) {
  Deno.test(`skills ${label} refuses every hostile name with invalid_name or a usage error`, async () => {
    await using home = await tempDir();
    const command = label.split(" ")[0]!;
    const module = await COMMANDS[command]!.load();
    const registryBefore = await Deno.readTextFile(join(home.path, "registry.json")).catch(() =>
      null
    );
    for (const name of HOSTILE_NAMES) {
      const ctx = testContext(home.path);
      try {
        const options = module.parse(argv(name));
        const code = await module.run(options, ctx);
        assert.fail(`${label} ${JSON.stringify(name)} exited ${code} instead of refusing`);
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
        assert.ok(error instanceof SkillError, `${label} ${JSON.stringify(name)}: ${error}`);
        // A script may be nested (`office/unpack`) or at the skill root (`./find-polluter.sh`):
        // a plain path of typeable parts, `./` before it or not, is a script name like any
        // other, refused only because no such script exists.
        const nestedScript = label === "run (script name)" && error.code === "not_found" &&
          /^(?:\.\/)?[A-Za-z0-9][\w-]*(\/[A-Za-z0-9][\w-]*)*$/.test(name);
        assert.ok(
          error.code === "invalid_name" || error.code === "usage" || nestedScript,
          `${label} ${JSON.stringify(name)}: ${error.code} ${error.message}`,
        );
      }
    }
    const registryAfter = await Deno.readTextFile(join(home.path, "registry.json")).catch(() =>
      null
    );
    assert.equal(registryAfter, registryBefore, "the registry changed");
  });
}

Deno.test("the spawned CLI refuses a sample of hostile names with exit 2 and invalid_name", async () => {
  await using home = await tempDir();
  const sample = HOSTILE_NAMES.filter((_, i) => i % 10 === 0).filter((n) => !n.includes("\0"));
  for (const name of sample) {
    const result = await runCli(["run", "--json", "--", name, "status"], {
      env: { SKILLS_HOME: home.path },
    });
    assert.equal(result.code, 2, `${JSON.stringify(name)}: ${result.stderr}`);
    assert.equal(JSON.parse(result.stdout).error, "invalid_name", JSON.stringify(name));
  }
});

Deno.test("model tool calls refuse every hostile skill and script name", async () => {
  await using home = await tempDir();
  const catalog = await loadCatalog(home.path);
  const surface = await createToolSurface({
    home: home.path,
    catalog,
    active: new Set(["kalshi-markets", "hello-extended"]),
    env: { PATH: Deno.env.get("PATH") ?? "" },
  });
  try {
    for (const name of HOSTILE_NAMES) {
      const calls: [string, Record<string, unknown>][] = [
        ["activate_skill", { name }],
        ["read_skill_file", { skill: name, path: "SKILL.md" }],
        ["script_list", { skill_name: name }],
        ["script_help", { skill_name: name, script_name: "status" }],
        ["script_run", { skill_name: name, script_name: "status", args: [] }],
        ["script_help", { skill_name: "kalshi-markets", script_name: name }],
        ["script_run", { skill_name: "kalshi-markets", script_name: name }],
      ];
      for (const [tool, args] of calls) {
        // An empty skill_name means "all active skills" for script_list: nothing escapes.
        if (tool === "script_list" && name === "") continue;
        const result = await surface.callTool(tool, args);
        assert.equal(result.success, false, `${tool} ${JSON.stringify(args)} succeeded`);
        if (!result.success) {
          assert.ok(REFUSALS.has(result.error), `${tool} ${JSON.stringify(args)}: ${result.error}`);
        }
      }
    }
  } finally {
    await surface.close();
  }
});

Deno.test("read_skill_file never returns a file outside the skill for any hostile path", async () => {
  await using home = await tempDir();
  const catalog = await loadCatalog(home.path);
  const surface = await createToolSurface({
    home: home.path,
    catalog,
    active: new Set(["kalshi-markets"]),
    env: {},
  });
  // A file the traversals would reach if containment failed.
  await Deno.writeTextFile(join(home.path, "registry.json"), '{"secret": "outside"}');
  try {
    for (const path of HOSTILE_PATHS) {
      const result = await surface.callTool("read_skill_file", { skill: "kalshi-markets", path });
      assert.equal(result.success, false, `path ${JSON.stringify(path)} was read`);
      if (!result.success) {
        assert.ok(REFUSALS.has(result.error), `${JSON.stringify(path)}: ${result.error}`);
      }
    }
    const ok = await surface.callTool("read_skill_file", {
      skill: "kalshi-markets",
      path: "SKILL.md",
    });
    assert.equal(ok.success, true);
  } finally {
    await surface.close();
  }
});
