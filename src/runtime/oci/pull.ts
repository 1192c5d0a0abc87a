/**
 * Reading a published skill back: the manifest (pinned to its digest), its config and layer
 * (each hashed against the manifest), the tar entries (regular files only, relative paths
 * without `..`), and every file against the config's sha256 list — so a tampered blob, an
 * extra file or a missing one is refused before anything reaches the disk.
 *
 * The other published families are read too, one tar+gzip layer each: salaboy/skills-oci
 * (config `application/vnd.agentskills.skill.config.v1+json` with the front matter, layer
 * `…skill.content.v1.tar+gzip` rooted at `<name>/`), Alibaba ACR (artifactType
 * `application/vnd.agent.skill.v1+json`, an empty config, `org.agent.skill.name` annotations,
 * layer `application/vnd.agent.skill.content.v1.tar+gzip`) and a plain image whose one layer
 * holds a skill folder. They list no files, so their layer is trusted by its digest alone
 * (which the manifest digest pins); skills are then found in it as in a repository.
 */

import { sha256Hex } from "../../core/records/digest.ts";
import { canonicalSkillName, isValidSkillName } from "../../core/manifest/names.ts";
import { MAX_SKILL_FILE_BYTES } from "../../core/manifest/limits.ts";
import { RegistryClient } from "./client.ts";
import { INDEX_TYPE, SKILL_ARTIFACT_TYPE, SKILL_NAME_ANNOTATION } from "./publish.ts";

/** Layer media types that hold a skill as tar+gzip: ours (OCI's), skills-oci's, ACR's, docker's. */
const SKILL_LAYER_TYPES = new Set([
  "application/vnd.oci.image.layer.v1.tar+gzip",
  "application/vnd.agentskills.skill.content.v1.tar+gzip",
  "application/vnd.agent.skill.content.v1.tar+gzip",
  "application/vnd.docker.image.rootfs.diff.tar.gzip",
]);

/** Where the other families put a skill's name: ACR's annotation, then OCI's title. */
const NAME_ANNOTATIONS = [
  SKILL_NAME_ANNOTATION,
  "org.agent.skill.name",
  "org.opencontainers.image.title",
];
import { type OciReference, parseOciReference } from "../../core/sources/oci_reference.ts";

interface PulledSkill {
  name: string;
  /** The skill's name in its index (its folder when pulled into a directory), if any. */
  indexName?: string;
  /** Digest of the skill's manifest: what an install pins. */
  digest: string;
  files: { path: string; bytes: Uint8Array; executable: boolean }[];
}

interface Descriptor {
  mediaType?: string;
  digest: string;
  size?: number;
  annotations?: Record<string, string>;
}

const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

/** Pulls every skill the reference names (an index: each entry, or those in `only`). */
export async function pullSkills(
  ref: OciReference,
  client: RegistryClient,
  only?: readonly string[],
  fetched?: { digest: string; mediaType: string; bytes: Uint8Array },
): Promise<PulledSkill[]> {
  const reference = ref.digest ?? ref.tag ?? "latest";
  const top = fetched ?? await client.getManifest(ref.repository, reference);
  const parsed = decode(top.bytes);
  if (
    top.mediaType === INDEX_TYPE || parsed.mediaType === INDEX_TYPE ||
    Array.isArray(parsed.manifests)
  ) {
    const entries = (parsed.manifests as Descriptor[]).filter((entry) => {
      const name = entry.annotations?.[SKILL_NAME_ANNOTATION];
      return !only || (name !== undefined && only.includes(name));
    });
    if (entries.length > MAX_INDEX_SKILLS) {
      throw new Error(
        `Cannot install from oci://${ref.registry}/${ref.repository}:${reference}: the index lists ${entries.length} skills, more than ${MAX_INDEX_SKILLS}. Refusing it.`,
      );
    }
    if (entries.length === 0) {
      throw new Error(
        `Cannot install from oci://${ref.registry}/${ref.repository}:${reference}: the index has no skill named ${
          only?.join(", ")
        }. Run without --skill to see what it holds.`,
      );
    }
    return await Promise.all(
      entries.map(async (entry) => ({
        ...await pullManifest(ref, client, entry.digest),
        indexName: entry.annotations?.[SKILL_NAME_ANNOTATION] ?? "",
      })),
    );
  }
  return [await pullManifest(ref, client, top.digest, top.bytes)];
}

