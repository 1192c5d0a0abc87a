/**
 * Names as published: a collection whose skills are named `Ahrefs Automation`, `Customer.io
 * Automation`, `-draft-notes`,
 * `data_kit`, and twins (`my_tool`, `My Tool`) that end up with one name — installed in bulk
 * from a real git repository, renamed with `--name OLD=NEW`, and served by `skills mcp`'s
 * SEP-2640 `skills/list` under the installed names, the published ones in their metadata.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { userHome } from "../../helpers/user_home.ts";
import { connectStdio, type StdioSession } from "../../helpers/mcp_client.ts";
import { createRepo, skillMd } from "../../fixtures/git_repos.ts";
import { project } from "../../helpers/project.ts";
import { exists } from "../../helpers/wait.ts";

/** A collection laid out as public ones are, with the names people publish. */
function collection(): Record<string, string> {
  const skill = (name: string) => skillMd(name, `What ${name} does, for tests.`);
  return {
    "README.md": "# A collection\n",
    "skills/ahrefs/SKILL.md": skill("Ahrefs Automation"),
    "skills/customer-io/SKILL.md": skill("Customer.io Automation"),
    "skills/draft/SKILL.md": skill("-draft-notes"),
    "skills/data/SKILL.md": skill("data_kit"),
    "skills/tool-a/SKILL.md": skill("my_tool"),
    "skills/tool-b/SKILL.md": skill("My Tool"),
    "skills/pdf/SKILL.md": skill("pdf"),
  };
}

/** Installed name → published name: the skills whose names clash with none. */
const UNCLASHED = {
  "ahrefs-automation": "Ahrefs Automation",
  "customer-io-automation": "Customer.io Automation",
  "data-kit": "data_kit",
  "draft-notes": "-draft-notes",
  pdf: "pdf",
};

/** The --name flags that settle the clashes: each twin and data_kit's folder get a name. */
const RENAMES = ["--name", "My Tool=my-tool-b", "--name", "data_kit=kit"];

/** Installed name → published name once the clashing ones are renamed with RENAMES. */
const ALL_RENAMED = {
  ...UNCLASHED,
  kit: "kit",
  "my-tool": "my_tool",
  "my-tool-b": "my-tool-b",
};

async function workspace() {
  const ws = await userHome();
  const installed = async () => {
    const registry = (await ws.registry())!;
    return Object.fromEntries(registry.skills.map((e) => [e.name_canonical, e.name]));
  };
  /** Where in its source each installed skill was found, by installed name. */
  const subpaths = async () => {
    const registry = (await ws.registry())!;
    return Object.fromEntries(registry.skills.map((e) => [e.name_canonical, e.source.subpath]));
  };
  /** `add URL --skill '*' --yes --json`, with its JSON report (empty when it printed none). */
  const addEvery = async (url: string) => {
    const run = await ws.cli(["add", url, "--skill", "*", "--yes", "--json"]);
    const report = run.stdout.trim() === "" ? {} : JSON.parse(run.stdout);
    return { ...run, report };
  };
  return { ...ws, installed, subpaths, addEvery };
}

/** What `skills/list` (SEP-2640) answers: each served skill's URI and front matter. */
const SKILLS_LIST = z.looseObject({
  skills: z.array(z.looseObject({
    uri: z.string(),
    frontmatter: z.looseObject({ name: z.string(), metadata: z.optional(z.unknown()) }),
  })),
});

/** The front matter `skills/list` serves, by skill URI. */
async function servedByUri(
  mcp: StdioSession,
): Promise<Record<string, z.infer<typeof SKILLS_LIST>["skills"][number]["frontmatter"]>> {
  const listed = await mcp.client.request({ method: "skills/list", params: {} }, SKILLS_LIST);
  return Object.fromEntries(listed.skills.map((e) => [e.uri, e.frontmatter]));
}

