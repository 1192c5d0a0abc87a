/**
 * Layouts published skills use, reproduced in fixtures written here: Claude plugin
 * marketplaces (skills four levels down, listed by manifests), a plugin that lists its own
 * skills, and a lower-case skill.md.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

/** What `skills add <repo> --list --json` finds (it must exit 0). */
async function listed(repo: string, env: Record<string, string>) {
  const list = await runCli(["add", repo, "--list", "--json"], { env });
  assert.equal(list.code, 0, list.stderr);
  return JSON.parse(list.stdout) as {
    skills: { path: string; valid: boolean; warnings: string[] }[];
  };
}

const md = (name: string) => `---\nname: ${name}\ndescription: Skill ${name}.\n---\n\nBody.\n`;

Deno.test("skills add finds skills that Claude plugin manifests list, and skill.md", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "market");
  const files: Record<string, string> = {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "fixture-market",
      plugins: [
        { name: "writer", source: "./plugins/writer" },
        { name: "tools", source: "./plugins/tools" },
        { name: "hostile", source: "./", skills: ["../../outside", "/etc"] },
      ],
    }),
    "plugins/writer/skills/drafting/SKILL.md": md("drafting"),
    "plugins/writer/skills/editing/SKILL.md": md("editing"),
    "plugins/tools/.claude-plugin/plugin.json": JSON.stringify({
      name: "tools",
      skills: ["./custom/linting"],
    }),
    "plugins/tools/custom/linting/SKILL.md": md("linting"),
    "plugins/tools/skills/not-listed/SKILL.md": md("not-listed"),
    "lower/skill.md": md("lower"),
  };
  await writeTree(repo, files);
  const env = { SKILLS_HOME: join(dir.path, "home") };
  const list = await listed(repo, env);
  const found = list.skills.map((s: { path: string }) => s.path).sort();
  assert.deepEqual(found, [
    "lower",
    "plugins/tools/custom/linting",
    "plugins/writer/skills/drafting",
    "plugins/writer/skills/editing",
  ]);
  const lower = list.skills.find((s: { path: string }) => s.path === "lower");
  assert.ok(lower, "lower/skill.md is listed");
  assert.equal(lower.valid, true);
  assert.match(
    lower.warnings.join("\n"),
    /named skill\.md; the Agent Skills specification names it SKILL\.md/,
  );

  const add = await runCli(["add", repo, "--skill", "lower", "--yes"], { env });
  assert.equal(add.code, 0, add.stderr);
  const run = await runCli(["info", "lower", "--json"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).description, "Skill lower.");
});

Deno.test("a plugin that lists its skills by their SKILL.md files yields their folders; a listed file is no skill", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "loaf");
  await writeTree(repo, {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "fixture-loaf",
      plugins: [{ name: "loaf", source: "./plugins/loaf" }],
    }),
    // levifig's layout: the plugin names each skill by its manifest file.
    "plugins/loaf/.claude-plugin/plugin.json": JSON.stringify({
      name: "loaf",
      skills: ["./skills/go-development/SKILL.md", "./skills/foundations/skill.md", "./README.md"],
    }),
    "plugins/loaf/skills/go-development/SKILL.md": md("go-development"),
    "plugins/loaf/skills/foundations/SKILL.md": md("foundations"),
    "plugins/loaf/README.md": "# Loaf\n",
  });
  const env = { SKILLS_HOME: join(dir.path, "home") };
  const found = (await listed(repo, env)).skills.map((s) => s.path).sort();
  assert.deepEqual(found, [
    "plugins/loaf/skills/foundations",
    "plugins/loaf/skills/go-development",
  ]);
  const add = await runCli(["add", repo, "--skill", "*", "--yes", "--json"], { env });
  assert.equal(add.code, 0, add.stderr);
  const out = JSON.parse(add.stdout);
  assert.deepEqual(
    out.installed.map((s: { name: string }) => s.name).sort(),
    ["foundations", "go-development"],
  );
});

