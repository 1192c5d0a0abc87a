/** The manifest's field table (src/core/manifest/manifest_fields.ts) as the validator runs it. */
import assert from "node:assert/strict";
import { parseSkillMd } from "../../../src/core/manifest/manifest.ts";
import { MANIFEST_FIELDS, SPEC_KEYS } from "../../../src/core/manifest/manifest_fields.ts";
import { utf8 } from "../../helpers/bytes.ts";

Deno.test("the spec's keys named by strict mode are exactly the table's spec rows", () => {
  const specRows = MANIFEST_FIELDS.filter((f) => f.origin === "spec").map((f) => f.key);
  assert.deepEqual([...SPEC_KEYS].sort(), specRows.sort());
});

Deno.test("every row reports a value of the wrong kind on its own line, in both modes", async () => {
  for (const field of MANIFEST_FIELDS) {
    // A mapping is the wrong kind for every field but metadata, which a list is wrong for.
    const wrong = field.key === "metadata" ? "[1]" : "{a: 1}";
    const lines = ["name: demo", "description: A demo.", `${field.key}: ${wrong}`]
      .filter((line, i) => i === 2 || !line.startsWith(`${field.key}:`));
    const text = `---\n${lines.join("\n")}\n---\n# Body\n`;
    const line = text.split("\n").indexOf(`${field.key}: ${wrong}`) + 1;
    for (const strict of [false, true]) {
      const { diagnostics } = await parseSkillMd(utf8(text), "SKILL.md", { strict });
      const own = diagnostics.filter((d) => d.line === line && d.message.includes(field.key));
      assert.ok(own.length > 0, `${field.key} (strict: ${strict}): ${JSON.stringify(diagnostics)}`);
    }
  }
});

Deno.test("requires: {mcp: [...]} (ComposioHQ's form) names the MCP servers; another shape is ignored, said so", async () => {
  const parse = (requires: string) =>
    parseSkillMd(
      utf8(`---\nname: brex-automation\ndescription: Automates Brex.\n${requires}\n---\n# Body\n`),
      "SKILL.md",
    );
  for (const form of ["requires:\n  mcp: [rube]", "requires:\n  mcp:\n    - rube"]) {
    const { manifest, diagnostics } = await parse(form);
    assert.deepEqual(manifest?.mcpServers, ["rube"]);
    assert.deepEqual(diagnostics, [], "no 'unknown field' warning for a field we read");
  }
  const other = await parse('requires: "acme/skills@base ^1.2"');
  assert.equal(other.manifest?.mcpServers, undefined);
  assert.match(
    other.diagnostics[0]!.message,
    /'requires' is read only as \{mcp: \[server, \.\.\.\]\}/,
  );
  const extra = await parse("requires:\n  mcp: [rube]\n  bins: [jq]");
  assert.deepEqual(extra.manifest?.mcpServers, ["rube"]);
  assert.deepEqual(extra.diagnostics.map((d) => d.message), ["'requires.bins' is not read"]);
});
