import assert from "node:assert/strict";
import { join } from "node:path";
import {
  inspectSkillDir,
  loadSkillDir,
  MAX_SKILL_MD_BYTES,
  readSkillBody,
  SkillLoadError,
} from "../../../src/runtime/catalog/loader.ts";
import { skillDirsAt } from "../../../src/runtime/catalog/discover.ts";
import { tempDir } from "../../helpers/cli.ts";
import { pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";

const LOCAL = { origin: "local", trusted: false } as const;

async function listing(dir: string): Promise<string> {
  try {
    await loadSkillDir(dir, join(dir, ".."), LOCAL);
    return "loaded";
  } catch (error) {
    assert.ok(error instanceof SkillLoadError, String(error));
    return error.message;
  }
}

async function validation(dir: string): Promise<string[]> {
  const result = await inspectSkillDir(dir);
  return result.diagnostics.map((d) => `${d.level} ${d.file.slice(dir.length)}: ${d.message}`);
}

Deno.test("listing and validation read one skill into the same record", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "tools");
  await writeTree(dir, {
    "SKILL.md": skillMd("tools", "Tools.", "toolsets: ['lib.t:T']\n"),
    "scripts/run.py": pyScript("print(1)"),
    "scripts/bare.py": "print(2)\n",
    "lib/t.py": "class T: pass\n",
    "references/guide.md": "# guide\n",
  });
  const listed = await loadSkillDir(dir, tmp.path, LOCAL);
  const inspected = await inspectSkillDir(dir);
  assert.deepEqual(inspected.record, listed);
  assert.deepEqual(listed.scripts.map((s) => s.file), ["bare.py", "run.py"]);
  assert.deepEqual(listed.references, ["references/guide.md"]);
  assert.deepEqual(await validation(dir), [
    "warning /scripts/bare.py: no PEP 723 '# /// script' block; it will run with plain python3",
  ]);
  // A requirements.txt declares its packages as well (python.ts hands it to uv).
  await Deno.writeTextFile(join(dir, "requirements.txt"), "requests\n");
  assert.deepEqual(await validation(dir), []);
});

Deno.test("listing stops at the first problem; validation reports each with its file", async () => {
  await using tmp = await tempDir();
  const dir = (name: string) => join(tmp.path, name);
  await writeTree(dir("no-md"), { "README.md": "hi\n" });
  await writeTree(dir("empty-body"), { "SKILL.md": skillMd("empty-body", "d", "", "\n") });
  await writeTree(dir("escape"), { "SKILL.md": skillMd("escape") });
  await Deno.symlink("/etc/passwd", join(dir("escape"), "passwd"));
  await writeTree(dir("no-toolset"), {
    "SKILL.md": skillMd("no-toolset", "d", "toolsets: ['x:T']\n"),
  });
  await writeTree(dir("big"), { "SKILL.md": skillMd("big") + "a".repeat(MAX_SKILL_MD_BYTES) });
  await writeTree(dir("listed"), { "SKILL.md": skillMd("listed", "d", "scripts: [gone]\n") });

  assert.equal(await listing(dir("missing")), "skill directory is missing");
  assert.deepEqual(await validation(dir("missing")), [
    `error : directory not found: ${dir("missing")}`,
  ]);
  assert.equal(await listing(dir("no-md")), "SKILL.md is missing");
  assert.deepEqual(await validation(dir("no-md")), ["error /SKILL.md: SKILL.md not found"]);
  // What only validation looks at: the body, symlinks, toolset modules, SKILL.md's size.
  assert.equal(await listing(dir("empty-body")), "loaded");
  assert.deepEqual(await validation(dir("empty-body")), [
    "warning /SKILL.md: SKILL.md has no instructions after the front matter",
  ]);
  assert.equal(await listing(dir("escape")), "loaded");
  assert.deepEqual(await validation(dir("escape")), [
    "error /passwd: symlink passwd points outside the skill (refused: skills add installs a copy of a file of the same source in its place, and leaves out one that leads out of the source or nowhere)",
  ]);
  assert.equal(await listing(dir("no-toolset")), "loaded");
  assert.deepEqual(await validation(dir("no-toolset")), [
    "error /SKILL.md: toolset 'x:T': x.py not found in the skill",
  ]);
  assert.equal(await listing(dir("big")), "loaded");
  assert.match((await validation(dir("big")))[0]!, /^error \/SKILL.md: SKILL.md is \d+ bytes/);
  // Both see a listed script that is missing.
  assert.equal(await listing(dir("listed")), "loaded");
  assert.deepEqual(await validation(dir("listed")), [
    "warning /SKILL.md: 'scripts' lists scripts but scripts/ is missing",
  ]);
});