Deno.test("a bulk install gives every published name a distinct canonical name, refuses twins naming both, and renames on request", async () => {
  const w = await workspace();
  await using _dir = w.dir;
  const repo = await createRepo(w.dir.path, "collection", collection());

  const first = await w.cli(["add", repo.url, "--skill", "*", "--yes"]);
  assert.equal(first.code, 1, "the twins are refused: " + first.stdout + first.stderr);
  assert.match(
    first.stderr,
    /'Ahrefs Automation' is not a skill identifier .*; it is installed and called as 'ahrefs-automation'/,
  );
  assert.match(first.stderr, /'-draft-notes' is not a skill identifier .*called as 'draft-notes'/);
  assert.deepEqual(await w.installed(), UNCLASHED);
  for (const [mine, other] of [["my_tool", "My Tool"], ["My Tool", "my_tool"]]) {
    assert.match(
      first.stdout,
      new RegExp(
        `Refused '${mine}': Cannot install skill '${mine}' \\(skills/tool-.\\) as 'my-tool': '${other}' \\(skills/tool-.\\) would be installed under the same name`,
      ),
    );
  }

  // A rename that names no selected skill is a usage error, before anything is written.
  const unknown = await w.cli(["add", repo.url, "--skill", "*", "--name", "nope=x", "--yes"]);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /--name nope=x: no selected skill is named 'nope'/);

  const second = await w.cli(["add", repo.url, "--skill", "*", ...RENAMES, "--yes"]);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.deepEqual(await w.installed(), ALL_RENAMED);

  // The installed name selects the skill, and plain --name still renames one skill.
  const one = await w.cli([
    "add",
    repo.url,
    "--skill",
    "ahrefs-automation",
    "--name",
    "ahrefs",
    "--yes",
  ]);
  assert.equal(one.code, 0, one.stdout + one.stderr);
  assert.equal((await w.installed()).ahrefs, "ahrefs");
  const several = await w.cli(["add", repo.url, "--skill", "*", "--name", "x", "--yes"]);
  assert.equal(several.code, 2);
  assert.match(several.stderr, /--name OLD=NEW/);

  // Another repository's 'pdf' in a bulk install: the hint spells the rename of just it, and
  // says what `skills update pdf` would do (move the installed one, not install this one).
  const other = await createRepo(w.dir.path, "other", {
    "skills/pdf/SKILL.md": skillMd("pdf", "Another pdf skill."),
    "skills/notes/SKILL.md": skillMd("notes", "Notes."),
  });
  const clash = await w.cli(["add", other.url, "--skill", "*", "--yes"]);
  assert.equal(clash.code, 1, clash.stdout + clash.stderr);
  assert.equal((await w.installed()).notes, "notes", "the rest of the install proceeds");
  assert.match(
    clash.stdout,
    /Refused 'pdf': Cannot install skill 'pdf': a skill with that name is installed/,
  );
  assert.match(
    clash.stdout,
    /hint: To keep both, add this one under another name with --name 'pdf=NAME'/,
  );
  assert.match(
    clash.stdout,
    /`skills update pdf` only updates the installed skill from its own source/,
  );

  await using mcp = await connectStdio(w.env, w.dir.path, [
    "--skills",
    "my-tool-b,ahrefs-automation,pdf",
  ]);
  const byUri = await servedByUri(mcp);
  assert.deepEqual(Object.keys(byUri).sort(), [
    "skill://ahrefs-automation/SKILL.md",
    "skill://my-tool-b/SKILL.md",
    "skill://pdf/SKILL.md",
  ]);
  assert.equal(byUri["skill://my-tool-b/SKILL.md"]!.name, "my-tool-b");
  assert.deepEqual(byUri["skill://my-tool-b/SKILL.md"]!.metadata, { "original-name": "My Tool" });
  assert.deepEqual(byUri["skill://ahrefs-automation/SKILL.md"]!.metadata, {
    "original-name": "Ahrefs Automation",
  });
  assert.equal(byUri["skill://pdf/SKILL.md"]!.metadata, undefined);
});

