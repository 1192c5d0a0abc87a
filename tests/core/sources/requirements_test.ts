/**
 * What a SKILL.md requires, read from `metadata.requires` (sources with optional semver
 * ranges) and ToolHive's `toolhive.requires` (OCI references without a scheme), and the
 * ranges matched against git tags.
 */

import assert from "node:assert/strict";
import {
  bestTag,
  parseRange,
  requirementsOf,
  satisfies,
} from "../../../src/core/sources/requirements.ts";

Deno.test("requirementsOf() reads our requires (with ranges) and ToolHive's OCI references", () => {
  const read = requirementsOf({
    requires: "acme/skills@base ^1.2, https://skills.example.com\noci://ghcr.io/a/b:1",
    "toolhive.requires": "ghcr.io/org/base-skill:v1\nghcr.io/org/style:v2",
    owner: "someone",
  });
  assert.deepEqual(read.problems, []);
  assert.deepEqual(read.requirements.map((r) => [r.source, r.range, r.field]), [
    ["acme/skills@base", "^1.2", "requires"],
    ["https://skills.example.com", undefined, "requires"],
    ["oci://ghcr.io/a/b:1", undefined, "requires"],
    ["oci://ghcr.io/org/base-skill:v1", undefined, "toolhive.requires"],
    ["oci://ghcr.io/org/style:v2", undefined, "toolhive.requires"],
  ]);
  const bad = requirementsOf({
    requires: "acme/x not-a-range!",
    "toolhive.requires": "oci://ghcr.io/x",
  });
  assert.equal(bad.requirements.length, 0);
  assert.equal(bad.problems.length, 2);
  assert.deepEqual(requirementsOf(undefined), { requirements: [], problems: [], unread: [] });
  // grahama1970's `requires: docker`: a program, in the free map every tool shares — no source
  // of a skill, so not read as one (and no refusal), while a real source beside it still is.
  const note = requirementsOf({ requires: "docker, acme/skills@base\nffmpeg >=6" });
  assert.deepEqual(note.problems, []);
  assert.deepEqual(note.unread, ["docker", "ffmpeg >=6"]);
  assert.deepEqual(note.requirements.map((r) => r.source), ["acme/skills@base"]);
});

Deno.test("satisfies() and bestTag() follow npm's range forms on v-prefixed tags", () => {
  const cases: [string, string, boolean][] = [
    ["^1.2", "v1.9.0", true],
    ["^1.2", "v2.0.0", false],
    ["^0.2.3", "0.2.9", true],
    ["^0.2.3", "0.3.0", false],
    ["~1.2.0", "1.2.7", true],
    ["~1.2.0", "1.3.0", false],
    [">=1.0 <2", "1.5.0", true],
    [">=1.0 <2", "2.0.0", false],
    ["1.x", "1.4.0", true],
    ["1.2.3", "v1.2.3", true],
    ["^1 || ^3", "3.1.0", true],
    ["^1", "1.5.0-beta.1", false],
    ["*", "7.0.0", true],
  ];
  for (const [range, tag, expected] of cases) {
    assert.equal(satisfies(range, tag), expected, `${range} ${tag}`);
  }
  assert.equal(parseRange("^x.y!"), undefined);
  const tags = ["v1.0.0", "v1.2.0", "v1.3.0", "v2.0.0", "latest"];
  assert.equal(bestTag(["^1"], tags), "v1.3.0");
  assert.equal(bestTag(["^1", "~1.2"], tags), "v1.2.0");
  assert.equal(bestTag(["^2", "~1.2"], tags), undefined);
});