Deno.test("skillDirsAt() names a skill, the skills inside a folder, or the path itself", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, {
    "one/SKILL.md": skillMd("one"),
    "many/b/SKILL.md": skillMd("b"),
    "many/a/SKILL.md": skillMd("a"),
    "many/.hidden/SKILL.md": skillMd("hidden"),
    "many/notes/README.md": "x\n",
    "none/README.md": "x\n",
  });
  const at = (rel: string) => skillDirsAt(join(tmp.path, rel));
  assert.deepEqual(await at("one"), [join(tmp.path, "one")]);
  // Found the way `skills add` finds them: hidden folders such as .claude/skills count.
  assert.deepEqual(await at("many"), [
    join(tmp.path, "many/.hidden"),
    join(tmp.path, "many/a"),
    join(tmp.path, "many/b"),
  ]);
  assert.deepEqual(await at("none"), [join(tmp.path, "none")]);
  assert.deepEqual(await at("missing"), [join(tmp.path, "missing")]);
});

Deno.test("readSkillBody() gives the body the manifest parser splits off, without parsing the front matter again", async () => {
  await using tmp = await tempDir();
  const { parseSkillMd } = await import("../../../src/core/manifest/manifest.ts");
  const texts = [
    "---\nname: body\ndescription: d\n---\n# Title\n\nText.\n",
    "---\r\nname: body\r\ndescription: d\r\n---\r\n# CRLF\r\n",
    "---\nname: body\ndescription: d\n---\nno trailing newline",
    "---\nname: body\ndescription: d\n---\n\n---\nA rule inside the body\n---\n",
    "---\nname: body\ndescription: d\n---\n",
  ];
  for (const [i, text] of texts.entries()) {
    const path = join(tmp.path, `SKILL-${i}.md`);
    await Deno.writeTextFile(path, text);
    const bytes = await Deno.readFile(path);
    const expected = (await parseSkillMd(bytes, path, {})).body;
    const skill = { skillMdPath: path } as Parameters<typeof readSkillBody>[0];
    assert.equal(await readSkillBody(skill), expected, JSON.stringify(text));
  }
  // A file that no longer splits into front matter and body has none.
  const broken = join(tmp.path, "broken.md");
  await Deno.writeTextFile(broken, "no front matter\n");
  assert.equal(
    await readSkillBody({ skillMdPath: broken } as Parameters<typeof readSkillBody>[0]),
    "",
  );
});

Deno.test("validation warns of Git LFS pointers, which hold no content of their own", async () => {
  await using tmp = await tempDir();
  const pointer = (oid: string) =>
    `version https://git-lfs.github.com/spec/v1\noid sha256:${oid.repeat(64)}\nsize 217028\n`;
  const dir = join(tmp.path, "charts");
  await writeTree(dir, {
    "SKILL.md": skillMd("charts"),
    "assets/a.png": pointer("a"),
    "assets/b.png": pointer("b"),
    "examples/c.gif": pointer("c"),
    "examples/d.zip": pointer("d"),
    // Text that quotes a pointer, or a note about one, is no pointer.
    "references/lfs.md": `# LFS\n\n${pointer("e")}`,
    "notes.txt": `version https://git-lfs.github.com/spec/v1 is the pointer format\n`,
  });
  assert.deepEqual(await validation(dir), [
    "warning /assets/a.png: 4 file(s) are Git LFS pointers, not their content (assets/a.png, assets/b.png, examples/c.gif, and 1 more): the repository stores them with Git LFS, which is not fetched; the skill gets the pointers",
  ]);
  // A listing never reads for it (validation only).
  assert.equal(await listing(dir), "loaded");
});

Deno.test("a launcher beside the script it starts: each is a script by its file name, the shared name by neither", async () => {
  await using root = await tempDir();
  const dir = join(root.path, "launcher");
  await writeTree(dir, {
    "SKILL.md": skillMd("launcher"),
    "scripts/report.py": pyScript("print('report')"),
    "scripts/report.sh": '#!/bin/sh\nexec python3 "$(dirname "$0")/report.py" "$@"\n',
    "scripts/solo.py": pyScript("print('solo')"),
  });
  const record = await loadSkillDir(dir, root.path, LOCAL);
  assert.deepEqual(record.scripts.map((s) => [s.name, s.file]), [
    ["report.py", "report.py"],
    ["report.sh", "report.sh"],
    ["solo", "solo.py"],
  ]);
  // Validation passes, and says how the two are called.
  assert.deepEqual(await validation(dir), [
    "warning /scripts: scripts/report.py, scripts/report.sh share the name 'report': each runs " +
    "by its file name (report.py, report.sh), 'report' alone by neither",
  ]);

  // A manifest's `scripts:` may list either by its file name; the shared name picks neither.
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    skillMd("launcher", "d", "scripts: [report.sh, report, solo]\n"),
  );
  const listed = await loadSkillDir(dir, root.path, LOCAL);
  assert.deepEqual(listed.scripts.map((s) => s.name), ["report.sh", "solo"]);
  assert.ok(
    (await validation(dir)).includes(
      "warning /SKILL.md: script 'report' is listed in 'scripts' but scripts/report is missing or not a regular file",
    ),
  );

  // File names that differ only by case, `_` or `-` still call one name: neither is a script.
  await writeTree(dir, { "SKILL.md": skillMd("launcher"), "scripts/Report.sh": "#!/bin/sh\n" });
  const twins = await validation(dir);
  assert.ok(
    twins.some((line) => /^error \/scripts: script names collide: /.test(line)),
    twins.join("\n"),
  );
});