Deno.test("a bulk add into a project refuses twins naming both and renames with --name OLD=NEW, as for $SKILLS_HOME", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "collection", collection());
  const keys = async () =>
    Object.fromEntries(Object.entries((await p.lock()).skills).map(([k, e]) => [k, e.name]));

  const first = await p.cli(["add", repo.url, "--skill", "*", "--project", "--yes"]);
  assert.equal(first.code, 1, "the twins are refused: " + first.stdout + first.stderr);
  for (const [mine, other] of [["my_tool", "My Tool"], ["My Tool", "my_tool"]]) {
    assert.match(
      first.stdout,
      new RegExp(
        `Refused '${mine}': Cannot install skill '${mine}' \\(skills/tool-.\\) as 'my-tool': '${other}' \\(skills/tool-.\\) would be installed under the same name`,
      ),
    );
  }
  // By path: a name the two share would not say which.
  assert.match(
    first.stdout,
    /hint: Rename one with --name 'skills\/tool-b=NEW' \(repeatable\), or pick one with --skill skills\/tool-b/,
  );
  assert.deepEqual(await keys(), UNCLASHED);
  assert.equal(await exists(join(p.root, ".agents/skills/my-tool")), false);

  const second = await p.cli(["add", repo.url, "--skill", "*", "--project", ...RENAMES, "--yes"]);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.match(
    second.stdout,
    /Installed 'my-tool-b' at [0-9a-f]+ into .*\.agents\/skills\/my-tool-b/,
  );
  assert.deepEqual(await keys(), ALL_RENAMED);
  // The renamed folder holds the files as published; skills calls it by its installed name.
  assert.match(
    await Deno.readTextFile(join(p.root, ".agents/skills/my-tool-b/SKILL.md")),
    /name: My Tool/,
  );
  const listed = await p.cli(["list", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  const inProject = (JSON.parse(listed.stdout).skills as { canonical: string; scope: string }[])
    .filter((s) => s.scope === "project").map((s) => s.canonical).sort();
  assert.deepEqual(inProject, [
    "ahrefs-automation",
    "customer-io-automation",
    "data-kit",
    "draft-notes",
    "kit",
    "my-tool",
    "my-tool-b",
    "pdf",
  ]);

  // The lockfile restores the renamed folders as they are, with nothing reported.
  const frozen = await p.cli(["install", "--frozen"]);
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);

  // The renamed skill follows its source under its installed name.
  const sha = await repo.commit({
    "skills/tool-b/SKILL.md": skillMd("My Tool", "What My Tool does, now better."),
  });
  const updated = await p.cli(["update", "my-tool-b", "--yes"]);
  assert.equal(updated.code, 0, updated.stdout + updated.stderr);
  assert.equal((await p.lock()).skills["my-tool-b"]!.commit, sha);
  assert.match(
    await Deno.readTextFile(join(p.root, ".agents/skills/my-tool-b/SKILL.md")),
    /now better/,
  );

  // Another repository's 'pdf': the hint spells the rename of just it, which then installs.
  const other = await createRepo(p.dir, "other", {
    "skills/pdf/SKILL.md": skillMd("pdf", "Another pdf skill."),
    "skills/notes/SKILL.md": skillMd("notes", "Notes."),
  });
  const clash = await p.cli(["add", other.url, "--skill", "*", "--project", "--yes"]);
  assert.equal(clash.code, 1, clash.stdout + clash.stderr);
  assert.match(
    clash.stdout,
    /Refused 'pdf': Cannot install skill 'pdf': skills-lock.json records it from /,
  );
  assert.match(
    clash.stdout,
    /hint: To keep both, add this one under another name with --name 'pdf=NAME'/,
  );
  assert.equal((await keys()).notes, "notes", "the rest of the install proceeds");
  const renamed = await p.cli([
    "add",
    other.url,
    "--skill",
    "pdf",
    "--project",
    "--name",
    "pdf-other",
    "--yes",
  ]);
  assert.equal(renamed.code, 0, renamed.stdout + renamed.stderr);
  assert.equal((await keys())["pdf-other"], "pdf-other");
  assert.equal((await p.lock()).skills["pdf-other"]!.skillPath, "skills/pdf/SKILL.md");

  // SEP-2640 serves the renamed project skill under its installed name, the published one kept.
  await using mcp = await connectStdio(
    { SKILLS_HOME: p.home, HOME: p.dir, GIT_CONFIG_GLOBAL: "/dev/null" },
    p.root,
    ["--skills", "my-tool-b,pdf-other"],
  );
  const byUri = await servedByUri(mcp);
  assert.deepEqual(Object.keys(byUri).sort(), [
    "skill://my-tool-b/SKILL.md",
    "skill://pdf-other/SKILL.md",
  ]);
  assert.equal(byUri["skill://my-tool-b/SKILL.md"]!.name, "my-tool-b");
  assert.deepEqual(byUri["skill://my-tool-b/SKILL.md"]!.metadata, { "original-name": "My Tool" });
  assert.deepEqual(byUri["skill://pdf-other/SKILL.md"]!.metadata, { "original-name": "pdf" });
});

