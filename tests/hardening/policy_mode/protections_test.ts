/**
 * `skills check` says which protections this machine lacks (issue 23's policy-mode
 * paragraph): none under the OS sandbox, and in policy mode the ones it cannot enforce —
 * network, secrets, hidden home, limits — each with what it does instead where it does
 * something. Every protection names the test that proves it, and that test exists.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { PROTECTIONS } from "../../../src/core/policy/protections.ts";
import { REPO_ROOT, runCli, tempDir } from "../../helpers/cli.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";

Deno.test("every protection names a test that exists", async () => {
  for (const p of PROTECTIONS) {
    const info = await Deno.stat(join(REPO_ROOT, "tests", p.test));
    assert.ok(info.isFile, `${p.id}: ${p.test}`);
  }
});

Deno.test(
  "skills check lists what policy mode does not enforce, and nothing under the sandbox",
  needsSandbox,
  async () => {
    await using home = await tempDir();
    const env = { SKILLS_HOME: home.path };
    const sandboxed = JSON.parse((await runCli(["check", "--json"], { env })).stdout).sandbox;
    assert.equal(sandboxed.mode, "bwrap");
    assert.deepEqual(sandboxed.missing, []);

    const off = await runCli(["check", "--json"], { env: { ...env, SKILLS_SANDBOX: "off" } });
    const missing = JSON.parse(off.stdout).sandbox.missing as {
      id: string;
      instead: string | null;
    }[];
    const ids = missing.map((m) => m.id);
    for (
      const id of ["network", "secrets", "hidden-home", "limits", "read-only", "guarded-paths"]
    ) {
      assert.ok(ids.includes(id), `${id} in ${ids.join(", ")}`);
    }
    assert.ok(!ids.includes("trust") && !ids.includes("env"), "enforced in both modes");
    assert.match(missing.find((m) => m.id === "guarded-paths")!.instead!, /quarantine/);

    const text = await runCli(["check"], { env: { ...env, SKILLS_SANDBOX: "off" } });
    assert.match(text.stdout, /Not enforced here without the OS sandbox:\n {4}- /);
    assert.match(text.stdout, /no network but the public hosts the skill declares and you grant/);
  },
);

Deno.test("docs/security.md states every protection and its test", async () => {
  const readme = await Deno.readTextFile(join(REPO_ROOT, "docs", "security.md"));
  for (const p of PROTECTIONS) {
    // deno fmt pads the cells: compare them trimmed.
    const cells = readme.split("\n").map((line) => line.split("|").map((c) => c.trim()))
      .find((row) => row[1] === p.label);
    assert.ok(cells, `docs/security.md has no row for ${p.id}`);
    assert.equal(cells[2], p.sandbox ? "yes" : "no", p.id);
    assert.equal(cells[4], `\`tests/${p.test}\``, p.id);
  }
});

Deno.test("the macOS profile writes nowhere shared and reads no home", async () => {
  // Not applied automatically (sandbox-exec cannot run here): its rules are checked as text.
  const profile = await Deno.readTextFile(join(REPO_ROOT, "src", "runtime", "sandbox", "macos.sb"));
  const rules = profile.split("\n").filter((line) => !line.trim().startsWith(";;")).join("\n");
  const writes = /\(allow file-write\*([\s\S]*?)\)\n\(/.exec(rules)?.[1] ?? "";
  assert.match(writes, /\(subpath \(param "WORK_DIR"\)\)/);
  assert.doesNotMatch(writes, /"\/private\/tmp"/, "no shared /tmp");
  assert.match(rules, /\(deny file-read\*\s+\(subpath "\/Users"\)/);
  assert.match(rules, /\(deny default\)/);
  assert.doesNotMatch(rules, /\(allow network/);
});
