/**
 * A signature as an OCI 1.1 referrer: an artifact manifest (`artifactType` below) whose one
 * layer is the armored SSH signature over the signed manifest's digest, and whose `subject`
 * names that manifest. Registries with the referrers API index it; for those without (CNCF
 * distribution 2.8, Debian's docker-registry) it is also tagged `sha256-<hex>.sig`, the tag
 * scheme cosign made common. Reading tries the referrers API, then that tag. `skills publish`
 * pushes and signs in one step here (`publishSigned`).
 */

import { SkillError } from "../../core/errors.ts";
import type { OciReference } from "../../core/sources/oci_reference.ts";
import { type RegistryClient, sha256Digest } from "./client.ts";
import { MANIFEST_TYPE, publishSkills } from "./publish.ts";

const SIGNATURE_ARTIFACT_TYPE = "application/vnd.agentskills.signature.ssh.v1";
const SIGNATURE_LAYER_TYPE = "application/vnd.agentskills.signature.ssh.v1+pem";
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
  sign?: (digest: string) => Promise<string>,
): Promise<
  { result: Awaited<ReturnType<typeof publishSkills>>; signature?: AttachedSignature }
> {
  try {
    const result = await publishSkills(folder, target, client);
    if (sign === undefined) return { result };
    const signed = await sign(result.digest);
    const pushed = await client.getManifest(target.repository, result.digest);
    const signature = await attachSignature(client, target.repository, {
      digest: result.digest,
      mediaType: result.mediaType,
      size: pushed.bytes.length,
    }, signed);
    return { result, signature };
  } catch (error) {
    if (error instanceof SkillError) throw error;
    throw new SkillError("io_error", (error as Error).message, { cause: error });
  }
}

/** Attaches `signature` to the manifest `subject`; says which way it can be found. */
async function attachSignature(
  client: RegistryClient,
  repository: string,
  subject: { digest: string; mediaType: string; size: number },
  signature: string,
): Promise<AttachedSignature> {
  const bytes = new TextEncoder().encode(signature);
  const emptyDigest = await client.pushBlob(repository, EMPTY);
  const layerDigest = await client.pushBlob(repository, bytes);
  const manifest = new TextEncoder().encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: MANIFEST_TYPE,
    artifactType: SIGNATURE_ARTIFACT_TYPE,
    config: { mediaType: EMPTY_TYPE, digest: emptyDigest, size: EMPTY.length },
    layers: [{ mediaType: SIGNATURE_LAYER_TYPE, digest: layerDigest, size: bytes.length }],
    subject,
  }));
  const pushed = await client.putReferrer(repository, manifest, MANIFEST_TYPE);
  if (pushed.referrers) return { digest: pushed.digest, via: "referrers" };
  await client.putManifest(repository, signatureTag(subject.digest), manifest, MANIFEST_TYPE);
  return { digest: pushed.digest, via: "tag" };
}

/** Every SSH signature attached to `digest` (referrers API, else the tag), possibly none. */
export async function findSignatures(
  client: RegistryClient,
  repository: string,
  digest: string,
): Promise<string[]> {
  const referrers = await client.getReferrers(repository, digest, SIGNATURE_ARTIFACT_TYPE);
  const manifests = [];
  if (referrers !== null) {
    for (const entry of referrers) {
      manifests.push(await client.getManifest(repository, entry.digest));
    }
  } else {
    const tagged = await client.findManifest(repository, signatureTag(digest));
    if (tagged !== null) manifests.push(tagged);
  }
  const signatures: string[] = [];
  for (const fetched of manifests) {
    let manifest;
    try {
      manifest = JSON.parse(new TextDecoder().decode(fetched.bytes));
    } catch {
      continue;
    }
    // Only a signature of this very manifest counts: the subject must name it.
    if (manifest?.artifactType !== SIGNATURE_ARTIFACT_TYPE) continue;
    if (manifest?.subject?.digest !== digest) continue;
    const layer = manifest.layers?.[0];
    if (typeof layer?.digest !== "string" || !(layer.size <= MAX_SIGNATURE_BYTES)) continue;
    const bytes = await client.getBlob(repository, layer.digest);
    if (await sha256Digest(bytes) !== layer.digest) continue;
    signatures.push(new TextDecoder().decode(bytes));
  }
  return signatures;
}
