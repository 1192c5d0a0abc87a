/**
 * ToolHive's `toolhive.requires` as ToolHive writes it — a top-level front matter key holding
 * one reference or a YAML list of them — and under `metadata` as a string or a list, read into
 * the same requirements as before, the string forms unchanged.
 */

import assert from "node:assert/strict";
import { parseSkillMd } from "../../../src/core/manifest/manifest.ts";
import { requirementsOf } from "../../../src/core/sources/requirements.ts";

async function requirementsIn(frontMatter: string) {
  const text = `---\nname: demo\ndescription: A demo.\n${frontMatter}---\n# Demo\n`;
  const { manifest, diagnostics } = await parseSkillMd(
    new TextEncoder().encode(text),
    "SKILL.md",
    {},
  );
  assert.ok(manifest, JSON.stringify(diagnostics));
  return requirementsOf(manifest.metadata, manifest.toolhiveRequires);
}

const sources = (read: { requirements: { source: string }[] }) =>
  read.requirements.map((r) => r.source);

Deno.test("toolhive.requires at the top level, as a YAML list or one string, as ToolHive writes it", async () => {
  assert.deepEqual(
    sources(
      await requirementsIn(
        "toolhive.requires:\n  - ghcr.io/org/skill-a:v1.0.0\n  - ghcr.io/org/skill-b:latest\n",
      ),
    ),
    ["oci://ghcr.io/org/skill-a:v1.0.0", "oci://ghcr.io/org/skill-b:latest"],
  );
  assert.deepEqual(
    sources(await requirementsIn("toolhive.requires: ghcr.io/org/base-skill:v1\n")),
    ["oci://ghcr.io/org/base-skill:v1"],
  );
  const bad = await requirementsIn("toolhive.requires:\n  - https://example.com/x\n");
  assert.deepEqual(bad.problems, [
    "toolhive.requires: 'https://example.com/x' is not an OCI reference without a scheme",
  ]);
});

Deno.test("metadata's toolhive.requires as a list is read; the string forms read as before", async () => {
  assert.deepEqual(
    sources(
      await requirementsIn(
        "metadata:\n  toolhive.requires:\n    - ghcr.io/org/a:v1\n    - ghcr.io/org/b:v2\n",
      ),
    ),
    ["oci://ghcr.io/org/a:v1", "oci://ghcr.io/org/b:v2"],
  );
  assert.deepEqual(
    sources(
      await requirementsIn(
        'metadata:\n  toolhive.requires: "ghcr.io/org/a:v1, ghcr.io/org/b:v2"\n',
      ),
    ),
    ["oci://ghcr.io/org/a:v1", "oci://ghcr.io/org/b:v2"],
  );
  assert.deepEqual(
    sources(await requirementsIn('metadata:\n  requires: "acme/skills@base ^1.2"\n')),
    ["acme/skills@base"],
  );
});
