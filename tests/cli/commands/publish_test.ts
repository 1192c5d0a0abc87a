import assert from "node:assert/strict";
import { runCli } from "../../helpers/cli.ts";
import { startRegistry } from "../../helpers/oci_registry.ts";
import { writeSkillMd } from "../../helpers/tree.ts";

function writeSkill(dir: string, name: string) {
  return writeSkillMd(dir, `name: ${name}\ndescription: Demo ${name}.`, `# ${name}\n`);
}

Deno.test("skills publish: pushes a skill, prints its digest, --json; skopeo reads the same digest", async () => {
  const registry = await startRegistry();
  const root = await Deno.makeTempDir();
  try {
    await writeSkill(`${root}/demo`, "demo");
    const plain = await runCli([
      "publish",
      `${root}/demo`,
      `oci://${registry.host}/acme/demo:1.0.0`,
    ]);
    assert.equal(plain.code, 0, plain.stderr);
    const digest = plain.stdout.trim().split("\n").at(-1)?.split("@").at(-1) ?? "";
    assert.match(digest, /^sha256:[a-f0-9]{64}$/);
    const inspected = await new Deno.Command("skopeo", {
      args: [
        "inspect",
        "--raw",
        "--tls-verify=false",
        `docker://${registry.host}/acme/demo@${digest}`,
      ],
      stdout: "piped",
    }).output();
    assert.ok(inspected.success);
    const again = await runCli([
      "publish",
      `${root}/demo`,
      `oci://${registry.host}/acme/demo:1.0.1`,
      "--json",
    ]);
    assert.equal(again.code, 0, again.stderr);
    const json = JSON.parse(again.stdout);
    assert.equal(json.digest, digest, "same files, same digest");
    assert.equal(json.reference, `oci://${registry.host}/acme/demo:1.0.1`);
  } finally {
    await Deno.remove(root, { recursive: true });
    await registry.close();
  }
});

Deno.test("skills publish: bad targets and unreachable registries are explained", async () => {
  const root = await Deno.makeTempDir();
  try {
    await writeSkill(`${root}/demo`, "demo");
    const bad = await runCli(["publish", `${root}/demo`, "ghcr.io/acme/demo"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /does not start with oci:\/\//);
    const pinned = await runCli([
      "publish",
      `${root}/demo`,
      `oci://127.0.0.1:1/a@sha256:${"0".repeat(64)}`,
    ]);
    assert.equal(pinned.code, 2);
    assert.match(pinned.stderr, /Publish to a tag/);
    const down = await runCli(["publish", `${root}/demo`, "oci://127.0.0.1:1/acme/demo:v1"]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /Cannot reach registry 127\.0\.0\.1:1/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
