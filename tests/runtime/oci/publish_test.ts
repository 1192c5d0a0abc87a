import assert from "node:assert/strict";
import { RegistryClient } from "../../../src/runtime/oci/client.ts";
import {
  buildSkillArtifact,
  INDEX_TYPE,
  publishSkills,
  SKILL_ARTIFACT_TYPE,
  SKILL_CONFIG_TYPE,
} from "../../../src/runtime/oci/publish.ts";
import { parseOciReference } from "../../../src/core/sources/oci_reference.ts";
import { sha256Hex } from "../../../src/core/records/digest.ts";
import { startRegistry, writePack } from "../../helpers/oci_registry.ts";
import { writeShellSkill } from "../../helpers/tree.ts";

async function writeSkill(dir: string, name: string, extra = "") {
  await writeShellSkill(
    dir,
    `name: ${name}\ndescription: Does ${name} things.\nmetadata:\n  version: "1.2.0"`,
    `# ${name}\n${extra}`,
  );
  await Deno.writeTextFile(`${dir}/notes.txt`, "notes\n");
}

async function skopeo(host: string, path: string, raw = true): Promise<Record<string, unknown>> {
  const out = await new Deno.Command("skopeo", {
    args: ["inspect", ...(raw ? ["--raw"] : []), "--tls-verify=false", `docker://${host}/${path}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("publish: same files give the same digest, whatever their mtimes and order on disk", async () => {
  const root = await Deno.makeTempDir();
  try {
    await writeSkill(`${root}/a/demo`, "demo");
    await writeSkill(`${root}/b/demo`, "demo");
    await Deno.utime(`${root}/b/demo/notes.txt`, 1000, 1000);
    await Deno.utime(`${root}/b/demo/SKILL.md`, 2_000_000_000, 2_000_000_000);
    const one = await buildSkillArtifact(`${root}/a/demo`);
    const two = await buildSkillArtifact(`${root}/b/demo`);
    assert.equal(one.digest, two.digest);
    await Deno.writeTextFile(`${root}/b/demo/notes.txt`, "changed\n");
    assert.notEqual((await buildSkillArtifact(`${root}/b/demo`)).digest, one.digest);

    // The layer is a plain tar.gz any tool reads: fixed owners and mtimes, executable kept.
    await Deno.writeFile(`${root}/layer.tar.gz`, one.layer);
    const listing = await new Deno.Command("tar", {
      args: ["--numeric-owner", "-tvzf", `${root}/layer.tar.gz`],
      stdout: "piped",
    }).output();
    const lines = new TextDecoder().decode(listing.stdout).trim().split("\n");
    assert.deepEqual(lines.map((line) => line.split(/\s+/).at(-1)), [
      "SKILL.md",
      "notes.txt",
      "scripts/run.sh",
    ]);
    assert.ok(
      lines.every((line) => line.includes(" 0/0 ") && line.includes("1970-01-01")),
      lines.join("\n"),
    );
    assert.ok(lines[2]?.startsWith("-rwxr-xr-x"), lines[2]);
    const config = JSON.parse(new TextDecoder().decode(one.config));
    assert.equal(config.name, "demo");
    assert.equal(config.frontMatter.description, "Does demo things.");
    assert.deepEqual(config.files[1], { path: "notes.txt", sha256: await sha256Hex("notes\n") });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("publish: a skill becomes an OCI 1.1 artifact, a folder of skills one index; skopeo reads both", async () => {
  const registry = await startRegistry();
  const root = await Deno.makeTempDir();
  try {
    await writePack(root, writeSkill);
    const client = new RegistryClient({ registry: registry.host, credentials: null });
    const single = await publishSkills(
      `${root}/pack/alpha`,
      parseOciReference(`oci://${registry.host}/acme/alpha:1.2.0`),
      client,
    );
    const manifest = await skopeo(registry.host, "acme/alpha:1.2.0");
    assert.equal(manifest.artifactType, SKILL_ARTIFACT_TYPE);
    assert.equal((manifest.config as { mediaType: string }).mediaType, SKILL_CONFIG_TYPE);
    const annotations = manifest.annotations as Record<string, string>;
    assert.equal(annotations["org.opencontainers.image.title"], "alpha");
    assert.equal(annotations["org.opencontainers.image.version"], "1.2.0");
    assert.equal((await client.getManifest("acme/alpha", "1.2.0")).digest, single.digest);

    const many = await publishSkills(
      `${root}/pack`,
      parseOciReference(`oci://${registry.host}/acme/pack:v1`),
      client,
    );
    assert.equal(many.mediaType, INDEX_TYPE);
    assert.deepEqual(many.skills.map((skill) => skill.name), ["alpha", "beta"]);
    assert.equal(many.skills[0]?.digest, single.digest, "same skill, same manifest digest");
    const index = await skopeo(registry.host, "acme/pack:v1");
    const entries = index.manifests as { digest: string; annotations: Record<string, string> }[];
    assert.deepEqual(entries.map((entry) => entry.annotations["io.agentskills.skill.name"]), [
      "alpha",
      "beta",
    ]);
    const beta = await skopeo(registry.host, `acme/pack@${entries[1]?.digest}`);
    assert.equal(beta.artifactType, SKILL_ARTIFACT_TYPE);
  } finally {
    await Deno.remove(root, { recursive: true });
    await registry.close();
  }
});

Deno.test("publish: a folder without skills and a symlink are refused with a reason", async () => {
  const root = await Deno.makeTempDir();
  try {
    const target = parseOciReference("oci://127.0.0.1:1/x:y");
    await assert.rejects(() => publishSkills(root, target), /has no SKILL.md and no skill folders/);
    await writeSkill(`${root}/s`, "s");
    await Deno.symlink("/etc/passwd", `${root}/s/leak`);
    await assert.rejects(() => buildSkillArtifact(`${root}/s`), /is a symbolic link/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
