/**
 * npm packages as sources, pure: `npm:<package>[@range]` (scoped names too), the version a
 * range or dist-tag picks from a registry's document and the integrity it must have, and which
 * folders of a package hold skills — under `agents.skills`, `agentskills`, or the layout the
 * other tools read — with what is left out said, never guessed.
 */

import assert from "node:assert/strict";
import { parseSource, shortRevision } from "../../../src/core/sources/sources.ts";
import {
  npmRecordSource,
  packageSkillFolders,
  parseRevision,
  pickVersion,
} from "../../../src/core/sources/npm_source.ts";
import { parseLockfileText, serializeLockfile } from "../../../src/core/records/lockfile.ts";

Deno.test("parseSource() reads npm:<package>[@range], scoped names too", () => {
  assert.deepEqual(parseSource("npm:left-pad"), {
    type: "npm",
    url: "npm:left-pad",
    packageName: "left-pad",
    subpath: "",
    skill: undefined,
    ref: undefined,
  });
  const scoped = parseSource("npm:@org/pkg@^1.2");
  assert.equal(scoped.type, "npm");
  assert.equal(scoped.url, "npm:@org/pkg");
  assert.equal(scoped.ref, "^1.2");
  assert.equal(parseSource("npm:@org/pkg").ref, undefined);
  assert.equal(parseSource("npm:pkg@next").ref, "next");
  assert.equal(parseSource("npm:pkg@>=1.0 <2").ref, ">=1.0 <2");
  assert.equal(parseSource("npm:pkg@latest").ref, undefined, "latest is the default");
});

Deno.test("parseSource() refuses what is no npm package or range", () => {
  for (
    const bad of [
      "npm:",
      "npm:../x",
      "npm:@org",
      "npm:.hidden",
      "npm:a b",
      "npm:pkg@",
      "npm:pkg@^x.y!",
    ]
  ) {
    assert.throws(() => parseSource(bad), /Invalid source/, bad);
  }
  assert.throws(() => npmRecordSource("oci://x/y"), /Invalid npm source/);
});

const DOCUMENT = {
  name: "pkg",
  "dist-tags": { latest: "1.2.0", next: "2.0.0-rc.1" },
  versions: Object.fromEntries(
    ["1.0.0", "1.2.0", "1.3.0-beta.1", "2.0.0-rc.1", "2.1.0"].map((v) => [v, {
      version: v,
      dist: {
        tarball: `https://registry.example/pkg/-/pkg-${v}.tgz`,
        integrity: `sha1-AAAA sha512-${v.replaceAll(".", "")}==`,
      },
    }]),
  ),
};

Deno.test("pickVersion() takes the highest version a range allows, a dist-tag, or a pinned revision", () => {
  const pick = (range?: string, revision?: string) =>
    pickVersion(DOCUMENT, { range, revision }, "npm:pkg").version;
  assert.equal(pick(), "1.2.0", "no range follows latest");
  assert.equal(pick("^1.0"), "1.2.0", "prereleases only when named");
  assert.equal(pick("^2"), "2.1.0");
  assert.equal(pick("next"), "2.0.0-rc.1");
  assert.equal(pick("~1.0.0"), "1.0.0");
  assert.equal(pick(undefined, "1.0.0@sha512-100=="), "1.0.0");
  assert.equal(
    pickVersion(DOCUMENT, { range: "^2", revision: undefined }, "npm:pkg").integrity,
    "sha512-210==",
    "the strongest of the hashes npm gives",
  );
  assert.throws(() => pick("^3"), /No version of npm:pkg matches '\^3'/);
  assert.throws(() => pick(undefined, "9.9.9@sha512-x=="), /No version/);
});

Deno.test("pickVersion() falls back to dist.shasum and refuses a version without either", () => {
  const doc = {
    "dist-tags": { latest: "1.0.0" },
    versions: {
      "1.0.0": { dist: { tarball: "t.tgz", shasum: "ea461532e194b82ca74a86871eefc37719ecb1ed" } },
      "1.1.0": { dist: { tarball: "t.tgz" } },
    },
  };
  assert.equal(
    pickVersion(doc, { range: undefined, revision: undefined }, "npm:x").integrity,
    "sha1-6kYVMuGUuCynSoaHHu/Ddxnsse0=",
  );
  assert.throws(
    () => pickVersion(doc, { range: "1.1.0", revision: undefined }, "npm:x"),
    /no tarball with an integrity/,
  );
});