Deno.test("a preview copy beside the skill the repository ships: '*' installs the shipped one, a path picks or renames the other", async () => {
  const w = await workspace();
  await using _dir = w.dir;
  // UiPath/skills' layout: the repository is one plugin (its skills are skills/<name>/), and
  // preview/<name>/ holds the next version of three of them under the same names.
  const repo = await createRepo(w.dir.path, "vendor", {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "vendor", version: "1.0.0" }),
    "skills/flow/SKILL.md": skillMd("flow", "Author flows, as shipped."),
    "skills/case/SKILL.md": skillMd("case", "Author case plans."),
    "preview/flow/SKILL.md": skillMd("flow", "Author flows, the preview."),
    // A flavor: a fragment its build merges into skills/case/SKILL.md, no front matter.
    "flavors/studio/case/SKILL.md": "<!--flavor:case-budget:start-->\nShorter.\n<!--end-->\n",
    // A generated wiki's page about skills: front matter that names no skill.
    "wiki/pages/skill.md": "---\nconcept: skill\nsource: code\n---\n\n# Skill\n",
    "wiki/pages/other.md": "# Other\n",
  });

  const all = await w.addEvery(repo.url);
  assert.equal(all.code, 0, all.stdout + all.stderr);
  const report = all.report;
  assert.deepEqual(report.skipped_twins, [
    { path: "preview/flow", kept: "skills/flow", because: "declared" },
  ]);
  assert.deepEqual(report.skipped_without_front_matter, ["flavors/studio/case", "wiki/pages"]);
  assert.match(
    all.stderr,
    /Skipped 2 folder\(s\) whose SKILL\.md has no front matter, or none naming a name or a description, which no agent loads as a skill \(flavors\/studio\/case, wiki\/pages\)/,
  );
  // Named, the fragment and the page are refused with their errors.
  const fragment = await w.cli(["add", repo.url, "--skill", "flavors/studio/case", "--yes"]);
  assert.notEqual(fragment.code, 0);
  assert.match(fragment.stdout + fragment.stderr, /SKILL\.md must start with YAML front matter/);
  const page = await w.cli(["add", repo.url, "--skill", "wiki/pages", "--yes"]);
  assert.notEqual(page.code, 0);
  assert.match(page.stdout + page.stderr, /missing required field\(s\): name, description/);
  assert.match(all.stderr, /Skipped 1 skill\(s\) named like one the source names as its own/);
  assert.match(all.stderr, /--skill preview\/flow --name preview\/flow=NEW/);
  assert.deepEqual(await w.installed(), { case: "case", flow: "flow" });
  const shipped = (await w.registry())!.skills.find((e) => e.name_canonical === "flow")!;
  assert.equal(shipped.source.subpath, "skills/flow");

  // The name alone is ambiguous, and the error says how to pick by path.
  const named = await w.cli(["add", repo.url, "--skill", "flow", "--yes"]);
  assert.notEqual(named.code, 0);
  assert.match(named.stderr, /Skill 'flow' is ambiguous in .*: preview\/flow, skills\/flow/);
  assert.match(named.stderr, /Pick one by its path: --skill preview\/flow or --skill skills\/flow/);

  // The path picks the preview, and --name renames it by the same path (./ and a trailing /
  // as a shell's completion writes them).
  const preview = await w.cli([
    "add",
    repo.url,
    "--skill",
    "./preview/flow/",
    "--name",
    "preview/flow=flow-preview",
    "--yes",
  ]);
  assert.equal(preview.code, 0, preview.stdout + preview.stderr);
  const renamed = (await w.registry())!.skills.find((e) => e.name_canonical === "flow-preview")!;
  assert.equal(renamed.source.subpath, "preview/flow");

  // A folder at the top is picked as ./<folder> (a bare name is a skill's name).
  const top = await createRepo(w.dir.path, "top", {
    "flow/SKILL.md": skillMd("flow", "Author flows, kept at the top."),
    "skills/flow/SKILL.md": skillMd("flow", "Author flows, as shipped."),
  });
  const atTop = await w.cli([
    "add",
    top.url,
    "--skill",
    "./flow",
    "--name",
    "./flow=flow-top",
    "--yes",
  ]);
  assert.equal(atTop.code, 0, atTop.stdout + atTop.stderr);
  assert.equal(
    (await w.registry())!.skills.find((e) => e.name_canonical === "flow-top")!.source.subpath,
    "flow",
  );

  // A path that leaves the source, or names no skill in it, is refused before anything is read.
  const outside = await w.cli(["add", repo.url, "--skill", "../flow", "--yes"]);
  assert.equal(outside.code, 2, outside.stderr);
  assert.match(outside.stderr, /Invalid --skill '\.\.\/flow': a skill's path in its source/);
  const none = await w.cli(["add", repo.url, "--skill", "preview/case", "--yes"]);
  assert.notEqual(none.code, 0);
  assert.match(
    none.stderr,
    /No skill at 'preview\/case' in .*\n.*Skills are at: flavors\/studio\/case, preview\/flow, skills\/case, skills\/flow/,
  );
});

