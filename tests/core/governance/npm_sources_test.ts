/**
 * An npm package as an organisation's policy and bill of materials see it: its identity is
 * `npm:<package>` — never read as a GitHub path a `github.com/*\/*` pattern would allow — and
 * its purl is `pkg:npm/…@<version>`.
 */

import assert from "node:assert/strict";
import { sourceIdentity, sourceMatches } from "../../../src/core/governance/policy_checks.ts";
import { cycloneDx } from "../../../src/core/governance/sbom.ts";

Deno.test("an npm source is matched as npm:<package>, not as a git host's path", () => {
  const identity = sourceIdentity({ type: "npm", url: "npm:@Acme/Tools" });
  assert.equal(identity, "npm:@acme/tools");
  assert.ok(sourceMatches("npm:@acme/*", identity));
  assert.ok(sourceMatches("**", identity));
  assert.ok(!sourceMatches("github.com/*/*", identity));
  assert.ok(!sourceMatches("https://github.com/**", identity));
});

Deno.test("a locked npm skill's purl names the package and its version", () => {
  const bom = cycloneDx({
    project: "app",
    setDigest: `sha256:${"0".repeat(64)}`,
    tool: { name: "skills", version: "0.0.0" },
    skills: {
      alpha: {
        name: "alpha",
        source: { type: "npm", url: "npm:@acme/tools", subpath: "skills/alpha" },
        branch: null,
        tag: "^1.0",
        ref: null,
        commit: "1.2.0@sha512-abc==",
        digest: `sha256:${"a".repeat(64)}`,
        files: { "SKILL.md": "b".repeat(64) },
        permissions: { env: [], network: [] },
      },
    },
  });
  const component = (bom.components as { purl?: string }[])[0]!;
  assert.equal(component.purl, "pkg:npm/%40acme/tools@1.2.0#skills/alpha");
});
