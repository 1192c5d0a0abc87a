/**
 * Reading a published skill back: the manifest (pinned to its digest; an index's entries each
 * pinned by the digest they name, never a tag), its config and layer (each hashed against the
 * manifest), the tar entries (regular files only, relative paths without `..`), and every
 * file against the config's sha256 list — so a tampered blob, an extra file or a missing one
 * is refused. Layers stream (unpack.ts): each is gunzipped and read as tar a piece at a time
 * into the pull's staging folder, within limits per layer and per pull, an index's layers a
 * few at a time; what a refused pull wrote is staging the caller removes, never installed.
 *
 * The other published families are read too, one tar+gzip layer each: salaboy/skills-oci
 * (config `application/vnd.agentskills.skill.config.v1+json` with the front matter, layer
 * `…skill.content.v1.tar+gzip` rooted at `<name>/`), Alibaba ACR (artifactType
 * `application/vnd.agent.skill.v1+json`, an empty config, `org.agent.skill.name` annotations,
 * layer `application/vnd.agent.skill.content.v1.tar+gzip`) and a plain image whose one layer
 * holds a skill folder. They list no files, so their layer is trusted by its digest alone
 * (which the manifest digest pins); skills are then found in it as in a repository.
 */

import { canonicalSkillName, isValidSkillName } from "../../core/names.ts";
import { RegistryClient } from "./client.ts";
import { type FileSink, MAX_LAYER_BYTES, UnpackBudget, unpackLayer } from "./unpack.ts";
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

/** A manifest digest: an index entry names nothing else (a tag there would not be pinned). */
const DIGEST = /^sha256:[a-f0-9]{64}$/;
/** Layers of an index unpacked at once: each holds a few pieces in memory, never a layer. */
const UNPACK_PARALLELISM = 2;
/** A config is JSON listing a skill's files: this is far more than any needs. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** What the reference names: one skill's manifest, or the entries of an index. */
interface Plan {
  top: { digest: string; mediaType: string; bytes: Uint8Array };
  /** Each skill's manifest digest and its name in the index (undefined: not an index). */
  entries: { digest: string; indexName?: string }[];
}

/** The manifest (pinned) and, for an index, its entries (`only`: those named), checked. */
async function planPull(
  ref: OciReference,
  client: RegistryClient,
  only: readonly string[] | undefined,
  fetched: Plan["top"] | undefined,
): Promise<Plan> {
  const reference = ref.digest ?? ref.tag ?? "latest";
  const top = fetched ?? await client.getManifest(ref.repository, reference);
  const parsed = decode(top.bytes);
  const isIndex = top.mediaType === INDEX_TYPE || parsed.mediaType === INDEX_TYPE ||
    Array.isArray(parsed.manifests);
  if (!isIndex) return { top, entries: [{ digest: top.digest }] };
  const where = `oci://${ref.registry}/${ref.repository}@${top.digest}`;
  const entries = (parsed.manifests as Descriptor[]).filter((entry) => {
    const name = entry.annotations?.[SKILL_NAME_ANNOTATION];
    return !only || (name !== undefined && only.includes(name));
  });
  if (entries.length > MAX_INDEX_SKILLS) {
    throw new Error(
      `Cannot install from ${where}: the index lists ${entries.length} skills, more than ${MAX_INDEX_SKILLS}. Refusing it.`,
    );
  }
  if (entries.length === 0) {
    throw new Error(
      `Cannot install from ${where}: the index has no skill named ${
        only?.join(", ")
      }. Run without --skill to see what it holds.`,
    );
  }
  for (const entry of entries) {
    // The index is pinned by its digest; an entry is only as pinned as the digest it names.
    if (typeof entry.digest !== "string" || !DIGEST.test(entry.digest)) {
      throw new Error(
        `Cannot install from ${where}: an entry names ${
          JSON.stringify(String(entry.digest)).slice(0, 80)
        }, not a manifest digest (sha256:<64 hex>), so what it points at could change. Refusing it.`,
      );
    }
  }
  return {
    top,
    entries: entries.map((entry) => ({
      digest: entry.digest,
      indexName: entry.annotations?.[SKILL_NAME_ANNOTATION] ?? "",
    })),
  };
}