Deno.test("'*' over a repository that keeps copies for its agents: an agent's folder at the top stands before the search, copies byte for byte are one skill", async () => {
  const w = await workspace();
  await using _dir = w.dir;
  // mckeeh3/akka-ai-skills-pack's layout: the pack's source in pack/skills/, the copies the
  // repository installed for its own agent in .agents/skills/ (some since edited), and the
  // same skill kept for two agents.
  const repo = await createRepo(w.dir.path, "pack", {
    "pack/skills/notes/SKILL.md": skillMd("notes", "Take notes, as the pack ships them."),
    ".agents/skills/notes/SKILL.md": skillMd("notes", "Take notes, as this repository uses them."),
    ".agents/skills/tidy/SKILL.md": skillMd("tidy", "Tidy a folder."),
    ".agents/skills/tidy/references/rules.md": "# Rules\n",
    ".claude/skills/tidy/SKILL.md": skillMd("tidy", "Tidy a folder."),
    ".claude/skills/tidy/references/rules.md": "# Rules\n",
    // The top skills/ folder still stands before an agent's folder.
    "skills/flow/SKILL.md": skillMd("flow", "Author flows, as shipped."),
    ".agents/skills/flow/SKILL.md": skillMd("flow", "Author flows, an older copy."),
    // Copies the search alone came upon: the one with the shortest path is kept.
    "aa/vendored/guide/SKILL.md": skillMd("guide", "Guide the reader."),
    "zz/guide/SKILL.md": skillMd("guide", "Guide the reader."),
    // A scratch copy in a hidden folder beside the skill, as deep: the skill's own path is kept.
    "lint/.tmp_lint/SKILL.md": skillMd("lint", "Lint the notes."),
    "lint/lint/SKILL.md": skillMd("lint", "Lint the notes."),
  });

  const all = await w.addEvery(repo.url);
  assert.equal(all.code, 0, all.stdout + all.stderr);
  assert.deepEqual(all.report.skipped_twins, [
    { path: ".agents/skills/flow", kept: "skills/flow", because: "declared" },
    { path: "pack/skills/notes", kept: ".agents/skills/notes", because: "agent-folder" },
    { path: ".claude/skills/tidy", kept: ".agents/skills/tidy", because: "identical" },
    { path: "aa/vendored/guide", kept: "zz/guide", because: "identical" },
    { path: "lint/.tmp_lint", kept: "lint/lint", because: "identical" },
  ]);
  assert.match(
    all.stderr,
    /Skipped 3 skill\(s\) that are copies of one it installs, file for file/,
  );
  assert.match(
    all.stderr,
    /Skipped 1 skill\(s\) named like one the source keeps in an agent's folder/,
  );
  assert.deepEqual(await w.installed(), {
    flow: "flow",
    guide: "guide",
    lint: "lint",
    notes: "notes",
    tidy: "tidy",
  });
  assert.deepEqual(await w.subpaths(), {
    flow: "skills/flow",
    guide: "zz/guide",
    lint: "lint/lint",
    notes: ".agents/skills/notes",
    tidy: ".agents/skills/tidy",
  });

  // Copies kept for two agents that differ by one byte: nothing says which is meant.
  const apart = await createRepo(w.dir.path, "apart", {
    ".agents/skills/tidy/SKILL.md": skillMd("tidy", "Tidy a folder."),
    ".claude/skills/tidy/SKILL.md": skillMd("tidy", "Tidy a folder!"),
    "skills/other/SKILL.md": skillMd("other", "Something else."),
  });
  const refused = await w.cli(["add", apart.url, "--skill", "*", "--yes"]);
  assert.notEqual(refused.code, 0);
  assert.match(
    refused.stdout + refused.stderr,
    /Cannot install skill 'tidy' \(\.agents\/skills\/tidy\) as 'tidy': 'tidy' \(\.claude\/skills\/tidy\) would be installed under the same name/,
  );
  assert.equal((await w.installed()).other, "other");
});

