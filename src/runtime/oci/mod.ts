/**
 * runtime/oci — skills on OCI registries. A registry client for the OCI distribution API
 * (client.ts): manifests and blobs pulled with every digest checked, blobs pushed in one
 * request or in chunks, cross-repository mounts where the registry offers them, the
 * `WWW-Authenticate` Bearer token flow and basic auth, HTTPS always (plain HTTP only for
 * loopback or a host the user names). Credentials come from an env var or
 * `~/.docker/config.json`, its credential helpers included (credentials.ts). References
 * `oci://registry/repo[:tag|@sha256:…]` are parsed in core/sources/oci_reference.ts. A skill folder becomes one
 * deterministic tar+gzip layer (pack.ts) and an OCI 1.1 artifact or, for a folder of skills,
 * an index (publish.ts). pull.ts reads it back, every blob and file checked and an index's
 * entries pinned by digest, for add; unpack.ts streams each layer through gunzip and tar with
 * its uncompressed size bounded per layer and per pull. Signatures bound to where an artifact
 * was published: signature.ts.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = { owns: "runtime/oci", mayImport: ["core", "runtime/os"] } as const;
