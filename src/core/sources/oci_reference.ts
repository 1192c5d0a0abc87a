/**
 * `oci://registry[:port]/repository[:tag|@sha256:hex]` — what publish and add accept. Pure
 * parsing (core): the source parser reads `oci://` sources with it, the registry client its
 * hosts.
 */

import { SkillError } from "../errors.ts";

export interface OciReference {
  registry: string;
  repository: string;
  tag?: string;
  digest?: string;
}

const REPOSITORY =
  /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

export function parseOciReference(text: string): OciReference {
  const fail = (reason: string): never => {
    throw new SkillError(
      "invalid_source",
      `Cannot read OCI reference "${text}": ${reason}`,
      { hint: "Write it as oci://registry/repository[:tag|@sha256:<digest>]" },
    );
  };
  if (!text.startsWith("oci://")) fail("it does not start with oci://");
  const rest = text.slice("oci://".length);
  const slash = rest.indexOf("/");
  if (slash <= 0) fail("it names no repository");
  const registry = rest.slice(0, slash);
  if (
    !/^[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]{1,5})?$|^\[[0-9a-fA-F:]+\](?::[0-9]{1,5})?$/.test(
      registry,
    )
  ) {
    fail(`"${registry}" is not a registry host`);
  }
  let path = rest.slice(slash + 1);
  let digest: string | undefined;
  let tag: string | undefined;
  const at = path.indexOf("@");
  if (at >= 0) {
    digest = path.slice(at + 1);
    path = path.slice(0, at);
    if (!DIGEST.test(digest)) fail(`"${digest}" is not a sha256 digest`);
  }
  const colon = path.lastIndexOf(":");
  if (colon >= 0) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) fail(`"${tag}" is not a valid tag`);
  }
  if (!REPOSITORY.test(path)) fail(`"${path}" is not a valid repository name`);
  return { registry, repository: path, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

/** Loopback registries may speak plain HTTP; every other host must use HTTPS unless named. */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.startsWith("[")
    ? registry.slice(1, registry.indexOf("]"))
    : registry.split(":")[0] ?? "";
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
