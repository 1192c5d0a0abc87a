/** The `skills init` scaffold: names, file plan, strict validity, never overwriting. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import { parseSkillMd } from "../../../src/core/manifest/manifest.ts";
import { inspectSkillDir } from "../../../src/runtime/catalog/loader.ts";
import {
  planScaffold,
  scaffoldName,
  writeScaffold,
} from "../../../src/runtime/authoring/scaffold.ts";
import { tempDir } from "../../helpers/cli.ts";

const nameCases: [string, string | "invalid_name"][] = [
  ["demo", "demo"],
  ["weather-report", "weather-report"],
  ["My_Skill", "my-skill"],
  ["3d", "3d"],
  ["../etc", "invalid_name"],
  ["a b", "invalid_name"],
  ["a--b", "invalid_name"],
  ["-demo", "invalid_name"],
  ["demo-", "invalid_name"],
  ["", "invalid_name"],
  ["x".repeat(65), "invalid_name"],
];

for (const [input, expected] of nameCases) {
  Deno.test(`scaffoldName() maps ${JSON.stringify(input)} to ${expected}`, () => {
    if (expected === "invalid_name") {
      assert.throws(
        () => scaffoldName(input),
        (e) => e instanceof SkillError && e.code === "invalid_name",
      );
    } else assert.equal(scaffoldName(input), expected);
  });
}

Deno.test("planScaffold() without a toolset writes SKILL.md, one script and .gitignore", () => {
  const plan = planScaffold("my-skill");
  assert.deepEqual(plan.files.map((f) => f.path), [
    "SKILL.md",
    "scripts/my_skill.py",
    ".gitignore",
  ]);
  assert.equal(plan.script, "my_skill.py");
  assert.equal(plan.toolset, undefined);
  const script = plan.files[1]!;
  assert.equal(script.executable, true);
  assert.match(script.content, /^#!\/usr\/bin\/env python3\n# \/\/\/ script\n/);
  assert.match(script.content, /# dependencies = \[\]\n# \/\/\/\n/);
});

Deno.test("planScaffold() SKILL.md passes the strict spec rules and names its script", async () => {
  for (const withToolset of [false, true]) {
    const plan = planScaffold("my-skill", { withToolset });
    const md = plan.files.find((f) => f.path === "SKILL.md")!.content;
    const parsed = await parseSkillMd(new TextEncoder().encode(md), "SKILL.md", {
      strict: true,
      dirName: "my-skill",
    });
    assert.deepEqual(parsed.diagnostics, []);
    assert.equal(parsed.manifest?.name, "my-skill");
    assert.match(parsed.body, /skills run my-skill my_skill --name Ada --json/);
    assert.deepEqual(
      parsed.manifest?.toolsets,
      withToolset ? ["toolsets.my_skill:MySkillTools"] : [],
    );
  }
});

Deno.test("planScaffold() with a toolset adds the class, its unittest and documents the tool", () => {
  const plan = planScaffold("3d-print", { withToolset: true });
  assert.equal(plan.toolset, "toolsets.skill_3d_print:Skill3dPrintTools");
  const paths = plan.files.map((f) => f.path);
  assert.ok(paths.includes("toolsets/__init__.py"));
  assert.match(
    plan.files.find((f) => f.path === "toolsets/skill_3d_print.py")!.content,
    /^class Skill3dPrintTools:$/m,
  );
  assert.match(
    plan.files.find((f) => f.path === "tests/test_skill_3d_print.py")!.content,
    /from toolsets\.skill_3d_print import Skill3dPrintTools/,
  );
  assert.match(plan.files[0]!.content, /`3d_print__greet\(name, excited=false\)`/);
});

Deno.test("writeScaffold() creates a skill that inspectSkillDir() accepts strictly", async () => {
  await using dir = await tempDir();
  const path = await writeScaffold(dir.path, planScaffold("demo", { withToolset: true }));
  assert.equal(path, join(dir.path, "demo"));
  const result = await inspectSkillDir(path, { strict: true });
  assert.deepEqual(result.diagnostics.filter((d) => d.level === "error"), []);
  assert.deepEqual(result.record?.scripts.map((s) => s.file), ["demo.py"]);
  const mode = (await Deno.stat(join(path, "scripts", "demo.py"))).mode! & 0o777;
  assert.equal(mode, 0o755);
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o755);
  // nothing else was left next to it
  const siblings = [];
  for await (const entry of Deno.readDir(dir.path)) siblings.push(entry.name);
  assert.deepEqual(siblings, ["demo"]);
});

Deno.test("writeScaffold() refuses an existing directory and leaves it untouched", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "demo"));
  await Deno.writeTextFile(join(dir.path, "demo", "mine.txt"), "keep");
  await assert.rejects(
    writeScaffold(dir.path, planScaffold("demo")),
    (e) => e instanceof SkillError && e.code === "conflict" && /already exists/.test(e.message),
  );
  const entries = [];
  for await (const entry of Deno.readDir(join(dir.path, "demo"))) entries.push(entry.name);
  assert.deepEqual(entries, ["mine.txt"]);
  const siblings = [];
  for await (const entry of Deno.readDir(dir.path)) siblings.push(entry.name);
  assert.deepEqual(siblings, ["demo"]);
});

Deno.test("writeScaffold() refuses a missing parent directory with not_found", async () => {
  await using dir = await tempDir();
  await assert.rejects(
    writeScaffold(join(dir.path, "nope"), planScaffold("demo")),
    (e) => e instanceof SkillError && e.code === "not_found",
  );
});
