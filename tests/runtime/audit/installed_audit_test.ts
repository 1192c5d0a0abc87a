/**
 * The audit kept per installed skill: reused while the rules and the installed files are
 * the same, redone when either changed, and when the kept file is broken.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { auditRecordPath, installedAudit } from "../../../src/runtime/audit/installed_audit.ts";
import { localEntry } from "../../helpers/install_fixture.ts";
import { tempDir } from "../../helpers/cli.ts";
import { writeSample } from "../../fixtures/audit_corpus.ts";

Deno.test("installedAudit() keeps an audit per digest and rules version, and redoes a broken one", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const dir = join(home, "kept");
  await writeSample(dir, {
    "SKILL.md": "---\nname: kept\ndescription: d\n---\nSee https://api.weather.gov/points\n",
  });
  const entry = localEntry("kept", dir, { installed_digest: "sha256:one" });

  const first = await installedAudit(home, entry);
  assert.equal(first.refreshed, true);
  assert.deepEqual(first.report.endpoints, ["https://api.weather.gov/points"]);
  assert.equal((await installedAudit(home, entry)).refreshed, false);

  // Other files (an update): audited again.
  await Deno.writeTextFile(join(dir, "extra.md"), "and https://alerts.weather.gov/x\n");
  const moved = await installedAudit(home, { ...entry, installed_digest: "sha256:two" });
  assert.equal(moved.refreshed, true);
  assert.equal(moved.report.endpoints.length, 2);

  // A kept file that is not a valid record is never believed.
  await Deno.writeTextFile(auditRecordPath(home, "kept"), '{"rules_version": 1}');
  assert.equal(
    (await installedAudit(home, { ...entry, installed_digest: "sha256:two" })).refreshed,
    true,
  );
});
