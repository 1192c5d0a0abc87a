/**
 * A document skill's copy-then-edit flow under `skills run`, laid out as Anthropic's docx
 * skill is (tests/fixtures/runner-skills/docx-lab): `office/unpack` unzips a .docx into the
 * user's folder, `comment` copies empty comment parts from the skill's `templates/` with
 * `shutil.copy` (which copies the mode too) and edits them, `office/pack` zips it back. Files
 * a script copies out of its skill must be writable in the workspace, while the skill's
 * verified copy stays as it was.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runCli, tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { SANDBOX_MODES } from "../../helpers/sandbox.ts";
import { computeDigest } from "../../../src/runtime/trust/file_hashes.ts";

/** A minimal .docx: a zip with content types, one part and its relationships. */
const MAKE_DOCX = `
import zipfile
with zipfile.ZipFile("report.docx", "w") as z:
    z.writestr("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
    z.writestr("word/document.xml", '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Quarterly figures</w:t></w:r></w:p></w:body></w:document>')
    z.writestr("word/_rels/document.xml.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>')
`;

/** The named parts of a zip archive, as text. */
const READ_DOCX = `
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    print(json.dumps({n: z.read(n).decode() for n in z.namelist()}))
`;

async function python(source: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command("python3", { args: ["-c", source, ...args], cwd }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

async function docxLab(mode: string) {
  const dir = await tempDir("skills-docx-");
  const home = join(dir.path, "skills-home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await Deno.chmod(work, 0o755);
  const installed = await installRunnerSkill(home, "docx-lab");
  await python(MAKE_DOCX, [], work);
  const run = (args: string[]): Promise<CliResult> =>
    runCli(["run", "docx-lab", ...args], {
      env: { SKILLS_HOME: home, SKILLS_SANDBOX: mode },
      cwd: work,
    });
  return {
    dir,
    home,
    work,
    installed,
    run,
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

function ok(result: CliResult): void {
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
}

for (const [label, mode, where] of SANDBOX_MODES) {
  Deno.test(
    `${label}: docx-like unpack → comment → pack works; templates copied out of the skill are writable`,
    where,
    async () => {
      await using lab = await docxLab(mode);
      const before = await computeDigest(lab.installed);
      ok(await lab.run(["office/unpack", "report.docx", "unpacked"]));

      const first = await lab.run(["comment", "unpacked", "0", "Check these figures"]);
      ok(first);
      assert.match(first.stdout, /added comment 0/);
      assert.doesNotMatch(first.stderr, /--write|sandbox refused/);
      const copied = join(lab.work, "unpacked", "word", "comments.xml");
      assert.notEqual(
        (await Deno.stat(copied)).mode! & 0o200,
        0,
        "a template copied out of the skill keeps a write bit for its owner",
      );
      // The copies exist now: the reply edits them again.
      ok(await lab.run(["comment", "unpacked", "1", "Agreed", "--parent", "0"]));
      ok(await lab.run(["office/pack", "unpacked", "reviewed.docx"]));

      const parts = JSON.parse(await python(READ_DOCX, ["reviewed.docx"], lab.work));
      assert.match(parts["word/comments.xml"], /Check these figures[\s\S]*Agreed/);
      assert.match(parts["word/commentsExtended.xml"], /w15:paraIdParent="00000000"/);
      assert.match(parts["[Content_Types].xml"], /\/word\/comments\.xml/);
      assert.match(parts["word/_rels/document.xml.rels"], /Target="comments\.xml"/);

      // The skill is unchanged, and so is its verified copy's template.
      assert.equal(await computeDigest(lab.installed), before);
      const runDir = join(lab.home, ".cache", "run");
      const copy = [...Deno.readDirSync(runDir)].find((e) =>
        e.isDirectory && e.name.startsWith("docx-lab-")
      );
      assert.ok(copy !== undefined);
      const template = await Deno.readTextFile(
        join(runDir, copy.name, "scripts", "templates", "comments.xml"),
      );
      assert.doesNotMatch(template, /Check these figures/);
    },
  );
}

for (const [label, mode, where] of SANDBOX_MODES) {
  Deno.test(
    `${label}: the verified copy's files, writable by their owner, still never change what runs`,
    where,
    async () => {
      await using lab = await docxLab(mode);
      const tried = await lab.run(["edit_template"]);
      ok(tried);
      const outcome = JSON.parse(tried.stdout);
      if (mode === "auto") {
        // The sandbox binds the copy read-only, whatever the file's mode (a root CLI's
        // script also runs as a uid that does not own it).
        assert.equal(outcome.changed, false, tried.stdout);
        assert.match(outcome.error, /^(Read-only file system|Permission denied)$/);
      }
      // Outside the sandbox an owner may write it; the next run re-checks the copy and makes
      // a fresh one, so the template a script copies is the verified one.
      ok(await lab.run(["office/unpack", "report.docx", "unpacked"]));
      ok(await lab.run(["comment", "unpacked", "0", "Fresh"]));
      const comments = await Deno.readTextFile(join(lab.work, "unpacked", "word", "comments.xml"));
      assert.doesNotMatch(comments, /changed/);
    },
  );
}
