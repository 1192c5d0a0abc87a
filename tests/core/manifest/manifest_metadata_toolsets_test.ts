/** `metadata.toolsets`: the strict-valid way to declare typed toolsets (used by `skills init`). */
import assert from "node:assert/strict";
import { parseSkillMd } from "../../../src/core/manifest/manifest.ts";

const md = (frontMatter: string) =>
  new TextEncoder().encode(`---\n${frontMatter}\n---\n\n# Body\n`);

Deno.test("await parseSkillMd() reads toolsets from metadata.toolsets and stays strict-valid", async () => {
  const parsed = await parseSkillMd(
    md(
      'name: demo\ndescription: A demo.\nmetadata:\n  toolsets: "toolsets.demo:DemoTools other.mod:Other"',
    ),
    "SKILL.md",
    { strict: true, dirName: "demo" },
  );
  assert.deepEqual(parsed.diagnostics, []);
  assert.deepEqual(parsed.manifest?.toolsets, ["toolsets.demo:DemoTools", "other.mod:Other"]);
});

Deno.test("await parseSkillMd() merges top-level toolsets with metadata.toolsets without duplicates", async () => {
  const parsed = await parseSkillMd(
    md(
      "name: demo\ndescription: A demo.\ntoolsets:\n  - toolsets.a:A\nmetadata:\n  toolsets: toolsets.a:A toolsets.b:B",
    ),
    "SKILL.md",
  );
  assert.deepEqual(parsed.manifest?.toolsets, ["toolsets.a:A", "toolsets.b:B"]);
});

Deno.test("await parseSkillMd() rejects a malformed metadata.toolsets entry with the metadata line", async () => {
  const parsed = await parseSkillMd(
    md("name: demo\ndescription: A demo.\nmetadata:\n  toolsets: ../evil.py"),
    "SKILL.md",
  );
  assert.equal(parsed.manifest, undefined);
  const error = parsed.diagnostics.find((d) => d.level === "error");
  assert.match(error?.message ?? "", /'metadata\.toolsets' entry '\.\.\/evil\.py'/);
  assert.equal(error?.line, 4);
});