Deno.test("a SKILL.md at the top without front matter is no manifest: the skills below are found; alone, it is refused", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "log");
  await writeTree(repo, {
    // Ryukijano's layout: a research log named SKILL.md at the top, skills in folders below.
    "SKILL.md": "# Research log\n\n---\n\nNotes.\n",
    "science_skills/biology/protein-fold/SKILL.md": md("protein-fold"),
    "science_skills/chemistry/molecule-draw/SKILL.md": md("molecule-draw"),
  });
  const env = { SKILLS_HOME: join(dir.path, "home") };
  const found = (await listed(repo, env)).skills.map((s) => s.path).sort();
  assert.deepEqual(found, [
    "science_skills/biology/protein-fold",
    "science_skills/chemistry/molecule-draw",
  ]);
  // A folder that holds nothing else is still read as one skill, and refused with its error.
  const lone = join(dir.path, "lone");
  await writeTree(lone, { "SKILL.md": "# Not a manifest\n" });
  const add = await runCli(["add", lone, "--yes"], { env });
  assert.equal(add.code, 1, add.stdout);
  assert.match(add.stderr, /SKILL\.md must start with YAML front matter/);
});

Deno.test("a monorepo's skills four and five levels down are found when none is nearer, as the peer finds them", async () => {
  await using dir = await tempDir();
  const env = { SKILLS_HOME: join(dir.path, "home") };
  const mono = join(dir.path, "mono");
  await writeTree(mono, {
    "packages/app/skills/release/SKILL.md": md("release"),
    "packages/tools/src/skills/lint/SKILL.md": md("lint"),
    "packages/too/deep/for/the/search/SKILL.md": md("too-deep"),
    "node_modules/dep/skills/vendored/SKILL.md": md("vendored"),
  });
  const found = (await listed(mono, env)).skills.map((s) => s.path).sort();
  assert.deepEqual(found, ["packages/app/skills/release", "packages/tools/src/skills/lint"]);
  // A nearer skill is what the repository offers: the deeper ones are not looked for.
  const mixed = join(dir.path, "mixed");
  await writeTree(mixed, {
    "skills/near/SKILL.md": md("near"),
    "packages/app/skills/release/SKILL.md": md("release"),
  });
  assert.deepEqual((await listed(mixed, env)).skills.map((s) => s.path), ["skills/near"]);
});

Deno.test("a marketplace whose plugins sit under metadata.pluginRoot yields their skills", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "rooted");
  const files: Record<string, string> = {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "rooted-market",
      metadata: { pluginRoot: "./plugins" },
      plugins: [{ name: "formatter", source: "formatter" }],
    }),
    "plugins/formatter/skills/prettify/SKILL.md": md("prettify"),
  };
  await writeTree(repo, files);
  const env = { SKILLS_HOME: join(dir.path, "home") };
  const list = await listed(repo, env);
  const found = list.skills.map((s: { path: string }) => s.path);
  assert.deepEqual(found, ["plugins/formatter/skills/prettify"]);
});

Deno.test("plugins whose skill folders link into .claude/skills/ (pluginRoot written into each source) yield the real folders' skills", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "linked");
  // As mrgoonie/claudekit-skills lays it out: the skills live in .claude/skills/, each plugin's
  // skills/ entry is a symlink there, and the marketplace writes its pluginRoot into every source.
  await writeTree(repo, {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "linked-market",
      metadata: { pluginRoot: "./plugins" },
      plugins: ["docs", "debug", "escape"].map((n) => ({ name: n, source: `./plugins/${n}` })),
    }),
    ...Object.fromEntries(
      [["docs", "document-skills"], ["debug", "debugging"], ["escape", "outside"]].map((
        [n, folder],
      ) => [
        `plugins/${n}/.claude-plugin/plugin.json`,
        JSON.stringify({ skills: [`./skills/${folder}`] }),
      ]),
    ),
    ".claude/skills/document-skills/docx/SKILL.md": md("docx"),
    ".claude/skills/document-skills/pdf/SKILL.md": md("pdf"),
    // A skill whose subfolders hold skills of their own: they are its content, not skills.
    ".claude/skills/debugging/SKILL.md": md("debugging"),
    ".claude/skills/debugging/root-cause/SKILL.md": md("root-cause"),
  });
  await writeTree(join(dir.path, "elsewhere"), { "stolen/SKILL.md": md("stolen") });
  for (
    const [n, target] of [
      ["docs", "../../../.claude/skills/document-skills"],
      ["debug", "../../../.claude/skills/debugging"],
      ["escape", "../../../../elsewhere"],
    ]
  ) {
    await Deno.mkdir(join(repo, "plugins", n!, "skills"));
    await Deno.symlink(
      target!,
      join(
        repo,
        "plugins",
        n!,
        "skills",
        n === "docs" ? "document-skills" : n === "debug" ? "debugging" : "outside",
      ),
    );
  }
  const list = await listed(repo, { SKILLS_HOME: join(dir.path, "home") });
  assert.deepEqual(list.skills.map((s) => s.path), [
    ".claude/skills/debugging",
    ".claude/skills/document-skills/docx",
    ".claude/skills/document-skills/pdf",
  ]);

  const env = { SKILLS_HOME: join(dir.path, "home") };
  const add = await runCli(["add", repo, "--skill", "*", "--yes", "--json"], { env });
  assert.equal(add.code, 0, add.stderr);
  assert.deepEqual(
    JSON.parse(add.stdout).installed.map((i: { name: string }) => i.name).sort(),
    ["debugging", "docx", "pdf"],
  );
});

