/**
 * A skill as an OCI 1.1 artifact: an image manifest with our own `artifactType`, a config
 * blob holding the front matter and every file's sha256 (the list our lockfile uses), one
 * deterministic tar+gzip layer, standard annotations. A folder of skills becomes one OCI
 * index whose entries name each skill.
 */

import { loadFrontMatterYaml, splitSkillMd } from "../../core/manifest/frontmatter.ts";
import { RegistryClient, sha256Digest } from "./client.ts";
import { packLayer, readSkillFolder } from "./pack.ts";
import type { OciReference } from "../../core/sources/oci_reference.ts";

export const SKILL_ARTIFACT_TYPE = "application/vnd.agentskills.skill.v1";
export const SKILL_CONFIG_TYPE = "application/vnd.agentskills.skill.config.v1+json";
const LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip";
export const MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json";
export const INDEX_TYPE = "application/vnd.oci.image.index.v1+json";
export const SKILL_NAME_ANNOTATION = "io.agentskills.skill.name";

interface SkillArtifact {
  name: string;
  config: Uint8Array;
  layer: Uint8Array;
  manifest: Uint8Array;
  digest: string;
}

interface PublishResult {
  reference: string;
  digest: string;
  mediaType: string;
  skills: { name: string; digest: string }[];
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** Builds a skill's blobs and manifest without touching the network. */
export async function buildSkillArtifact(dir: string): Promise<SkillArtifact> {
  const files = await readSkillFolder(dir);
  const skillMd = files.find((file) => file.path === "SKILL.md");
  if (!skillMd) {
    throw new Error(
      `Cannot publish "${dir}": it has no SKILL.md. Point publish at a skill folder.`,
    );
  }
  const split = splitSkillMd(new TextDecoder().decode(skillMd.bytes));
  const frontMatter =
    (split.yaml ? await loadFrontMatterYaml(split.yaml, split.yamlLine) : {}) as Record<
      string,
      unknown
    >;
  const name = typeof frontMatter?.name === "string" ? frontMatter.name : "";
  if (!name) {
    throw new Error(`Cannot publish "${dir}": SKILL.md has no name in its front matter. Add one.`);
  }
  const packed = await packLayer(files);
  const config = json({ schemaVersion: 1, name, frontMatter, files: packed.files });
  const annotations: Record<string, string> = {
    "org.opencontainers.image.title": name,
    [SKILL_NAME_ANNOTATION]: name,
  };
  if (typeof frontMatter.description === "string") {
    annotations["org.opencontainers.image.description"] = frontMatter.description.slice(0, 1024);
  }
  const version = (frontMatter.metadata as Record<string, unknown> | undefined)?.version ??
    frontMatter.version;
  if (typeof version === "string") annotations["org.opencontainers.image.version"] = version;
  const manifest = json({
    schemaVersion: 2,
    mediaType: MANIFEST_TYPE,
    artifactType: SKILL_ARTIFACT_TYPE,
    config: {
      mediaType: SKILL_CONFIG_TYPE,
      digest: await sha256Digest(config),
      size: config.length,
    },
    layers: [{
      mediaType: LAYER_TYPE,
      digest: await sha256Digest(packed.layer),
      size: packed.layer.length,
      annotations: { "org.opencontainers.image.title": `${name}.tar.gz` },
    }],
    annotations,
  });
  return { name, config, layer: packed.layer, manifest, digest: await sha256Digest(manifest) };
}

async function isSkillFolder(dir: string): Promise<boolean> {
  try {
    return (await Deno.stat(`${dir}/SKILL.md`)).isFile;
  } catch {
    return false;
  }
}

/** Publishes one skill folder, or every skill folder inside `dir` as one index. */
export async function publishSkills(
  dir: string,
  target: OciReference,
  client = new RegistryClient({ registry: target.registry }),
): Promise<PublishResult> {
  const tag = target.tag ?? "latest";
  const dirs: string[] = [];
  if (await isSkillFolder(dir)) dirs.push(dir);
  else {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory && await isSkillFolder(`${dir}/${entry.name}`)) {
        dirs.push(`${dir}/${entry.name}`);
      }
    }
    dirs.sort();
    if (dirs.length === 0) {
      throw new Error(
        `Cannot publish "${dir}": it has no SKILL.md and no skill folders. Point publish at a skill or a folder of skills.`,
      );
    }
  }
  const artifacts = await Promise.all(dirs.map(buildSkillArtifact));
  const names = new Set<string>();
  for (const artifact of artifacts) {
    if (names.has(artifact.name)) {
      throw new Error(
        `Cannot publish "${dir}": two skills are named "${artifact.name}". Rename one.`,
      );
    }
    names.add(artifact.name);
  }
  const reference = `oci://${target.registry}/${target.repository}:${tag}`;
  for (const artifact of artifacts) {
    await client.pushBlob(target.repository, artifact.config);
    await client.pushBlob(target.repository, artifact.layer);
  }
  const skills = artifacts.map((artifact) => ({ name: artifact.name, digest: artifact.digest }));
  if (artifacts.length === 1 && artifacts[0] && (await isSkillFolder(dir))) {
    const only = artifacts[0];
    await client.putManifest(target.repository, tag, only.manifest, MANIFEST_TYPE);
    return { reference, digest: only.digest, mediaType: MANIFEST_TYPE, skills };
  }
  for (const artifact of artifacts) {
    await client.putManifest(target.repository, artifact.digest, artifact.manifest, MANIFEST_TYPE);
  }
  const index = json({
    schemaVersion: 2,
    mediaType: INDEX_TYPE,
    artifactType: SKILL_ARTIFACT_TYPE,
    manifests: artifacts.map((artifact) => ({
      mediaType: MANIFEST_TYPE,
      artifactType: SKILL_ARTIFACT_TYPE,
      digest: artifact.digest,
      size: artifact.manifest.length,
      annotations: { [SKILL_NAME_ANNOTATION]: artifact.name },
    })),
  });
  const digest = await client.putManifest(target.repository, tag, index, INDEX_TYPE);
  return { reference, digest, mediaType: INDEX_TYPE, skills };
}
