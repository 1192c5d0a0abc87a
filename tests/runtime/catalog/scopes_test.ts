import assert from "node:assert/strict";
import { join } from "node:path";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { findProjectRoot } from "../../../src/runtime/catalog/scopes.ts";
import { tempDir } from "../../helpers/cli.ts";
import { skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";

function writeSkill(dir: string, name: string, description?: string) {
  return writeTree(dir, { "SKILL.md": skillMd(name, description) });
}

/** A repository root `<tmp>/repo` (a `.git` folder) with a nested `pkg/` and a home. */
async function layout() {
  const tmp = await tempDir();
  const root = join(tmp.path, "repo");
  const home = join(tmp.path, "home");
  await Deno.mkdir(join(root, ".git"), { recursive: true });
  await Deno.mkdir(join(root, "pkg", "src"), { recursive: true });
  return { tmp, root, home, env: { HOME: tmp.path } };
}

Deno.test("findProjectRoot() is the nearest folder with .git (a worktree's .git file too), else the working directory", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "a");
  await Deno.mkdir(join(repo, "b", "c"), { recursive: true });
  await Deno.writeTextFile(join(repo, ".git"), "gitdir: /elsewhere\n");
  assert.deepEqual(findProjectRoot(join(repo, "b", "c")), {
    root: repo,
    repository: true,
    from: join(repo, "b", "c"),
  });
  const loose = join(tmp.path, "loose");
  await Deno.mkdir(loose);
  assert.deepEqual(findProjectRoot(loose), { root: loose, repository: false, from: loose });
});

Deno.test("project skills: nearer folders win, .agents/skills before .claude/skills, the rest is listed as shadowed", async () => {
  const l = await layout();
  await using _ = l.tmp;
  await writeSkill(join(l.root, ".agents", "skills", "shared"), "shared", "From the root.");
  await writeSkill(
    join(l.root, "pkg", ".claude", "skills", "shared"),
    "shared",
    "From pkg (claude).",
  );
  await writeSkill(join(l.root, "pkg", ".agents", "skills", "shared"), "shared", "From pkg.");
  await writeSkill(join(l.root, ".claude", "skills", "only-root"), "only-root");
  const catalog = await loadCatalog(l.home, { cwd: join(l.root, "pkg", "src"), env: l.env });
  const shared = catalog.skills.find((s) => s.canonical === "shared")!;
  assert.equal(shared.scope, "project");
  assert.equal(shared.manifest.description, "From pkg.");
  assert.equal(shared.project?.rel, "pkg/.agents/skills/shared");
  assert.equal(shared.project?.root, l.root);
  assert.deepEqual(
    catalog.shadowed.map((h) => [h.dir.slice(l.root.length), h.by.dir.slice(l.root.length)]),
    [
      ["/pkg/.claude/skills/shared", "/pkg/.agents/skills/shared"],
      ["/.agents/skills/shared", "/pkg/.agents/skills/shared"],
    ],
  );
  assert.ok(catalog.skills.some((s) => s.canonical === "only-root" && s.scope === "project"));
  // Outside the repository nothing of it is seen.
  const outside = await loadCatalog(l.home, { cwd: l.tmp.path, env: l.env });
  assert.ok(!outside.skills.some((s) => s.scope === "project"));
});

Deno.test("a .claude/skills linked to .agents/skills is one folder; a link out of the project is followed only to a known skill", async () => {
  const l = await layout();
  await using _ = l.tmp;
  await writeSkill(join(l.root, ".agents", "skills", "alpha"), "alpha");
  await Deno.mkdir(join(l.root, ".claude"));
  await Deno.symlink("../.agents/skills", join(l.root, ".claude", "skills"));
  // An alias of a project skill, and a link to a folder that is no known skill.
  await Deno.mkdir(join(l.root, ".agents", "skills-extra"));
  await Deno.symlink(
    join(l.root, ".agents", "skills", "alpha"),
    join(l.root, ".agents", "skills", "alias"),
  );
  const outside = join(l.tmp.path, "elsewhere", "evil");
  await writeSkill(outside, "evil");
  await Deno.symlink(outside, join(l.root, ".agents", "skills", "evil"));
  const catalog = await loadCatalog(l.home, { cwd: l.root, env: l.env });
  const project = catalog.skills.filter((s) => s.scope === "project").map((s) => s.canonical);
  assert.deepEqual(project, ["alpha"]);
  assert.deepEqual(catalog.shadowed, []);
  assert.ok(
    catalog.notes.some((n) =>
      /Skipped .*skills\/evil: a symlink to .*evil, which is not a known skill/.test(n)
    ),
    catalog.notes.join("\n"),
  );
  assert.ok(!catalog.notes.some((n) => n.includes("alias")), "an alias is not worth a note");
});

Deno.test("a link in a skill folder to a folder elsewhere in the project is a project skill where the link is", async () => {
  const l = await layout();
  await using _ = l.tmp;
  // As repositories link their skills into an agent's folder (`.codex/skills/x -> ../../x`).
  await writeSkill(join(l.root, "tools", "gamma"), "gamma", "Kept under tools/.");
  await Deno.mkdir(join(l.root, ".claude", "skills"), { recursive: true });
  await Deno.symlink("../../tools/gamma", join(l.root, ".claude", "skills", "gamma"));
  // A second link to the same folder is the same skill; a link to a folder holding the
  // skill folder would make a skill of the project itself, and is skipped.
  await Deno.mkdir(join(l.root, ".agents", "skills"), { recursive: true });
  await Deno.symlink("../../tools/gamma", join(l.root, ".agents", "skills", "gamma-again"));
  await Deno.symlink("../..", join(l.root, ".claude", "skills", "whole"));
  const catalog = await loadCatalog(l.home, { cwd: l.root, env: l.env });
  const project = catalog.skills.filter((s) => s.scope === "project");
  assert.deepEqual(project.map((s) => [s.canonical, s.dir, s.project?.rel]), [
    ["gamma", join(l.root, "tools", "gamma"), ".agents/skills/gamma-again"],
  ]);
  assert.equal(project[0]!.trusted, false, "trusted only as a project skill, by approval");
  assert.deepEqual(catalog.shadowed, []);
  assert.ok(
    catalog.notes.some((n) =>
      /Skipped .*skills\/whole: a symlink to .*repo, which is not a known skill/.test(n)
    ),
    catalog.notes.join("\n"),
  );
});

