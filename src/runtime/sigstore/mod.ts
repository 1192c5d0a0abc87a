/**
 * runtime/sigstore — Sigstore signatures checked offline with the maintained verifier from npm
 * (`@sigstore/verify`, with `@sigstore/bundle` and `@sigstore/protobuf-specs`), loaded only
 * where a signature is checked: keyless bundles (the certificate chained to a Fulcio root of a
 * trusted root, the transparency log entry, the signing time inside the certificate's validity,
 * the identity and issuer) and key-based ones (a cosign public key), against Sigstore's
 * public-good trusted root shipped with the binary or one the user names (`bundle`); the
 * signatures of an OCI artifact found the way cosign and ToolHive attach them (`oci_discovery`),
 * and the signer of one (`oci_signer`); OpenSSF Model Signing's `skill.oms.sig` over a skill
 * folder, its file digests held to ours (`oms`); gitsign's CMS commit signatures (`gitsign`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/sigstore",
  mayImport: ["core", "runtime/os", "runtime/oci", "runtime/trust"],
} as const;
