/**
 * A CLI run from a system folder (`/etc`, `/usr`, `/var`, …: core/policy/workspace.ts
 * SYSTEM_FOLDERS) never gives the script a writable workspace: it reads it, its writes fail,
 * and stderr says why; `--write` of a system folder is refused. As root, today's design would
 * have written /etc as root.
 */

import assert from "node:assert/strict";
import { setupLab } from "./sandbox_helpers.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";

Deno.test(
  "run from /etc, the script reads it but cannot write it, and the user is told",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const planted = `/etc/skills-planted-${crypto.randomUUID().slice(0, 8)}`;
    try {
      const result = await lab.run(
        ["sandbox-lab", "attempt", `write:${planted}`, "read:/etc/hostname", "--json"],
        {},
        { cwd: "/etc" },
      );
      assert.equal(result.code, 0, result.stderr);
      const seen = JSON.parse(result.stdout);
      assert.equal(seen[`write:${planted}`].ok, false, seen[`write:${planted}`].detail);
      assert.equal(seen["read:/etc/hostname"].ok, true, seen["read:/etc/hostname"].detail);
      assert.match(
        result.stderr,
        /warning: the workspace is a system folder \(\/etc\): scripts get \/etc read-only/,
      );
      await assert.rejects(Deno.lstat(planted), Deno.errors.NotFound);
    } finally {
      await Deno.remove(planted).catch(() => {});
    }
  },
);

Deno.test("--write of a system folder is refused with a reason", needsSandbox, async () => {
  await using lab = await setupLab();
  for (const path of ["/etc", "/usr/local/bin", "/var/spool"]) {
    const result = await lab.run(["--write", path, "sandbox-lab", "attempt", "--json"]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /Cannot grant --write .*: it is a system folder/);
  }
});