Deno.test("'*' over a marketplace that also keeps its skills in the top skills/ folder: that folder stands before a plugin's copy; two plugins' copies are still refused", async () => {
  const w = await workspace();
  await using _dir = w.dir;
  // NeoLabHQ/context-engineering-kit's layout: every skill in skills/ for any agent, and again
  // in its plugin with Claude Code's own fields; two plugins that each ship an `access` skill.
  const claudeFields = "argument-hint: Optional flags\nmodel: haiku\n";
  const repo = await createRepo(w.dir.path, "kit", {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "kit",
      plugins: [
        { name: "git", source: "./plugins/git" },
        { name: "chat", source: "./plugins/chat" },
        { name: "mail", source: "./plugins/mail" },
      ],
    }),
    "skills/commit/SKILL.md": skillMd("commit", "Write a commit."),
    "plugins/git/skills/commit/SKILL.md": skillMd("commit", "Write a commit.", claudeFields),
    "plugins/chat/skills/access/SKILL.md": skillMd("access", "Grant chat access."),
    "plugins/mail/skills/access/SKILL.md": skillMd("access", "Grant mail access."),
  });
  const all = await w.addEvery(repo.url);
  assert.notEqual(all.code, 0, "the two plugins' access skills are refused");
  assert.deepEqual(all.report.skipped_twins, [
    { path: "plugins/git/skills/commit", kept: "skills/commit", because: "collection" },
  ]);
  assert.match(all.stderr, /Skipped 1 skill\(s\) named like one of the source's top skills\//);
  assert.match(all.stdout + all.stderr, /Cannot install skill 'access' \(plugins\/chat\/skills/);
  assert.deepEqual(await w.subpaths(), { commit: "skills/commit" });
});

Deno.test("'*' over a tree with no layout: a skill only the deeper search found never contests a name found nearer the top", async () => {
  const w = await workspace();
  await using _dir = w.dir;
  // thcjp/hermes-skills: editions under names it uses nearer the top, four levels down.
  const repo = await createRepo(w.dir.path, "editions", {
    "current/guide/SKILL.md": skillMd("guide", "Guide the reader, this edition."),
    "archive/2025/editions/guide/SKILL.md": skillMd("guide", "Guide the reader, as in 2025."),
    "archive/2025/editions/atlas/SKILL.md": skillMd("atlas", "Draw the atlas."),
  });
  const all = await w.addEvery(repo.url);
  assert.equal(all.code, 0, all.stdout + all.stderr);
  assert.deepEqual(all.report.skipped_twins, [
    { path: "archive/2025/editions/guide", kept: "current/guide", because: "shallower" },
  ]);
  assert.match(all.stderr, /Skipped 1 skill\(s\) named like one found nearer the top/);
  assert.deepEqual(await w.installed(), { atlas: "atlas", guide: "guide" });
  assert.deepEqual(await w.subpaths(), {
    atlas: "archive/2025/editions/atlas",
    guide: "current/guide",
  });
});

Deno.test("'*' with a preview renamed by its path installs both, into a project too", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "vendor", {
    "skills/flow/SKILL.md": skillMd("flow", "Author flows, as shipped."),
    "preview/flow/SKILL.md": skillMd("flow", "Author flows, the preview."),
  });
  const both = await p.cli([
    "add",
    repo.url,
    "--skill",
    "*",
    "--name",
    "preview/flow=flow-next",
    "--project",
    "--yes",
  ]);
  assert.equal(both.code, 0, both.stdout + both.stderr);
  assert.doesNotMatch(both.stderr, /Skipped/);
  const lock = (await p.lock()).skills;
  assert.deepEqual(Object.keys(lock).sort(), ["flow", "flow-next"]);
});
