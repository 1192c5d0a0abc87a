/**
 * A signature as an OCI 1.1 referrer: an artifact manifest (`artifactType` below) whose
 * layers are armored SSH signatures, each over the payload its annotation carries, and whose
 * `subject` names the signed manifest. The payload binds where the artifact was published —
 * registry, repository and tag — to its digest (as cosign's simple-signing payload binds its
 * `docker-reference`), so a signature copied with the artifact to another repository, or an
 * old signed version tagged anew, no longer matches what is pulled. Registries with the
 * referrers API index it; for those without (CNCF distribution 2.8, Debian's
 * docker-registry) it is also tagged `sha256-<hex>.sig`, the tag scheme cosign made common,
 * one manifest gathering the signatures of every tag the digest was published under.
 * Reading tries the referrers API, then that tag. `skills publish` pushes and signs in one
 * step here (`publishSigned`).
 */

import { SkillError } from "../../core/errors.ts";
import type { OciReference } from "../../core/sources/oci_reference.ts";
import { type RegistryClient, sha256Digest } from "./client.ts";
import { MANIFEST_TYPE, publishSkills } from "./publish.ts";

const SIGNATURE_ARTIFACT_TYPE = "application/vnd.agentskills.signature.ssh.v1";
const SIGNATURE_LAYER_TYPE = "application/vnd.agentskills.signature.ssh.v1+pem";
/** The layer annotation that carries the signed payload. */
const PAYLOAD_ANNOTATION = "org.agentskills.signature.payload";
/** The payload's `type`: what kind of statement was signed. */
const PAYLOAD_TYPE = "agentskills oci signature v1";
/** The fallback tag keeps the signatures of at most this many tags of one digest. */
const MAX_SIGNATURE_LAYERS = 32;
const EMPTY_TYPE = "application/vnd.oci.empty.v1+json";
const EMPTY = new TextEncoder().encode("{}");
/** A signature is a few hundred bytes; anything much larger is not one. */
const MAX_SIGNATURE_BYTES = 64 * 1024;

/** The fallback tag of a manifest's signature: `sha256-<hex>.sig`. */
export function signatureTag(digest: string): string {
  return `${digest.replace(":", "-")}.sig`;
}

/** Where a published manifest's signature went: its digest, and the referrers API or the tag. */
type AttachedSignature = { digest: string; via: "referrers" | "tag" };

/** Where an artifact was published (or is pulled from): registry, repository, tag. */
interface Placement {
  registry: string;
  repository: string;
  /** null when pulled by digest alone: the user pinned the content, not a tag. */
  tag: string | null;
}

/** The text an SSH signature over `digest`, published at `placement`, signs. */
export function signaturePayload(placement: Placement, digest: string): string {
  return JSON.stringify({
    type: PAYLOAD_TYPE,
    repository: `${placement.registry}/${placement.repository}`,
    tag: placement.tag,
    digest,
  });
}

/** A signature found on a manifest, with the payload it says it signs (undefined: none). */
interface FoundSignature {
  signature: string;
  payload: string | undefined;
}

/**
 * Why a signature's payload does not speak for `digest` pulled from `placement`, or
 * undefined when it does. A signature without a payload (made before payloads bound the
 * repository and tag) signed the digest alone: it would stand for the artifact wherever a
 * copy of it went, so it is refused with what to do.
 */
export function payloadMismatch(
  found: FoundSignature,
  placement: Placement,
  digest: string,
): string | undefined {
  if (found.payload === undefined) {
    return "its signature binds no repository or tag (an older `skills publish --sign` signed " +
      "the digest alone, which any copy of it could reuse): ask its publisher to publish and " +
      "sign it again";
  }
  let payload;
  try {
    payload = JSON.parse(found.payload);
  } catch {
    return "its signature's payload is not JSON";
  }
  const repository = `${placement.registry}/${placement.repository}`;
  if (payload?.type !== PAYLOAD_TYPE || payload.digest !== digest) {
    return "its signature was made for other content";
  }
  if (payload.repository !== repository) {
    return `it was signed for ${String(payload.repository)}, not ${repository} (a copy)`;
  }
  if (placement.tag !== null && payload.tag !== placement.tag) {
    return `it was signed as tag ${String(payload.tag)}, not ${placement.tag} (an older ` +
      "version tagged anew?)";
  }
  return undefined;
}

/**
 * `skills publish`: the folder's skills pushed to `target` (publish.ts) and, when a signer
 * is given, the pushed manifest's digest signed and the signature attached. The signer is a
 * parameter (runtime/signing's `sshSign` with the user's key) so that this folder stays
 * below signing. Failures that are not ours already say what went wrong: `io_error`.
 */
export async function publishSigned(
  folder: string,
  target: OciReference,
  client: RegistryClient,
  sign?: (payload: string) => Promise<string>,
): Promise<
  { result: Awaited<ReturnType<typeof publishSkills>>; signature?: AttachedSignature }
