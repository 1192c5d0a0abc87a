/**
 * The Sigstore signatures of an OCI artifact, found the way cosign and ToolHive attach them,
 * each as a bundle and the bytes it signs:
 *
 * 1. OCI 1.1 referrers whose artifact type is a Sigstore bundle (cosign's
 *    `--new-bundle-format`, ToolHive): the layer is the bundle, a message signature that must
 *    be over the manifest's own bytes (its digest is the manifest digest). DSSE envelopes
 *    (attestations) are not read yet: they say something about an artifact, not that it was
 *    signed.
 * 2. Else the `sha256-<hex>.sig` tag (cosign's classic layout): each layer a "simple signing"
 *    payload naming the manifest digest, the signature, certificate and Rekor bundle in its
 *    annotations, turned into a v0.1 bundle over the payload's bytes; the payload must name
 *    this manifest ({@link FoundSignature.payloadDigest}).
 *
 * Nothing here is trusted: every field is checked before use and the verification is the
 * verifier's (bundle.ts). A registry without either has no Sigstore signature for it.
 */

import type { RegistryClient } from "../oci/client.ts";
import { signatureTag } from "../oci/signature.ts";

const BUNDLE_TYPES = [
  "application/vnd.dev.sigstore.bundle.v0.3+json",
  "application/vnd.dev.sigstore.bundle+json;version=0.3",
  "application/vnd.dev.sigstore.bundle+json;version=0.2",
];
const SIMPLE_SIGNING = "application/vnd.dev.cosign.simplesigning.v1+json";
const SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature";
const CERTIFICATE_ANNOTATION = "dev.sigstore.cosign/certificate";
const REKOR_ANNOTATION = "dev.sigstore.cosign/bundle";
const MAX_BYTES = 256 * 1024;

/** A signature found for a manifest: the bundle, and what it signs. */
interface FoundSignature {
  via: "referrers" | "tag";
  bundle: Record<string, unknown>;
  /** The bytes a message signature is over (undefined for a DSSE envelope). */
  artifact?: Uint8Array;
  /** For the tag layout: the manifest digest the signed payload names. */
  payloadDigest?: string;
}

function parse(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

function hexToBase64(hex: string): string | undefined {
  if (!/^([0-9a-f]{2})+$/.test(hex)) return undefined;
  return b64(Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16)));
}

/** A PEM certificate's DER bytes, base64 (as bundles carry them). */
function pemToBase64(pem: string): string | undefined {
  const match = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem);
  return match?.[1]?.replace(/\s+/g, "");
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

/** The v0.1 bundle a cosign classic signature layer's annotations describe, if complete. */
async function classicBundle(
  annotations: Record<string, unknown>,
  payload: Uint8Array,
): Promise<Record<string, unknown> | undefined> {
  const signature = annotations[SIGNATURE_ANNOTATION];
  if (typeof signature !== "string") return undefined;
  const certificate = annotations[CERTIFICATE_ANNOTATION];
  const rekorText = annotations[REKOR_ANNOTATION];
  const rekor = typeof rekorText === "string"
    ? parse(new TextEncoder().encode(rekorText))
    : undefined;
  const entry = rekor?.Payload as Record<string, unknown> | undefined;
  const tlogEntries = [];
  if (entry !== undefined && typeof entry.body === "string" && typeof entry.logID === "string") {
    const body = parse(Uint8Array.from(atob(entry.body), (c) => c.charCodeAt(0)));
    tlogEntries.push({
      logIndex: String(entry.logIndex),
      logId: { keyId: hexToBase64(entry.logID) },
      kindVersion: { kind: body?.kind, version: body?.apiVersion },
      integratedTime: String(entry.integratedTime),
      inclusionPromise: { signedEntryTimestamp: rekor!.SignedEntryTimestamp },
      canonicalizedBody: entry.body,
    });
  }
  const der = typeof certificate === "string" ? pemToBase64(certificate) : undefined;
  return {
    mediaType: "application/vnd.dev.sigstore.bundle+json;version=0.1",
    verificationMaterial: {
      ...(der === undefined
        ? { publicKey: { hint: "" } }
        : { x509CertificateChain: { certificates: [{ rawBytes: der }] } }),
      tlogEntries,
    },
    messageSignature: {
      messageDigest: { algorithm: "SHA2_256", digest: b64(await sha256(payload)) },
      signature,
    },
  };
}

/** Signatures attached to `digest` in `repository`: referrers first, else the `.sig` tag. */
export async function findSigstoreSignatures(
  client: RegistryClient,
  repository: string,
  digest: string,
): Promise<FoundSignature[]> {
  const found: FoundSignature[] = [];
  const referrers = await client.getReferrers(repository, digest, BUNDLE_TYPES[0]!);
  for (const entry of referrers ?? []) {
    const manifest = parse((await client.getManifest(repository, entry.digest)).bytes);
    const subject = manifest?.subject as { digest?: unknown } | undefined;
    const layer = (manifest?.layers as { mediaType?: unknown; digest?: unknown; size?: unknown }[])
      ?.[0];
    if (subject?.digest !== digest || !BUNDLE_TYPES.includes(String(layer?.mediaType))) continue;
    if (typeof layer?.digest !== "string" || !(Number(layer.size) <= MAX_BYTES)) continue;
    const bundle = parse(await client.getBlob(repository, layer.digest, MAX_BYTES));
    if (bundle === undefined) continue;
    const manifestBytes = (await client.getManifest(repository, digest)).bytes;
    found.push({ via: "referrers", bundle, artifact: manifestBytes });
  }
  if (found.length > 0) return found;
  const tagged = await client.findManifest(repository, signatureTag(digest));
  const manifest = tagged === null ? undefined : parse(tagged.bytes);
  const layers = Array.isArray(manifest?.layers) ? manifest.layers : [];
  for (const layer of layers as Record<string, unknown>[]) {
    if (layer.mediaType !== SIMPLE_SIGNING || typeof layer.digest !== "string") continue;
    if (!(Number(layer.size) <= MAX_BYTES)) continue;
    const payload = await client.getBlob(repository, layer.digest, MAX_BYTES);
    const annotations = (layer.annotations ?? {}) as Record<string, unknown>;
    const bundle = await classicBundle(annotations, payload);
    if (bundle === undefined) continue;
    const critical = parse(payload)?.critical as
      | { image?: { "docker-manifest-digest"?: unknown } }
      | undefined;
    const named = critical?.image?.["docker-manifest-digest"];
    found.push({
      via: "tag",
      bundle,
      artifact: payload,
      payloadDigest: typeof named === "string" ? named : "",
    });
  }
  return found;
}