/**
 * Runs `work` on each item, at most `limit` at a time. The first failure stops the budget (so
 * the layers under way end at their next piece) and is thrown once every worker has ended:
 * nothing still writes when the caller cleans up.
 */
async function inBatches<T, R>(
  items: readonly T[],
  limit: number,
  budget: UnpackBudget,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
      } catch (error) {
        failure ??= { error };
        budget.stop();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}

/** Files kept in memory (for callers that want them, not a folder): bounded by the budget. */
function memorySink(files: PulledSkill["files"]): FileSink {
  return {
    open(path, executable) {
      const pieces: Uint8Array[] = [];
      return Promise.resolve({
        write: (piece) => {
          pieces.push(piece.slice());
          return Promise.resolve();
        },
        close: () => {
          const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
          let at = 0;
          for (const piece of pieces) {
            bytes.set(piece, at);
            at += piece.length;
          }
          files.push({ path, bytes, executable });
          return Promise.resolve();
        },
      });
    },
  };
}

/** Files written under `dir` as they arrive (new files only; folders made on the way). */
function folderSink(dir: string): FileSink {
  return {
    async open(path, executable) {
      const target = `${dir}/${path}`;
      await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
      const file = await Deno.open(target, {
        write: true,
        createNew: true,
        mode: executable ? 0o755 : 0o644,
      });
      return {
        write: async (piece) => {
          for (let at = 0; at < piece.length;) at += await file.write(piece.subarray(at));
        },
        close: () => Promise.resolve(file.close()),
      };
    },
  };
}

/** Pulls every skill the reference names (an index: each entry, or those in `only`). */
export async function pullSkills(
  ref: OciReference,
  client: RegistryClient,
  only?: readonly string[],
  fetched?: { digest: string; mediaType: string; bytes: Uint8Array },
): Promise<PulledSkill[]> {
  const plan = await planPull(ref, client, only, fetched);
  const budget = new UnpackBudget();
  return await inBatches(plan.entries, UNPACK_PARALLELISM, budget, async (entry) => {
    const files: PulledSkill["files"] = [];
    const pulled = await pullManifest(ref, client, entry.digest, budget, memorySink(files));
    files.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    return {
      name: pulled.name,
      digest: entry.digest,
      files,
      ...(entry.indexName === undefined ? {} : { indexName: entry.indexName }),
    };
  });
}

/** The manifest digest a tag of `oci://registry/repository` points at now (outdated). */
export async function ociTagDigest(url: string, tag: string): Promise<string> {
  const ref = parseOciReference(`${url}:${tag}`);
  const client = new RegistryClient({ registry: ref.registry });
  return (await client.getManifest(ref.repository, tag)).digest;
}

/** The tags of the repository an `oci://registry/repository` source names (for ranges). */
export async function ociTags(url: string): Promise<string[]> {
  const ref = parseOciReference(url);
  const client = new RegistryClient({ registry: ref.registry });
  return await client.listTags(ref.repository);
}

/** An index listing more skills than this is refused (each is a manifest and two blobs). */
const MAX_INDEX_SKILLS = 1000;

/** What a pull into a directory resolved: the top manifest's digest (index or skill). */
interface PulledInto {
  digest: string;
}

/**
 * Pulls a reference into `root` (which must not exist), every blob and file verified as it
 * streams in: one skill's files at the root, or an index's skills each in a folder named
 * after it, a few at a time, within one budget. The digest returned is what the reference
 * resolved to — what an install pins. On a refusal, what was written is the caller's to
 * remove (it stages in a folder of its own): nothing of it is installed.
 */
