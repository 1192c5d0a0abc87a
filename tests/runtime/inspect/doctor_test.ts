/**
 * `skills check`'s workflow (runtime/inspect: doctor, checks, skill_states, sandbox_report,
 * project_report), called directly on a real home and a real git project: a skill whose files
 * changed since it was trusted makes the report unhealthy with its reason and fix, a skill
 * never trusted is fine, an untrusted project skill is a note, an unreadable lockfile is an
 * error, and the sandbox part says what policy mode does not enforce.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { examine } from "../../../src/runtime/inspect/doctor.ts";
import { CHECKS } from "../../../src/runtime/inspect/checks.ts";
import { skillsCheck } from "../../../src/runtime/inspect/skill_states.ts";
import { sandboxJson, sandboxReport } from "../../../src/runtime/inspect/sandbox_report.ts";
import { projectJson, projectReport } from "../../../src/runtime/inspect/project_report.ts";
import { openSession } from "../../../src/runtime/catalog/catalog_session.ts";
import { tempDir } from "../../helpers/cli.ts";
import { memoryContext } from "../../helpers/context.ts";
import { installSkill, skillMd } from "../../helpers/installed_skills.ts";
import { git } from "../../fixtures/git_repos.ts";

/** A home with `pdf` (trusted, then changed) and `docx` (never trusted); a project with `stray`. */
async function setUp(dir: string) {
  const home = join(dir, "home");
  const root = join(dir, "app");
  await Deno.mkdir(join(root, ".agents", "skills", "stray"), { recursive: true });
  await git(root, ["init", "--quiet"]);
  await Deno.writeTextFile(join(root, ".agents/skills/stray/SKILL.md"), skillMd("stray", [], "B."));
  const pdf = { "SKILL.md": skillMd("pdf", [], "B."), "scripts/run.py": "print(1)\n" };
  await installSkill(home, "pdf", pdf, { trusted: true });
  await installSkill(home, "docx", { "SKILL.md": skillMd("docx", [], "B.") }, { trusted: false });
  await Deno.writeTextFile(join(home, "pdf", "scripts", "run.py"), "print(2)\n");
  const env = { SKILLS_HOME: home, HOME: dir, PATH: Deno.env.get("PATH")!, SKILLS_SANDBOX: "off" };
  return { home, root, ctx: memoryContext(env, root) };
}

Deno.test("examine: changed files since trust make the report unhealthy, with the reason and fix", async () => {
  await using dir = await tempDir();
  const { ctx } = await setUp(dir.path);
  const report = await examine(ctx, { repair: false });
  assert.equal(report.healthy, false);
  assert.equal(report.json.healthy, false);
  const rows = report.json.skills as { name: string; status: string; reason: string | null }[];
  const row = (name: string) => rows.find((r) => r.name === name)!;
  assert.equal(row("pdf").status, "modified");
  assert.equal(row("pdf").reason, "files changed since it was trusted");
  assert.equal(row("docx").status, "ok", "a skill never trusted is not broken");
  for (const check of CHECKS) assert.ok(report.results[check.id] !== undefined, check.id);
});

Deno.test("skillsCheck: one row per skill of the session, the modified one with its fix", async () => {
  await using dir = await tempDir();
  const { ctx } = await setUp(dir.path);
  const { skills } = await skillsCheck(ctx, await openSession(ctx));
  const pdf = skills.find((s) => s.name === "pdf")!;
  assert.equal(pdf.fix, "review it (skills info pdf), then run `skills trust pdf`");
  assert.deepEqual(pdf.audit?.unaccepted, []);
  const stray = skills.find((s) => s.name === "stray")!;
  assert.deepEqual([stray.scope, stray.trusted, stray.status], ["project", false, "ok"]);
});

Deno.test("projectReport: an untrusted project skill is a note; an unreadable lockfile an error", async () => {
  await using dir = await tempDir();
  const { home, root, ctx } = await setUp(dir.path);
  const first = await projectReport(home, (await openSession(ctx)).catalog);
  assert.equal(first.healthy, true);
  const json = projectJson(first).project as { lockfile_state: string; drift: unknown[] };
  assert.equal(json.lockfile_state, "absent");
  assert.deepEqual(json.drift.map((d) => (d as { kind: string; name: string }).kind), [
    "untrusted",
  ]);

  await Deno.writeTextFile(join(root, "skills-lock.json"), "{ not json");
  const broken = await projectReport(home, (await openSession(ctx)).catalog);
  assert.equal(broken.healthy, false);
  assert.deepEqual(
    broken.shown?.drift.map((d) => [d.name, d.kind, d.severity])[0],
    ["skills-lock.json", "lockfile", "error"],
  );
});

Deno.test("sandboxReport: policy mode lists what it does not enforce; a bad setting is unusable", async () => {
  await using dir = await tempDir();
  const off = await sandboxReport({ SKILLS_SANDBOX: "off", PATH: "/usr/bin:/bin" }, dir.path);
  assert.deepEqual([off.mode, off.setting, off.usable], ["policy", "off", true]);
  const missing = (sandboxJson(off).sandbox as { missing: { id: string }[] }).missing;
  assert.ok(missing.some((m) => m.id === "hidden-home"), JSON.stringify(missing));
  const bad = await sandboxReport({ SKILLS_SANDBOX: "sometimes", PATH: "/usr/bin:/bin" }, dir.path);
  assert.deepEqual([bad.setting, bad.usable], ["invalid", false]);
  assert.match(bad.reason, /sometimes/);
});