Deno.test("skills add finds the skills of Codex plugins: .agents/plugins/marketplace.json and .codex-plugin/plugin.json", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "codex-market");
  const files: Record<string, string> = {
    ".agents/plugins/marketplace.json": JSON.stringify({
      name: "fixture-codex",
      plugins: [
        { name: "tracker", source: { source: "local", path: "./plugins/tracker" } },
        { name: "docs", source: { source: "local", path: "./plugins/docs" } },
        { name: "remote", source: { source: "url", url: "https://example.com/p.git" } },
        { name: "escape", source: { source: "local", path: "../../elsewhere" } },
      ],
    }),
    // Codex names a folder of skills.
    "plugins/tracker/.codex-plugin/plugin.json": JSON.stringify({
      name: "tracker",
      skills: "./skills/",
    }),
    "plugins/tracker/skills/triage/SKILL.md": md("triage"),
    "plugins/tracker/skills/report/SKILL.md": md("report"),
    "plugins/docs/.codex-plugin/plugin.json": JSON.stringify({ name: "docs", skills: "./guides/" }),
    "plugins/docs/guides/style/SKILL.md": md("style"),
    "plugins/docs/skills/unlisted/SKILL.md": md("unlisted"),
  };
  await writeTree(repo, files);
  const env = { SKILLS_HOME: join(dir.path, "home") };
  const list = await listed(repo, env);
  const found = list.skills.map((s: { path: string }) => s.path).sort();
  assert.deepEqual(found, [
    "plugins/docs/guides/style",
    "plugins/tracker/skills/report",
    "plugins/tracker/skills/triage",
  ]);
  const add = await runCli(["add", repo, "--skill", "triage", "--yes"], { env });
  assert.equal(add.code, 0, add.stderr);
});

Deno.test("every file a skill ships is offered: top-level forms.md in info, activation and MCP", async () => {
  await using dir = await tempDir();
  const skill = join(dir.path, "pdf");
  const files: Record<string, string> = {
    "SKILL.md":
      "---\nname: pdf\ndescription: Fill PDF forms.\n---\n\nRead forms.md and reference.md first.\n",
    "forms.md": "# Forms\n",
    "reference.md": "# Reference\n",
    "templates/letter.docx": "PK\u0003\u0004binary",
    "references/guide.md": "# Guide\n",
    ".hidden": "x\n",
  };
  await writeTree(skill, files);
  const env = { SKILLS_HOME: join(dir.path, "home") };
  assert.equal((await runCli(["add", skill, "--yes"], { env })).code, 0);

  const info = JSON.parse((await runCli(["info", "pdf", "--json"], { env })).stdout);
  assert.deepEqual(info.files, ["forms.md", "reference.md", "templates/letter.docx"]);
  assert.deepEqual(info.references, ["references/guide.md"]);

  // What activation tells the model, through the real surface.
  const { loadCatalog } = await import("../../../src/runtime/catalog/catalog.ts");
  const { createToolSurface } = await import("../../../src/agent/surface/tools.ts");
  const surface = await createToolSurface({
    home: env.SKILLS_HOME,
    catalog: await loadCatalog(env.SKILLS_HOME),
    active: new Set(["pdf"]),
    env: { PATH: Deno.env.get("PATH") ?? "" },
  });
  try {
    const activated = await surface.callTool("activate_skill", { name: "pdf" });
    assert.match(
      String(activated.success && activated.result),
      /other files \(read_skill_file\): forms\.md, reference\.md, templates\/letter\.docx \(binary\)/,
    );
    const read = await surface.callTool("read_skill_file", { skill: "pdf", path: "forms.md" });
    assert.ok(read.success);
    assert.equal(read.result, "# Forms\n");
  } finally {
    await surface.close();
  }
});