export async function pullInto(
  ref: OciReference,
  client: RegistryClient,
  root: string,
): Promise<PulledInto> {
  const reference = ref.digest ?? ref.tag ?? "latest";
  const top = await client.getManifest(ref.repository, reference);
  const plan = await planPull({ ...ref, digest: top.digest }, client, undefined, top);
  const folders = new Set<string>();
  const targets = plan.entries.map((entry) => {
    if (entry.indexName === undefined) return { entry, dir: root };
    // The folder name comes from the registry: a skill name, nothing else.
    const name = entry.indexName;
    if (!isValidSkillName(name) || folders.has(canonicalSkillName(name))) {
      throw new Error(
        `Cannot install from oci://${ref.registry}/${ref.repository}@${top.digest}: the index names a skill "${name}" twice or not as a skill name. Refusing it.`,
      );
    }
    folders.add(canonicalSkillName(name));
    return { entry, dir: `${root}/${canonicalSkillName(name)}` };
  });
  await Deno.mkdir(root, { recursive: true });
  const budget = new UnpackBudget();
  await inBatches(targets, UNPACK_PARALLELISM, budget, async ({ entry, dir }) => {
    await Deno.mkdir(dir, { recursive: true });
    await pullManifest(ref, client, entry.digest, budget, folderSink(dir));
  });
  return { digest: top.digest };
}

/**
 * One skill's manifest (pinned by `digest`), its config and its one layer streamed into
 * `sink`; our artifacts' files checked against the sha256 list of their config.
 */
async function pullManifest(
  ref: OciReference,
  client: RegistryClient,
  digest: string,
  budget: UnpackBudget,
  sink: FileSink,
): Promise<{ name: string }> {
  const manifest = decode((await client.getManifest(ref.repository, digest)).bytes);
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
    promised(configDescriptor, where, MAX_CONFIG_BYTES),
  );
  let config: Record<string, unknown> = {};
  try {
    const parsed = decode(configBytes);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) config = parsed;
  } catch { /* an empty or foreign config: nothing in it is needed */ }
  const ours = manifest.artifactType === SKILL_ARTIFACT_TYPE;
  if (ours && !Array.isArray(config.files)) {
    // Our artifacts always list their files; a manifest that says it is ours but lists none
    // is refused. The other families list none: the layer's digest vouches for it.
    throw new Error(`Cannot install from ${where}: its config lists no files. Refusing it.`);
  }
  const layer = await client.openBlob(
    ref.repository,
    layers[0].digest,
    promised(layers[0], where, MAX_LAYER_BYTES),
  );
  const files = await unpackLayer(
    layer,
    {
      where,
      repository: `${ref.registry}/${ref.repository}`,
      digest: layers[0].digest,
    },
    budget,
    sink,
  );
  const name = foreignName(config, manifest.annotations);
  if (!Array.isArray(config.files)) return { name };
  const listed = new Map<string, string>(
    (config.files as { path: string; sha256: string }[]).map((file) => [file.path, file.sha256]),
  );
  if (listed.size !== files.length) {
    throw new Error(
      `Cannot install from ${where}: the layer holds ${files.length} files but the config lists ${listed.size}. Refusing it.`,
    );
  }
  for (const file of files) {
    if (listed.get(file.path) !== file.sha256) {
      throw new Error(
        `Cannot install from ${where}: ${file.path} does not match the sha256 its config lists. Refusing it.`,
      );
    }
  }
  return { name };
}

/** The skill's name as the config or the annotations give it ("" when none does). */
function foreignName(config: Record<string, unknown>, annotations: unknown): string {
  if (typeof config.name === "string") return config.name;
  const notes = (annotations ?? {}) as Record<string, unknown>;
  for (const key of NAME_ANNOTATIONS) if (typeof notes[key] === "string") return notes[key];
  return "";
}

/** The size a descriptor promises, checked: a whole number up to `limit`. */
function promised(descriptor: Descriptor, where: string, limit: number): number {
  const size = descriptor.size;
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > limit) {
    throw new Error(
      `Cannot install from ${where}: blob ${descriptor.digest} has no valid size in its manifest (at most ${limit} bytes). Refusing it.`,
    );
  }
  return size;
}
