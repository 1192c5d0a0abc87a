import assert from "node:assert/strict";
import {
  emptyRegistry,
  parseRegistry,
  type RegistryEntry,
  removeEntry,
  serializeRegistry,
  upsertEntry,
} from "../../../src/core/records/registry.ts";

function entry(name: string): RegistryEntry {
  return {
    name,
    name_canonical: name.toLowerCase(),
    source: { type: "git", url: `file:///repos/${name}.git`, subpath: "" },
    commit_sha: "a".repeat(40),
    branch: "main",
    tag: null,
    ref: null,
    installed_path: `/home/.agent/skills/${name.toLowerCase()}`,
    trusted: true,
    trusted_digest: "sha256:" + "b".repeat(64),
    installed_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
  };
}

Deno.test("registry round-trips and keeps entries sorted by canonical name", () => {
  let registry = emptyRegistry();
  for (const name of ["zeta", "Alpha", "mid"]) registry = upsertEntry(registry, entry(name));
  const text = serializeRegistry(registry);
  const parsed = parseRegistry(text);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.registry.skills.map((e) => e.name_canonical), ["alpha", "mid", "zeta"]);
  assert.equal(parsed.registry.version, 1);
});

Deno.test("upsertEntry() replaces by canonical name and removeEntry() drops it", () => {
  let registry = upsertEntry(emptyRegistry(), entry("one"));
  registry = upsertEntry(registry, { ...entry("one"), commit_sha: "c".repeat(40) });
  assert.equal(registry.skills.length, 1);
  assert.equal(registry.skills[0]!.commit_sha, "c".repeat(40));
  assert.equal(removeEntry(registry, "one").skills.length, 0);
});

Deno.test("parseRegistry() explains every kind of corruption instead of returning empty", () => {
  const table: [string, RegExp][] = [
    ["", /not valid JSON/],
    ['{"version":1,"skills":[', /not valid JSON/],
    ["[]", /does not match the registry schema/],
    ['{"version":1}', /skills/],
    ['{"version":1,"skills":[{"name":"x"}]}', /skills\.0/],
    ['{"version":99,"skills":[]}', /newer skills/],
    [JSON.stringify({ version: 1, skills: [entry("a"), entry("a")] }), /lists 'a' twice/],
  ];
  for (const [text, reason] of table) {
    const parsed = parseRegistry(text);
    assert.ok(!parsed.ok, text);
    assert.match(parsed.reason, reason, text);
  }
});

Deno.test("parseRegistry() names the field at fault, however deep", () => {
  const table: [unknown, string][] = [
    [[], "does not match the registry schema: expected object, got array"],
    [{ skills: [] }, "does not match the registry schema at version: expected number, got nothing"],
    [
      { version: 1, skills: [entry("a"), { ...entry("b"), commit_sha: 7 }] },
      "does not match the registry schema at skills.1.commit_sha: expected string or null, got number",
    ],
    [
      { version: 1, skills: [{ ...entry("a"), source: { ...entry("a").source, type: "svn" } }] },
      'does not match the registry schema at skills.0.source.type: expected "git", "local", "oci", "web" or "npm", got "svn"',
    ],
    [
      { version: 1, skills: [{ ...entry("a"), trusted: "yes" }] },
      "does not match the registry schema at skills.0.trusted: expected boolean, got string",
    ],
  ];
  for (const [value, reason] of table) {
    assert.deepEqual(parseRegistry(JSON.stringify(value)), { ok: false, reason });
  }
});

Deno.test("parseRegistry() preserves unknown fields written by newer versions", () => {
  const text = JSON.stringify({
    version: 1,
    skills: [{ ...entry("a"), future_field: 7 }],
    extra: true,
  });
  const parsed = parseRegistry(text);
  assert.ok(parsed.ok);
  assert.equal((parsed.registry.skills[0] as Record<string, unknown>).future_field, 7);
  assert.match(serializeRegistry(parsed.registry), /future_field/);
});

Deno.test("allowed_risky is optional: old entries still parse, a recorded one round-trips, a bad one is named", () => {
  const old = parseRegistry(serializeRegistry(upsertEntry(emptyRegistry(), entry("plain"))));
  assert.ok(old.ok);
  assert.equal(old.registry.skills[0]!.allowed_risky, undefined);

  const accepted = {
    ...entry("risky"),
    allowed_risky: {
      accepted_at: "2026-02-01T00:00:00.000Z",
      rules_version: "1-0badc0de",
      findings: ["fetch-and-execute scripts/setup.sh:2"],
    },
  };
  const parsed = parseRegistry(serializeRegistry(upsertEntry(emptyRegistry(), accepted)));
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.registry.skills[0]!.allowed_risky, accepted.allowed_risky);

  const bad = parseRegistry(JSON.stringify({
    version: 1,
    skills: [{ ...accepted, allowed_risky: { ...accepted.allowed_risky, findings: [3] } }],
  }));
  assert.ok(!bad.ok);
  assert.match(bad.reason, /skills\.0\.allowed_risky\.findings\.0: expected string/);
});