Deno.test("a SKILL.md left in the top skills/ folder hides none of the skill folders beside it", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "collection");
  // grahama1970/agent-skills: skills/ holds 85 skill folders, and one skill's SKILL.md and
  // script sit in skills/ itself. Elsewhere a skill's subfolders stay its content.
  await writeTree(repo, {
    "skills/SKILL.md": md("transcripts"),
    "skills/transcripts.py": "print('hi')\n",
    "skills/arxiv/SKILL.md": md("arxiv"),
    "skills/fetcher/SKILL.md": md("fetcher"),
    "skills/fetcher/nested/SKILL.md": md("nested"),
    "tools/debugging/SKILL.md": md("debugging"),
    "tools/debugging/root-cause/SKILL.md": md("root-cause"),
  });
  const list = await listed(repo, { SKILLS_HOME: join(dir.path, "home") });
  assert.deepEqual(list.skills.map((s) => s.path), [
    "skills",
    "skills/arxiv",
    "skills/fetcher",
    "tools/debugging",
  ]);
});

Deno.test("a tree with no plugin manifest, top skills/ or agent folder is searched five levels deep, one with them three", async () => {
  await using dir = await tempDir();
  // peterbamuhigire/srs-skills: <phase>/<area>/<step>/<skill>/ beside <phase>/<skill>/.
  const phases = join(dir.path, "phases");
  await writeTree(phases, {
    "01-vision/prd/SKILL.md": md("prd"),
    "02-requirements/fundamentals/during/05-data-model/SKILL.md": md("data-model"),
  });
  const env = { SKILLS_HOME: join(dir.path, "home") };
  assert.deepEqual((await listed(phases, env)).skills.map((s) => s.path), [
    "01-vision/prd",
    "02-requirements/fundamentals/during/05-data-model",
  ]);
  // With the specification's skills/ folder, a folder four levels down is not searched.
  const laidOut = join(dir.path, "laid-out");
  await writeTree(laidOut, {
    "skills/prd/SKILL.md": md("prd"),
    "tests/fixtures/skills/sample/SKILL.md": md("sample"),
  });
  assert.deepEqual((await listed(laidOut, env)).skills.map((s) => s.path), ["skills/prd"]);
});

Deno.test("a plugin manifest whose plugins hold no skill does not stop the deeper search", async () => {
  await using dir = await tempDir();
  // tech-leads-club/agent-skills: its marketplace names a local plugin that is an MCP server,
  // with no skills; its skills are packages/<p>/skills/(<group>)/<skill>/, five levels down.
  const repo = join(dir.path, "monorepo");
  await writeTree(repo, {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "club",
      plugins: [{ name: "catalog-mcp", source: "./packages/mcp" }],
    }),
    "packages/mcp/package.json": "{}\n",
    "packages/catalog/skills/(monitoring)/sentry/SKILL.md": md("sentry"),
    "packages/catalog/skills/(web)/playwright/SKILL.md": md("playwright"),
  });
  const list = await listed(repo, { SKILLS_HOME: join(dir.path, "home") });
  assert.deepEqual(list.skills.map((s) => s.path), [
    "packages/catalog/skills/(monitoring)/sentry",
    "packages/catalog/skills/(web)/playwright",
  ]);
});

Deno.test("a collection whose root is a skill: --skill naming a folder inside it says where that folder is and how to add it", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "collection");
  // A root SKILL.md describing the collection, its skills under skills/ and a template: the
  // root is one skill (the peer CLI reads it so too), and a name inside it is not offered.
  await writeTree(repo, {
    "SKILL.md": md("collection"),
    "skills/tool-design/SKILL.md": md("tool-design"),
    "skills/evaluation/SKILL.md": md("evaluation"),
    "template/SKILL.md": md("template-skill"),
  });
  const env = { SKILLS_HOME: join(dir.path, "home") };
  assert.deepEqual((await listed(repo, env)).skills.map((s) => s.path), [""]);
  for (const selector of ["tool-design", "skills/tool-design"]) {
    const add = await runCli(["add", repo, "--skill", selector, "--yes"], { env });
    assert.equal(add.code, 1, add.stderr);
    assert.match(
      add.stderr,
      /skills\/tool-design\/SKILL\.md is inside the skill at the root \(collection\)/,
    );
    assert.match(add.stderr, /give it after the source \(owner\/repo\/skills\/tool-design/);
  }
  const none = await runCli(["add", repo, "--skill", "missing", "--yes"], { env });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /hint: Available: collection\n/);
  // What the hint says works: the folder as the source.
  const add = await runCli(["add", join(repo, "skills", "tool-design"), "--yes"], { env });
  assert.equal(add.code, 0, add.stderr);
  const info = await runCli(["info", "tool-design", "--json"], { env });
  assert.equal(JSON.parse(info.stdout).description, "Skill tool-design.");
});
