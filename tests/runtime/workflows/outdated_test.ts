/**
 * The outdated workflow (runtime/workflows/outdated.ts) over a real repository that moves:
 * which skills of which scope a user is told are outdated, which only saw their repository
 * move, which scope alone is checked when asked, and that nothing is installed or written.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { outdatedWorkflow } from "../../../src/runtime/workflows/outdated.ts";
import { bench } from "../../helpers/workflows.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

Deno.test(
  "outdatedWorkflow tells an edited skill from one whose repository only moved, in both scopes",
  { ignore: SKIP_SLOW },
  async () => {
    await using b = await bench();
    await b.add("user", ["alpha"]);
    await b.add("project", ["beta"]);
    const statuses = async (scope?: "user" | "project") =>
      (await outdatedWorkflow({ ...b.request, scope }, {})).map((r) => [r.scope, r.name, r.status]);
    assert.deepEqual(await statuses(), [
      ["project", "beta", "up_to_date"],
      ["user", "alpha", "up_to_date"],
    ]);

    const head = await b.repo.commit({ "skills/alpha/references/guide.md": "# alpha, revised\n" });
    const lock = await Deno.readTextFile(join(b.root, "skills-lock.json"));
    const registry = await Deno.readTextFile(join(b.home, "registry.json"));
    const progress: string[] = [];
    const results = await outdatedWorkflow(b.request, { progress: (l) => void progress.push(l) });
    assert.deepEqual(results.map((r) => [r.scope, r.name, r.status, r.latest]), [
      ["project", "beta", "moved", head],
      ["user", "alpha", "outdated", head],
    ]);
    assert.ok(progress.length > 0, "the remote asked is said");
    assert.deepEqual(await statuses("project"), [["project", "beta", "moved"]]);
    assert.deepEqual(await statuses("user"), [["user", "alpha", "outdated"]]);
    // Checking installs nothing.
    assert.equal(await Deno.readTextFile(join(b.root, "skills-lock.json")), lock);
    assert.equal(await Deno.readTextFile(join(b.home, "registry.json")), registry);
  },
);