> {
  try {
    const result = await publishSkills(folder, target, client);
    if (sign === undefined) return { result };
    const payload = signaturePayload(
      { registry: target.registry, repository: target.repository, tag: target.tag ?? "latest" },
      result.digest,
    );
    const signed = await sign(payload);
    const pushed = await client.getManifest(target.repository, result.digest);
    const signature = await attachSignature(client, target.repository, {
      digest: result.digest,
      mediaType: result.mediaType,
      size: pushed.bytes.length,
    }, { signature: signed, payload });
    return { result, signature };
  } catch (error) {
    if (error instanceof SkillError) throw error;
    throw new SkillError("io_error", (error as Error).message, { cause: error });
  }
}

type Layer = { mediaType: string; digest: string; size: number; annotations?: unknown };

/** Attaches `signed` to the manifest `subject`; says which way it can be found. */
async function attachSignature(
  client: RegistryClient,
  repository: string,
  subject: { digest: string; mediaType: string; size: number },
  signed: { signature: string; payload: string },
): Promise<AttachedSignature> {
  const bytes = new TextEncoder().encode(signed.signature);
  const emptyDigest = await client.pushBlob(repository, EMPTY);
  const layer: Layer = {
    mediaType: SIGNATURE_LAYER_TYPE,
    digest: await client.pushBlob(repository, bytes),
    size: bytes.length,
    annotations: { [PAYLOAD_ANNOTATION]: signed.payload },
  };
  const manifestOf = (layers: Layer[]) =>
    new TextEncoder().encode(JSON.stringify({
      schemaVersion: 2,
      mediaType: MANIFEST_TYPE,
      artifactType: SIGNATURE_ARTIFACT_TYPE,
      config: { mediaType: EMPTY_TYPE, digest: emptyDigest, size: EMPTY.length },
      layers,
      subject,
    }));
  const pushed = await client.putReferrer(repository, manifestOf([layer]), MANIFEST_TYPE);
  if (pushed.referrers) return { digest: pushed.digest, via: "referrers" };
  // One tag per digest: it keeps the signatures made for the digest's other tags.
  const earlier = await taggedLayers(client, repository, subject.digest);
  const layers = [...earlier.filter((l) => l.digest !== layer.digest), layer]
    .slice(-MAX_SIGNATURE_LAYERS);
  const manifest = manifestOf(layers);
  await client.putManifest(repository, signatureTag(subject.digest), manifest, MANIFEST_TYPE);
  return { digest: await sha256Digest(manifest), via: "tag" };
}

/** The signature layers the fallback tag of `digest` holds now (none when it is absent). */
async function taggedLayers(
  client: RegistryClient,
  repository: string,
  digest: string,
): Promise<Layer[]> {
  const tagged = await client.findManifest(repository, signatureTag(digest));
  const manifest = tagged === null ? undefined : parseSignatureManifest(tagged.bytes, digest);
  return manifest?.layers ?? [];
}

/** A signature manifest of `digest` (artifact type and subject checked), or undefined. */
function parseSignatureManifest(
  bytes: Uint8Array,
  digest: string,
): { layers: Layer[] } | undefined {
  let manifest;
  try {
    manifest = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  // Only a signature of this very manifest counts: the subject must name it.
  if (manifest?.artifactType !== SIGNATURE_ARTIFACT_TYPE) return undefined;
  if (manifest?.subject?.digest !== digest || !Array.isArray(manifest.layers)) return undefined;
  return { layers: manifest.layers.slice(0, MAX_SIGNATURE_LAYERS) };
}

/**
 * Every SSH signature attached to `digest` (referrers API, else the tag), possibly none,
 * each with the payload its layer says it signs.
 */
export async function findSignatures(
  client: RegistryClient,
  repository: string,
  digest: string,
): Promise<FoundSignature[]> {
  const referrers = await client.getReferrers(repository, digest, SIGNATURE_ARTIFACT_TYPE);
  const manifests = [];
  if (referrers !== null) {
    for (const entry of referrers.slice(0, MAX_SIGNATURE_LAYERS)) {
      manifests.push(await client.getManifest(repository, entry.digest));
    }
  } else {
    const tagged = await client.findManifest(repository, signatureTag(digest));
    if (tagged !== null) manifests.push(tagged);
  }
  const signatures: FoundSignature[] = [];
  for (const fetched of manifests) {
    for (const layer of parseSignatureManifest(fetched.bytes, digest)?.layers ?? []) {
      if (typeof layer?.digest !== "string" || !(layer.size <= MAX_SIGNATURE_BYTES)) continue;
      const bytes = await client.getBlob(repository, layer.digest);
      if (await sha256Digest(bytes) !== layer.digest) continue;
      const payload = (layer.annotations as Record<string, unknown> | undefined)
        ?.[PAYLOAD_ANNOTATION];
      signatures.push({
        signature: new TextDecoder().decode(bytes),
        payload: typeof payload === "string" ? payload : undefined,
      });
    }
  }
  return signatures;
}
