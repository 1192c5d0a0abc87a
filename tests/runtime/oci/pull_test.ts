import assert from "node:assert/strict";
import { RegistryClient } from "../../../src/runtime/oci/client.ts";
import {
  buildSkillArtifact,
  MANIFEST_TYPE,
  publishSkills,
} from "../../../src/runtime/oci/publish.ts";
import { pullSkills } from "../../../src/runtime/oci/pull.ts";
import { parseOciReference } from "../../../src/core/sources/oci_reference.ts";
import { startRegistry, writePack } from "../../helpers/oci_registry.ts";
import { writeShellSkill } from "../../helpers/tree.ts";

function writeSkill(dir: string, name: string, body = "") {
  return writeShellSkill(dir, `name: ${name}\ndescription: Demo.`, `# ${name}\n${body}`);
}

Deno.test("oci pull: a published skill comes back file for file; an index by --skill name", async () => {
  const registry = await startRegistry();
  const root = await Deno.makeTempDir();
  try {
    await writePack(root, writeSkill);
    const client = new RegistryClient({ registry: registry.host, credentials: null });
    const one = await publishSkills(
      `${root}/pack/alpha`,
      parseOciReference(`oci://${registry.host}/a/alpha:v1`),
      client,
    );
    const [alpha] = await pullSkills(
      parseOciReference(`oci://${registry.host}/a/alpha:v1`),
      client,
    );
    assert.equal(alpha?.name, "alpha");
    assert.equal(alpha?.digest, one.digest);
    assert.deepEqual(alpha?.files.map((file) => [file.path, file.executable]), [
      ["SKILL.md", false],
      ["scripts/run.sh", true],
    ]);
    await publishSkills(
      `${root}/pack`,
      parseOciReference(`oci://${registry.host}/a/pack:v1`),
      client,
    );
    const picked = await pullSkills(parseOciReference(`oci://${registry.host}/a/pack:v1`), client, [
      "beta",
    ]);
    assert.deepEqual(picked.map((skill) => skill.name), ["beta"]);
    await assert.rejects(
      () => pullSkills(parseOciReference(`oci://${registry.host}/a/pack:v1`), client, ["gamma"]),
      /has no skill named gamma/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await registry.close();
  }
});

Deno.test("oci pull: a digest pin keeps its content after the tag moved; a tampered layer and a config that disagrees are refused", async () => {
  const registry = await startRegistry();
  const root = await Deno.makeTempDir();
  try {
    await writeSkill(`${root}/demo`, "demo");
    const client = new RegistryClient({ registry: registry.host, credentials: null });
    const first = await publishSkills(
      `${root}/demo`,
      parseOciReference(`oci://${registry.host}/a/demo:v1`),
      client,
    );
    await Deno.writeTextFile(
      `${root}/demo/SKILL.md`,
      "---\nname: demo\ndescription: Other.\n---\n",
    );
    const moved = await publishSkills(
      `${root}/demo`,
      parseOciReference(`oci://${registry.host}/a/demo:v1`),
      client,
    );
    assert.notEqual(moved.digest, first.digest);
    const pinned = await pullSkills(
      parseOciReference(`oci://${registry.host}/a/demo@${first.digest}`),
      client,
    );
    assert.equal(pinned[0]?.digest, first.digest, "the pin still reads the first content");

    // A manifest whose config lists another sha256 for a file than the layer holds.
    const artifact = await buildSkillArtifact(`${root}/demo`);
    const config = JSON.parse(new TextDecoder().decode(artifact.config));
    config.files[0].sha256 = "0".repeat(64);
    const badConfig = new TextEncoder().encode(JSON.stringify(config));
    const manifest = JSON.parse(new TextDecoder().decode(artifact.manifest));
    manifest.config.digest = await client.pushBlob("a/demo", badConfig);
    manifest.config.size = badConfig.length;
    await client.pushBlob("a/demo", artifact.layer);
    await client.putManifest(
      "a/demo",
      "bad",
      new TextEncoder().encode(JSON.stringify(manifest)),
      MANIFEST_TYPE,
    );
    await assert.rejects(
      () => pullSkills(parseOciReference(`oci://${registry.host}/a/demo:bad`), client),
      /does not match the sha256 its config lists/,
    );

    // The layer's bytes changed in the registry's storage.
    const layerDigest = manifest.layers[0].digest as string;
    const hex = layerDigest.slice(7);
    const path = `${registry.dir}/data/docker/registry/v2/blobs/sha256/${
      hex.slice(0, 2)
    }/${hex}/data`;
    const bytes = await Deno.readFile(path);
    bytes[bytes.length - 5] = (bytes[bytes.length - 5] ?? 0) ^ 0xff;
    await Deno.writeFile(path, bytes);
    await assert.rejects(
      () => pullSkills(parseOciReference(`oci://${registry.host}/a/demo:v1`), client),
      /Cannot trust blob/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await registry.close();
  }
});

Deno.test("oci pull: a blob larger than its manifest promised is cut off and refused", async () => {
  const registry = await startRegistry();
  const root = await Deno.makeTempDir();
  try {
    await writeSkill(`${root}/demo`, "demo", "x".repeat(4096));
    const client = new RegistryClient({ registry: registry.host, credentials: null });
    const artifact = await buildSkillArtifact(`${root}/demo`);
    await client.pushBlob("a/short", artifact.config);
    await client.pushBlob("a/short", artifact.layer);
    const manifest = JSON.parse(new TextDecoder().decode(artifact.manifest));
    manifest.layers[0].size = 16;
    await client.putManifest(
      "a/short",
      "v1",
      new TextEncoder().encode(JSON.stringify(manifest)),
      MANIFEST_TYPE,
    );
    await assert.rejects(
      () => pullSkills(parseOciReference(`oci://${registry.host}/a/short:v1`), client),
      /larger than 16 bytes/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await registry.close();
  }
});