Deno.test("a project skill folder that links outside the project is skipped", async () => {
  const l = await layout();
  await using _ = l.tmp;
  const outside = join(l.tmp.path, "outside-skills");
  await writeSkill(join(outside, "beta"), "beta");
  await Deno.mkdir(join(l.root, ".agents"));
  await Deno.symlink(outside, join(l.root, ".agents", "skills"));
  const catalog = await loadCatalog(l.home, { cwd: l.root, env: l.env });
  assert.ok(!catalog.skills.some((s) => s.canonical === "beta"));
  assert.ok(catalog.notes.some((n) => /it links outside the project/.test(n)));
});

Deno.test("without a repository the search stops below $HOME", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "user");
  const work = join(home, "work", "app");
  await Deno.mkdir(work, { recursive: true });
  await writeSkill(join(home, ".agents", "skills", "user-agents"), "user-agents");
  await writeSkill(join(home, "work", ".agents", "skills", "workspace"), "workspace");
  const catalog = await loadCatalog(join(tmp.path, "skills-home"), {
    cwd: work,
    env: { HOME: home },
  });
  const project = catalog.skills.filter((s) => s.scope === "project");
  assert.deepEqual(project.map((s) => s.canonical), ["workspace"]);
  assert.equal(
    project[0]!.project?.root,
    join(home, "work"),
    "keyed by the folder holding .agents",
  );
});

Deno.test("a project skill is trusted only through this user's project-trust.json, for that project and folder", async () => {
  const l = await layout();
  await using _ = l.tmp;
  await writeSkill(join(l.root, ".agents", "skills", "alpha"), "alpha");
  await Deno.mkdir(l.home, { recursive: true });
  const digest = `sha256:${"1".repeat(64)}`;
  const trust = (root: string) =>
    Deno.writeTextFile(
      join(l.home, "project-trust.json"),
      JSON.stringify({
        version: 1,
        projects: {
          [root]: { ".agents/skills/alpha": { name: "alpha", digest, trusted_at: "x" } },
        },
      }),
    );
  await trust("/another/project");
  let alpha = (await loadCatalog(l.home, { cwd: l.root, env: l.env })).skills
    .find((s) => s.canonical === "alpha")!;
  assert.equal(alpha.trusted, false);
  await trust(l.root);
  alpha = (await loadCatalog(l.home, { cwd: l.root, env: l.env })).skills
    .find((s) => s.canonical === "alpha")!;
  assert.equal(alpha.trusted, true);
  assert.equal(alpha.project?.trustedDigest, digest);
  await Deno.writeTextFile(join(l.home, "project-trust.json"), "{broken");
  const broken = await loadCatalog(l.home, { cwd: l.root, env: l.env });
  assert.equal(broken.skills.find((s) => s.canonical === "alpha")!.trusted, false);
  assert.ok(broken.notes.some((n) => /project skills count as untrusted/.test(n)));
});

Deno.test("a folder with no manifest in a project's skills folder is no skill, unless the lockfile names it", async () => {
  const l = await layout();
  await using _ = l.tmp;
  const skills = join(l.root, ".claude", "skills");
  await writeSkill(join(skills, "real"), "real");
  // As public repositories ship them: shared helpers, and a folder of skills.
  await writeTree(join(skills, "common"), { "README.md": "shared\n", "helper.py": "x = 1\n" });
  await writeSkill(join(skills, "document-skills", "pdf"), "pdf");
  // A manifest that is there but invalid is a broken skill still.
  await writeTree(join(skills, "invalid"), { "SKILL.md": "# no front matter\n" });
  // A locked skill whose SKILL.md is gone is broken, not skipped.
  await writeTree(join(l.root, ".agents", "skills", "gone"), { "notes.md": "left\n" });
  await Deno.writeTextFile(
    join(l.root, "skills-lock.json"),
    JSON.stringify({
      version: 1,
      skills: {
        gone: {
          source: "file:///nowhere.git",
          sourceType: "git",
          sourceUrl: "file:///nowhere.git",
          skillPath: "skills/gone/SKILL.md",
          name: "gone",
          branch: "main",
          tag: null,
          pinnedRef: null,
          commit: "0".repeat(40),
          digest: `sha256:${"0".repeat(64)}`,
          files: { "SKILL.md": "0".repeat(64) },
          permissions: { env: [] },
        },
      },
    }),
  );
  const catalog = await loadCatalog(l.home, { cwd: l.root, env: l.env });
  assert.deepEqual(
    catalog.skills.filter((s) => s.scope === "project").map((s) => s.canonical),
    ["real"],
  );
  assert.deepEqual(catalog.failures.map((f) => [f.canonical, f.reason]).sort(), [
    ["gone", "SKILL.md is missing"],
    ["invalid", "Invalid manifest (SKILL.md must start with YAML front matter ('---' on line 1))"],
  ]);
});
