/**
 * A signature as an OCI 1.1 referrer: an artifact manifest (`artifactType` below) whose one
 * layer is the armored SSH signature over the signed manifest's digest, and whose `subject`
 * names that manifest. Registries with the referrers API index it; for those without (CNCF
 * distribution 2.8, Debian's docker-registry) it is also tagged `sha256-<hex>.sig`, the tag
 * scheme cosign made common. Reading tries the referrers API, then that tag.
 */

import { type RegistryClient, sha256Digest } from "./client.ts";
import { MANIFEST_TYPE } from "./publish.ts";

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

/** Attaches `signature` to the manifest `subject`; says which way it can be found. */
export async function attachSignature(
  client: RegistryClient,
  repository: string,
  subject: { digest: string; mediaType: string; size: number },
  signature: string,
): Promise<{ digest: string; via: "referrers" | "tag" }> {
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
