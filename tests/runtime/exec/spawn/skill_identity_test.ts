/**
 * Who a skill is to its sandbox cache (runtime/exec/spawn/skill_identity.ts): a project
 * skill named like an installed one never shares its cache, and an update starts afresh.
 */

import assert from "node:assert/strict";
import {
  skillCacheIdOf,
  skillGenerationOf,
  skillKeyOf,
} from "../../../../src/runtime/exec/spawn/skill_identity.ts";

Deno.test("skillKeyOf() tells a project skill from an installed one of the same folder and name", async () => {
  const installed = skillKeyOf({ scope: "user", dir: "/skills/pdf", entry: undefined });
  const project = skillKeyOf({ scope: "project", dir: "/skills/pdf", entry: undefined });
  assert.notEqual(installed, project);
  const [a, b] = [await skillCacheIdOf(installed), await skillCacheIdOf(project)];
  assert.match(a, /^[0-9a-f]{16}$/);
  assert.notEqual(a, b);
  assert.equal(await skillCacheIdOf(installed), a, "the same key, the same folder");
});

Deno.test("skillGenerationOf() changes when an installed skill is updated", () => {
  const entry = { installed_at: "2026-01-01T00:00:00Z", trusted_digest: "sha256:aa" };
  const first = skillGenerationOf({ dir: "/s", entry, project: undefined } as never);
  const updated = skillGenerationOf({
    dir: "/s",
    entry: { ...entry, updated_at: "2026-02-01T00:00:00Z" },
    project: undefined,
  } as never);
  assert.notEqual(first, updated);
  assert.equal(skillGenerationOf({ dir: "/bundled/x" } as never), "dir|/bundled/x");
});