/** The manifest digest a tag of `oci://registry/repository` points at now (outdated). */
export async function ociTagDigest(url: string, tag: string): Promise<string> {
  const ref = parseOciReference(`${url}:${tag}`);
  const client = new RegistryClient({ registry: ref.registry });
  return (await client.getManifest(ref.repository, tag)).digest;
}

/** An index listing more skills than this is refused (each is a manifest and two blobs). */
const MAX_INDEX_SKILLS = 1000;

/** What a pull into a directory resolved: the top manifest's digest (index or skill). */
interface PulledInto {
  digest: string;
}

/**
 * Pulls a reference into `root` (which must not exist), every blob and file verified first:
 * one skill's files at the root, or an index's skills each in a folder named after it. The
 * digest returned is what the reference resolved to — what an install pins.
 */
export async function pullInto(
  ref: OciReference,
  client: RegistryClient,
  root: string,
): Promise<PulledInto> {
  const reference = ref.digest ?? ref.tag ?? "latest";
  const top = await client.getManifest(ref.repository, reference);
  const skills = await pullSkills({ ...ref, digest: top.digest }, client, undefined, top);
  const folders = new Set<string>();
  await Deno.mkdir(root, { recursive: true });
  for (const skill of skills) {
    let dir = root;
    if (skill.indexName !== undefined) {
      // The folder name comes from the registry: a skill name, nothing else.
      const name = skill.indexName;
      if (!isValidSkillName(name) || folders.has(canonicalSkillName(name))) {
        throw new Error(
          `Cannot install from oci://${ref.registry}/${ref.repository}@${top.digest}: the index names a skill "${name}" twice or not as a skill name. Refusing it.`,
        );
      }
      folders.add(canonicalSkillName(name));
      dir = `${root}/${canonicalSkillName(name)}`;
    }
    for (const file of skill.files) {
      const path = `${dir}/${file.path}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeFile(path, file.bytes, {
        createNew: true,
        mode: file.executable ? 0o755 : 0o644,
      });
    }
  }
  return { digest: top.digest };
}

async function pullManifest(
  ref: OciReference,
  client: RegistryClient,
  digest: string,
  bytes?: Uint8Array,
): Promise<PulledSkill> {
  const manifest = decode(bytes ?? (await client.getManifest(ref.repository, digest)).bytes);
  const where = `oci://${ref.registry}/${ref.repository}@${digest}`;
  const layers = (manifest.layers ?? []) as Descriptor[];
  if (layers.length !== 1 || !layers[0]) {
    throw new Error(
      `Cannot install from ${where}: it has ${layers.length} layers, not one. Publish it with skills publish.`,
    );
  }
  if (layers[0].mediaType !== undefined && !SKILL_LAYER_TYPES.has(layers[0].mediaType)) {
    throw new Error(
      `Cannot install from ${where}: its layer is ${
        layers[0].mediaType
      }, not a tar+gzip skill layer.`,
    );
  }
  // The manifest (pinned by digest) promises each blob's size: never read more than that.
  const configDescriptor = manifest.config as Descriptor;
  const configBytes = await client.getBlob(
    ref.repository,
    configDescriptor.digest,
    promised(configDescriptor, where),
  );
  let config: Record<string, unknown> = {};
  try {
    const parsed = decode(configBytes);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) config = parsed;
  } catch { /* an empty or foreign config: nothing in it is needed */ }
  const files = untar(
    await gunzip(
      await client.getBlob(ref.repository, layers[0].digest, promised(layers[0], where)),
      where,
    ),
    where,
  );
  const ours = manifest.artifactType === SKILL_ARTIFACT_TYPE;
  if (!Array.isArray(config.files)) {
    // Our artifacts always list their files; a manifest that says it is ours but lists none
    // is refused. The other families list none: the layer's digest vouches for it.
    if (ours) {
      throw new Error(`Cannot install from ${where}: its config lists no files. Refusing it.`);
    }
    return { name: foreignName(config, manifest.annotations), digest, files };
  }
  const listed = new Map<string, string>(
    (config.files as { path: string; sha256: string }[]).map((file) => [file.path, file.sha256]),
  );
  if (listed.size !== files.length) {
    throw new Error(
      `Cannot install from ${where}: the layer holds ${files.length} files but the config lists ${listed.size}. Refusing it.`,
    );
  }
  for (const file of files) {
    const expected = listed.get(file.path);
    if (expected !== await sha256Hex(file.bytes)) {
      throw new Error(
        `Cannot install from ${where}: ${file.path} does not match the sha256 its config lists. Refusing it.`,
      );
    }
  }
  return { name: foreignName(config, manifest.annotations), digest, files };
}

/** The skill's name as the config or the annotations give it ("" when none does). */
function foreignName(config: Record<string, unknown>, annotations: unknown): string {
  if (typeof config.name === "string") return config.name;
  const notes = (annotations ?? {}) as Record<string, unknown>;
  for (const key of NAME_ANNOTATIONS) if (typeof notes[key] === "string") return notes[key];
  return "";
}

/** A layer unpacks to at most this much: a small gzip must not fill the memory. */
const MAX_LAYER_BYTES = 1024 * 1024 * 1024;

async function gunzip(bytes: Uint8Array, where: string): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > MAX_LAYER_BYTES) {
      throw new Error(
        `Cannot install from ${where}: its layer unpacks to more than 1 GiB. Refusing it.`,
      );
    }
    chunks.push(chunk);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function untar(tar: Uint8Array, where: string): PulledSkill["files"] {
  const files: PulledSkill["files"] = [];
  const text = (from: number, length: number) =>
    new TextDecoder().decode(tar.subarray(from, from + length)).replace(/\0.*$/s, "");
  /** The next entry's path from a PAX (`x`) or GNU (`L`) header, when one came first. */
  let longPath: string | undefined;
  for (let offset = 0; offset + 512 <= tar.length;) {
    if (tar.subarray(offset, offset + 512).every((byte) => byte === 0)) break;
    const name = text(offset, 100);
    const prefix = text(offset + 345, 155);
    const raw = longPath ?? (prefix ? `${prefix}/${name}` : name);
    longPath = undefined;
    // `tar -C dir .` writes `./SKILL.md`; directories end with `/`.
    const path = raw.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
    const size = parseInt(text(offset + 124, 12).trim() || "0", 8);
    const type = text(offset + 156, 1) || "0";
    const mode = parseInt(text(offset + 100, 8).trim() || "0", 8);
    const start = offset + 512;
    offset = start + Math.ceil(size / 512) * 512;
    if (size > MAX_SKILL_FILE_BYTES || offset > tar.length) {
      throw new Error(
        `Cannot install from ${where}: ${path} is ${size} bytes, too large or cut short. Refusing it.`,
      );
    }
    if (type === "5" || path === "") continue; // directories come from the files' paths
    if (type === "g") continue; // global PAX header: nothing a skill's files need
    if (type === "x" || type === "L") {
      const body = new TextDecoder().decode(tar.subarray(start, start + size));
      longPath = type === "L"
        ? body.replace(/\0.*$/s, "")
        : /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body)?.[1];
      continue;
    }
    if (type !== "0") {
      throw new Error(
        `Cannot install from ${where}: ${path} is not a regular file (tar type ${type}). Refusing it.`,
      );
    }
    if (path.startsWith("/") || path.split("/").some((p) => p === ".." || p === "." || p === "")) {
      throw new Error(
        `Cannot install from ${where}: the path ${path} leaves the skill folder. Refusing it.`,
      );
    }
    files.push({ path, bytes: tar.slice(start, start + size), executable: (mode & 0o100) !== 0 });
  }
  return files;
}

/** The size a descriptor promises, checked: a whole number up to the layer limit. */
function promised(descriptor: Descriptor, where: string): number {
  const size = descriptor.size;
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > MAX_LAYER_BYTES) {
    throw new Error(
      `Cannot install from ${where}: blob ${descriptor.digest} has no valid size in its manifest. Refusing it.`,
    );
  }
  return size;
}