Deno.test("a record's revision keeps version and integrity together", () => {
  assert.deepEqual(parseRevision("1.2.3@sha512-abc+/=="), {
    version: "1.2.3",
    integrity: "sha512-abc+/==",
  });
  assert.deepEqual(parseRevision("1.2.3"), { version: "1.2.3", integrity: undefined });
  assert.equal(parseRevision("deadbeef"), undefined);
  assert.equal(shortRevision("1.2.3@sha512-abc=="), "1.2.3");
});

const files = (...paths: string[]) => new Set(paths);

Deno.test("packageSkillFolders() reads agents.skills: a list of { name, path }", () => {
  const read = packageSkillFolders(
    {
      agents: {
        skills: [{ name: "a", path: "./skills/a" }, { name: "b", path: "docs/b/SKILL.md" }, {
          name: "c",
        }],
      },
    },
    files(
      "package.json",
      "skills/a/SKILL.md",
      "skills/a/ref.md",
      "docs/b/SKILL.md",
      "skills/z/SKILL.md",
    ),
  );
  assert.deepEqual(read.folders, [
    { path: "skills/a", field: "agents.skills" },
    { path: "docs/b", field: "agents.skills" },
  ]);
  assert.deepEqual(read.notes, ["agents.skills[2]: no path"]);
});

Deno.test("packageSkillFolders() reads agentskills: file: sources inside the package, others noted", () => {
  const read = packageSkillFolders(
    {
      agentskills: {
        lint: "file:./skills/lint",
        review: "github:org/repo/skills/review",
        escape: "file:../../etc",
      },
    },
    files("skills/lint/SKILL.md", "skills/other/SKILL.md"),
  );
  assert.deepEqual(read.folders, [{ path: "skills/lint", field: "agentskills" }]);
  assert.equal(read.notes.length, 2);
  assert.match(read.notes[0]!, /agentskills\.review: .* is hosted elsewhere/);
  assert.match(read.notes[1]!, /agentskills\.escape: .* is not a path inside the package/);
});

Deno.test("packageSkillFolders() reads a folder of skills a field points at", () => {
  const read = packageSkillFolders(
    { agents: { skills: [{ name: "all", path: "skills/" }] } },
    files("skills/a/SKILL.md", "skills/b/SKILL.md", "skills/b/scripts/x.py", "skills/README.md"),
  );
  assert.deepEqual(read.folders.map((f) => f.path), ["skills/a", "skills/b"]);
});

Deno.test("packageSkillFolders() falls back to the layout skills-npm and vercel's sync read", () => {
  const layout = packageSkillFolders(
    { name: "x", skills: ["owner/repo@skill"] },
    files(
      "skills/a/SKILL.md",
      "dist/skills/b/SKILL.md",
      ".agents/skills/c/SKILL.md",
      "lib/index.js",
    ),
  );
  assert.deepEqual(layout.folders.map((f) => f.path), [
    "skills/a",
    "dist/skills/b",
    ".agents/skills/c",
  ]);
  assert.match(layout.notes[0]!, /skills: lists skills hosted elsewhere/);
  const root = packageSkillFolders({}, files("SKILL.md", "skills/a/SKILL.md"));
  assert.deepEqual(root.folders, [{ path: "", field: "layout" }], "a package that is one skill");
  assert.deepEqual(packageSkillFolders("not json", files("index.js")).folders, []);
});

Deno.test("a lock entry of an npm package round-trips through the shared file", () => {
  const text = serializeLockfile({
    lockfileVersion: 2,
    skills: {
      hello: {
        name: "hello",
        source: { type: "npm", url: "npm:@acme/tools", subpath: "skills/hello" },
        branch: null,
        tag: "^1.0",
        ref: null,
        commit: "1.0.0@sha512-abc==",
        digest: `sha256:${"a".repeat(64)}`,
        files: { "SKILL.md": "b".repeat(64) },
        permissions: { env: [], network: [] },
      },
    },
  });
  const shared = JSON.parse(text).skills.hello;
  assert.equal(shared.sourceType, "npm");
  assert.equal(shared.source, "@acme/tools");
  assert.equal(shared.version, "1.0.0");
  assert.equal(shared.integrity, "sha512-abc==");
  const back = parseLockfileText(text);
  assert.ok(back.ok && back.format === "skills");
  assert.deepEqual(back.lock.skills.hello!.source, {
    type: "npm",
    url: "npm:@acme/tools",
    subpath: "skills/hello",
  });
  assert.equal(back.lock.skills.hello!.commit, "1.0.0@sha512-abc==");
  assert.equal(back.lock.skills.hello!.version, undefined, "derived, not kept as an extra");
  const broken = parseLockfileText(
    text.replace('"commit": "1.0.0@sha512-abc=="', '"commit": null'),
  );
  assert.ok(!broken.ok);
});
