import assert from "node:assert/strict";
import { characterCount, parseSkillMd } from "../../../src/core/manifest/manifest.ts";
import { utf8 } from "../../helpers/bytes.ts";

async function parse(frontMatter: string) {
  return await parseSkillMd(utf8(`---\n${frontMatter}---\n\nBody.\n`), "SKILL.md");
}

Deno.test("lengths are counted in characters (code points), not UTF-16 units", async () => {
  assert.equal(characterCount("🎉".repeat(3)), 3);
  assert.equal(characterCount("é日本"), 3);
  assert.equal(characterCount("\ud83c"), 1, "a lone surrogate is one character");
  const ok = await parse(`name: party\ndescription: "${"🎉".repeat(600)}"\n`);
  assert.deepEqual(ok.diagnostics.filter((d) => d.level === "error"), []);
  assert.ok(ok.manifest);
  assert.match(
    ok.diagnostics.map((d) => d.message).join("\n"),
    /'description' is 600 characters; keep it under 500/,
  );
  const long = await parse(`name: party\ndescription: "${"🎉".repeat(1025)}"\n`);
  assert.match(
    long.diagnostics.map((d) => d.message).join("\n"),
    /'description' is 1025 characters long \(max 1024/,
  );
});

Deno.test("default mode keeps non-text metadata values as written", async () => {
  for (
    const frontMatter of [
      "name: m\ndescription: d\nmetadata: {version: 1.0, beta: true, build: 007}\n",
      "name: m\ndescription: d\nmetadata:\n  version: 1.0\n  beta: true\n  build: 007\n",
    ]
  ) {
    const parsed = await parse(frontMatter);
    assert.deepEqual(parsed.manifest?.metadata, { version: "1.0", beta: "true", build: "007" });
    assert.ok(
      parsed.diagnostics.some((d) => /'metadata\.version' must be a string/.test(d.message)),
      "still warned as not portable",
    );
  }
});
