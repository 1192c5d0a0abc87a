import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  declaredServices,
  diffFiles,
  emptyLockfile,
  foreignSkillFolder,
  type LockedSkill,
  parseLockfileText,
  safeRelativePath,
  samePatterns,
  serializeLockfile,
  withLockedSkill,
  withoutLockedSkill,
  withoutServices,
} from "../../../src/core/records/lockfile.ts";
import { foreignComputedHash } from "../../../src/core/records/peer_lockfile.ts";

const SHA = "a".repeat(64);
const COMMIT = "0123456789abcdef0123456789abcdef01234567";

function entry(overrides: Partial<LockedSkill> = {}): LockedSkill {
  return {
    name: "pdf-tools",
    source: { type: "git", url: "https://github.com/o/r.git", subpath: "skills/pdf-tools" },
    branch: "main",
    tag: null,
    ref: null,
    commit: COMMIT,
    digest: `sha256:${"b".repeat(64)}`,
    files: { "scripts/run.py": SHA, "SKILL.md": SHA },
    permissions: { env: ["PDF_*"] },
    ...overrides,
  };
}

const doc = (skills: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ lockfileVersion: 1, skills, ...extra });

Deno.test("parseLockfileText() reads this tool's lockfile and keeps fields it does not know", () => {
  const parsed = parseLockfileText(doc({ "pdf-tools": { ...entry(), future: 1 } }, { note: "x" }));
  assert.ok(parsed.ok && parsed.format === "skills");
  assert.equal(parsed.lock.skills["pdf-tools"]!.commit, COMMIT);
  assert.equal(parsed.lock.note, "x");
  assert.equal((parsed.lock.skills["pdf-tools"] as Record<string, unknown>).future, 1);
});

Deno.test("parseLockfileText() refuses what it cannot trust, with the field that is wrong", () => {
  const cases: [string, RegExp][] = [
    ["{", /is not valid JSON/],
    [doc({ "pdf-tools": entry({ commit: "main" }) }), /skills\.pdf-tools\.commit/],
    [
      doc({ "pdf-tools": entry({ files: { "../etc/passwd": SHA, "SKILL.md": SHA } }) }),
      /\.\.\/etc\/passwd/,
    ],
    [
      doc({ "pdf-tools": entry({ files: { "/abs": SHA, "SKILL.md": SHA } }) }),
      /not a relative path/,
    ],
    [doc({ "pdf-tools": entry({ files: { "run.py": SHA } }) }), /does not list SKILL.md/],
    [doc({ "pdf-tools": entry({ files: { "SKILL.md": "nope" } }) }), /SKILL\.md/],
    [doc({ "pdf-tools": entry({ digest: "md5:1" }) }), /digest/],
    [doc({ "PDF_Tools": entry() }), /not a canonical skill name/],
    [doc({ "pdf-tools": entry({ name: "other" }) }), /'other' is not the skill named by the key/],
    [doc({ "pdf-tools": entry({ commit: null }) }), /a git source needs the commit/],
    [
      doc({ "pdf-tools": entry({ source: { type: "svn", url: "x", subpath: "" } as never }) }),
      /source\.type/,
    ],
    [JSON.stringify({ lockfileVersion: 3, skills: {} }), /newer skills \(lockfileVersion 3/],
    [
      JSON.stringify({ version: 1, lockfileVersion: 3, skills: {} }),
      /newer skills \(lockfileVersion 3/,
    ],
    [JSON.stringify({ skills: {} }), /neither this tool's lockfile nor/],
  ];
  for (const [text, reason] of cases) {
    const parsed = parseLockfileText(text);
    assert.ok(!parsed.ok, text);
    assert.match(parsed.reason, reason, text);
  }
});

Deno.test("parseLockfileText() reads a vercel-labs skills-lock.json (version 1, no commit)", () => {
  const parsed = parseLockfileText(JSON.stringify({
    version: 1,
    skills: {
      zeta: { source: "o/r", sourceType: "github", computedHash: SHA },
      alpha: {
        source: "o/r",
        sourceType: "github",
        ref: "v2",
        skillPath: "skills/alpha/SKILL.md",
        computedHash: SHA,
      },
    },
  }));
  assert.ok(parsed.ok && parsed.format === "vercel");
  assert.deepEqual(parsed.entries, [
    {
      name: "alpha",
      source: "o/r",
      sourceType: "github",
      sourceUrl: null,
      ref: "v2",
      skillPath: "skills/alpha/SKILL.md",
      computedHash: SHA,
    },
    {
      name: "zeta",
      source: "o/r",
      sourceType: "github",
      sourceUrl: null,
      ref: null,
      skillPath: null,
      computedHash: SHA,
    },
  ]);
});

Deno.test("serializeLockfile() sorts skills and files, so two branches merge cleanly", () => {
  let lock = withLockedSkill(emptyLockfile(), "zeta", entry({ name: "zeta" }));
  lock = withLockedSkill(lock, "alpha", entry({ name: "alpha" }));
  const text = serializeLockfile(lock);
  assert.ok(text.indexOf('"alpha"') < text.indexOf('"zeta"'));
  assert.ok(text.indexOf('"SKILL.md"') < text.indexOf('"scripts/run.py"'));
  assert.ok(text.endsWith("}\n"));
  const back = parseLockfileText(text);
  assert.ok(back.ok && back.format === "skills");
  assert.deepEqual(Object.keys(withoutLockedSkill(back.lock, "zeta").skills), ["alpha"]);
});

Deno.test("serializeLockfile() writes the peer's fields beside ours; reading it back gives the same entries", () => {
  const local = entry({
    name: "notes",
    source: { type: "local", url: "vendor/notes", subpath: "" },
    branch: null,
    commit: null,
  });
  const lock = withLockedSkill(
    withLockedSkill(emptyLockfile(), "pdf-tools", entry({ ref: "v1", computedHash: SHA })),
    "notes",
    local,
  );
  const data = JSON.parse(serializeLockfile(lock));
  assert.equal(data.version, 1);
  assert.equal(data.lockfileVersion, 2);
  assert.deepEqual(data.skills["pdf-tools"], {
    source: "o/r",
    sourceType: "github",
    sourceUrl: "https://github.com/o/r.git",
    ref: COMMIT,
    skillPath: "skills/pdf-tools/SKILL.md",
    computedHash: SHA,
    name: "pdf-tools",
    branch: "main",
    tag: null,
    pinnedRef: "v1",
    commit: COMMIT,
    digest: `sha256:${"b".repeat(64)}`,
    files: { "SKILL.md": SHA, "scripts/run.py": SHA },
    permissions: { env: ["PDF_*"] },
  });
  // A path the peer reads as a path (it would read `vendor/notes` as owner/repo).
  assert.equal(data.skills.notes.source, "./vendor/notes");
  assert.equal(data.skills.notes.sourceType, "local");
  const back = parseLockfileText(serializeLockfile(lock));
  assert.ok(back.ok && back.format === "skills");
  assert.deepEqual(back.lock.skills["pdf-tools"], lock.skills["pdf-tools"]);
  assert.deepEqual(back.lock.skills.notes, local);
});

Deno.test("serializeLockfile() names the commit as the peer's ref only where the peer can fetch one", () => {
  const at = (url: string) =>
    JSON.parse(serializeLockfile(withLockedSkill(
      emptyLockfile(),
      "pdf-tools",
      entry({ source: { type: "git", url, subpath: "" } }),
    ))).skills["pdf-tools"];
  assert.equal(at("https://git.corp.com/g/r.git").ref, COMMIT);
  assert.equal(at("https://git.corp.com/g/r.git").sourceType, "git");
  assert.equal(at("https://gitlab.com/g/r").sourceType, "gitlab");
  assert.equal(at("git@host:o/r.git").ref, COMMIT);
  // The peer keeps `#…` as part of a file:// path: no ref, it installs the default branch.
  assert.equal(at("file:///srv/r.git").ref, undefined);
  assert.equal(at("file:///srv/r.git").skillPath, "SKILL.md");
});

Deno.test("parseLockfileText() reads a file the peer rewrote in part as the peer's: every entry, commits resolved anew", () => {
  const ours = JSON.parse(
    serializeLockfile(withLockedSkill(emptyLockfile(), "pdf-tools", entry())),
  );
  // What the peer's writer leaves: `version` and `skills` only, our entry spread as it was.
  const parsed = parseLockfileText(JSON.stringify({
    version: 1,
    skills: {
      ...ours.skills,
      theirs: { source: "o/r", sourceType: "github", skillPath: "x/SKILL.md", computedHash: SHA },
    },
  }));
  assert.ok(parsed.ok && parsed.format === "vercel");
  assert.deepEqual(parsed.entries.map((e) => [e.name, e.ref, e.skillPath, e.computedHash]), [
    ["pdf-tools", COMMIT, "skills/pdf-tools/SKILL.md", null],
    ["theirs", null, "x/SKILL.md", SHA],
  ]);
});

Deno.test("diffFiles() names every changed, added and removed file", () => {
  const actual = new Map([["SKILL.md", SHA], ["scripts/run.py", "c".repeat(64)], ["new.md", SHA]]);
  assert.deepEqual(diffFiles({ "SKILL.md": SHA, "scripts/run.py": SHA, "gone.md": SHA }, actual), [
    { path: "gone.md", change: "removed" },
    { path: "new.md", change: "added" },
    { path: "scripts/run.py", change: "changed" },
  ]);
  assert.deepEqual(diffFiles({ "SKILL.md": SHA }, new Map([["SKILL.md", SHA]])), []);
});

Deno.test("samePatterns(), safeRelativePath(), foreignSkillFolder()", () => {
  assert.ok(samePatterns(["B_*", "A"], ["A", "B_*", "A"]));
  assert.ok(!samePatterns(["A"], ["A", "B"]));
  for (const bad of ["", "/x", "a/../b", "a//b", "./a", "a\\b", "C:x", "a\u0000b"]) {
    assert.ok(!safeRelativePath(bad), bad);
  }
  assert.ok(safeRelativePath("scripts/run.py"));
  assert.equal(foreignSkillFolder("skills/pdf/SKILL.md"), "skills/pdf");
  assert.equal(foreignSkillFolder("./skills/pdf/"), "skills/pdf");
  assert.equal(foreignSkillFolder("SKILL.md"), "");
  assert.equal(foreignSkillFolder(null), "");
  assert.equal(foreignSkillFolder("../outside"), undefined);
  assert.equal(foreignSkillFolder("a/.git/x"), undefined);
});

Deno.test("foreignComputedHash() is vercel-labs' algorithm: sorted paths, each path then its bytes", async () => {
  const files = [
    { path: "scripts/b.py", bytes: new TextEncoder().encode("print(2)\n") },
    { path: "SKILL.md", bytes: new TextEncoder().encode("---\nname: x\n---\n") },
  ];
  const expected = createHash("sha256");
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    expected.update(f.path).update(f.bytes);
  }
  assert.equal(await foreignComputedHash(files), expected.digest("hex"));
});

Deno.test("a lock entry keeps the scripts declared as services, read back; an update states them anew", () => {
  const declared = entry({ permissions: { env: [], network: [], ...declaredServices(["serve"]) } });
  const parsed = parseLockfileText(doc({ "pdf-tools": declared }));
  assert.ok(parsed.ok && parsed.format === "skills");
  assert.deepEqual(parsed.lock.skills["pdf-tools"]!.permissions.services, ["serve"]);
  const wrong = parseLockfileText(
    doc({ "pdf-tools": entry({ permissions: { env: [], services: "serve" as never } }) }),
  );
  assert.equal(wrong.ok, false, "services must be a list of names");
  assert.deepEqual(declaredServices([]), {}, "none declared: nothing recorded");
  assert.deepEqual(withoutServices(declared.permissions), { env: [], network: [] });
});
