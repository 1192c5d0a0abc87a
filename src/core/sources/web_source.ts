/**
 * Skills published on a website: a site's well-known index (`/.well-known/agent-skills/
 * index.json`, the agentskills discovery schema 0.2.0, and the older `/.well-known/skills/
 * index.json`), or a direct URL to a `SKILL.md` or an archive (`.zip`, `.tar`, `.tar.gz`,
 * `.tgz`). Pure: the URL rules (HTTPS, plain HTTP only for a loopback host, no credentials),
 * which kind a URL names, where a site's indexes are, and an index read as untrusted input.
 * Fetching lives in runtime/web.
 */

import { SkillError } from "../errors.ts";
import { quoteName } from "../names.ts";
import { isPlainObject } from "../manifest/validation.ts";

/** A website source: a site whose index lists skills, or one file to download. */
export interface ParsedWebSource {
  type: "web";
  /** The URL as given, without a trailing slash on a site's path. */
  url: string;
  /** The skill's folder in the fetch: its index name ("" for every entry, or a file's root). */
  subpath: string;
  skill: undefined;
  ref: undefined;
}

/** What a web URL names: a SKILL.md, an archive, or a site with a well-known index. */
type WebTarget = "skill-md" | "archive" | "site";

/** The discovery schema whose entries carry a type, a URL and a digest. */
export const DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/** Where a site lists its skills: the current path first, then the older one. */
const WELL_KNOWN_PATHS = [".well-known/agent-skills", ".well-known/skills"] as const;

/** An archive by its name; `.skill` is a zip, as Anthropic's skill-creator packages a skill. */
const ARCHIVE_SUFFIX = /\.(?:zip|skill|tar|tar\.gz|tgz)$/i;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** The spec's name rule, which both index formats require. */
const INDEX_NAME = /^[a-z0-9](?:[a-z0-9]|-(?!-)){0,62}[a-z0-9]$|^[a-z0-9]$/;
const MAX_ENTRIES = 1000;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A relative path inside a skill, as an index or an archive names it: no traversal, no root. */
export function safeEntryPath(path: string): boolean {
  if (path === "" || path.length > 1024 || CONTROL.test(path)) return false;
  if (path.startsWith("/") || path.includes("\\") || /^[A-Za-z]:/.test(path)) return false;
  return path.split("/").every((part) =>
    part !== "" && part !== "." && part !== ".." && part !== ".git"
  );
}

/** A host that is this machine: the only one plain HTTP may reach. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** What a URL's path names: a SKILL.md, an archive by its suffix, else a site. */
export function webTargetOf(url: string): WebTarget {
  const path = new URL(url).pathname;
  if (/(?:^|\/)SKILL\.md$/i.test(path)) return "skill-md";
  return ARCHIVE_SUFFIX.test(path) ? "archive" : "site";
}

/** Why a URL may not be fetched (scheme, host, credentials), or undefined when it may. */
export function webUrlProblem(url: URL): string | undefined {
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return `the '${quoteName(url.protocol.slice(0, -1))}' scheme is not allowed`;
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return "plain http:// is allowed only for a loopback host (127.0.0.1, localhost, [::1])";
  }
  if (url.username !== "" || url.password !== "") return "credentials in the URL are not allowed";
  return undefined;
}

/** A website source from a URL string; throws `invalid_source` for a URL that may not be fetched. */
export function webSource(input: string, subpath = ""): ParsedWebSource {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new SkillError("invalid_source", `Invalid source '${quoteName(input)}': not a URL`);
  }
  const problem = webUrlProblem(url);
  if (problem !== undefined) {
    const masked = input.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^@/]*@/, "$1***@");
    throw new SkillError("invalid_source", `Invalid source '${quoteName(masked)}': ${problem}`);
  }
  if (url.hash !== "") {
    throw new SkillError(
      "invalid_source",
      `Invalid source '${quoteName(input)}': a '#' fragment names no version of a website`,
    );
  }
  const text = url.href.replace(/\/$/, "");
  return { type: "web", url: text, subpath, skill: undefined, ref: undefined };
}

/** The index URLs of a site, in the order they are tried. */
export function wellKnownIndexUrls(site: string): { url: string; path: string }[] {
  const base = new URL(site);
  const root = `${base.origin}${base.pathname.replace(/\/$/, "")}`;
  return WELL_KNOWN_PATHS.map((path) => ({ url: `${root}/${path}/index.json`, path }));
}

/** One skill an index lists: its artifact (0.2.0) or its files (the older index). */
export type IndexEntry =
  | {
    format: "artifact";
    name: string;
    description: string;
    type: "skill-md" | "archive";
    /** Absolute: resolved against the index's URL. */
    url: string;
    digest: string;
  }
  | {
    format: "files";
    name: string;
    description: string;
    /** The skill's folder URL (`…/.well-known/skills/<name>`), each file relative to it. */
    base: string;
    files: string[];
  };

/** An index read: the skills it lists, and why any entry was left out. */
export interface WellKnownIndex {
  entries: IndexEntry[];
  skipped: string[];
}

/** Reads an index's JSON (untrusted); throws `parse_error` when it is no index at all. */
export function parseWellKnownIndex(data: unknown, indexUrl: string): WellKnownIndex {
  const bad = (why: string) => new SkillError("parse_error", `The skills index ${indexUrl} ${why}`);
  if (!isPlainObject(data) || !Array.isArray(data.skills)) {
    throw bad("is not an index: it has no `skills` list");
  }
  if (data.skills.length > MAX_ENTRIES) throw bad(`lists more than ${MAX_ENTRIES} skills`);
  const schema = data.$schema;
  if (schema !== undefined && schema !== DISCOVERY_SCHEMA) {
    throw bad(`follows a schema this version does not read (${String(schema).slice(0, 200)})`);
  }
  const entries: IndexEntry[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  data.skills.forEach((raw: unknown, index: number) => {
    const read = schema === DISCOVERY_SCHEMA
      ? artifactEntry(raw, indexUrl)
      : filesEntry(raw, indexUrl);
    if (typeof read === "string") skipped.push(`skills[${index}]: ${read}`);
    else if (seen.has(read.name)) skipped.push(`skills[${index}]: '${read.name}' is listed twice`);
    else {
      seen.add(read.name);
      entries.push(read);
    }
  });
  return { entries, skipped };
}

/** Whether a name may stand in an index: the spec's rule (lower case letters, digits, single hyphens). */
export function isIndexName(name: string): boolean {
  return INDEX_NAME.test(name);
}

function commonProblem(raw: Record<string, unknown>): string | undefined {
  if (typeof raw.name !== "string" || !INDEX_NAME.test(raw.name)) {
    return "its name is not a skill name (lower case letters, digits and single hyphens)";
  }
  if (
    typeof raw.description !== "string" || raw.description === "" ||
    raw.description.length > 1024
  ) return "its description is missing or longer than 1024 characters";
  return undefined;
}

function artifactEntry(raw: unknown, indexUrl: string): IndexEntry | string {
  if (!isPlainObject(raw)) return "not an object";
  const problem = commonProblem(raw);
  if (problem !== undefined) return problem;
  if (raw.type !== "skill-md" && raw.type !== "archive") {
    return `its type '${String(raw.type)}' is not skill-md or archive`;
  }
  if (typeof raw.digest !== "string" || !DIGEST.test(raw.digest)) {
    return "its digest is not sha256:<64 hex digits>";
  }
  if (typeof raw.url !== "string" || raw.url === "") return "it has no url";
  let url: URL;
  try {
    url = new URL(raw.url, indexUrl);
  } catch {
    return "its url is not a URL";
  }
  const urlProblem = webUrlProblem(url);
  if (urlProblem !== undefined) return `its url: ${urlProblem}`;
  return {
    format: "artifact",
    name: raw.name as string,
    description: raw.description as string,
    type: raw.type,
    url: url.href,
    digest: raw.digest,
  };
}

function filesEntry(raw: unknown, indexUrl: string): IndexEntry | string {
  if (!isPlainObject(raw)) return "not an object";
  const problem = commonProblem(raw);
  if (problem !== undefined) return problem;
  const files = raw.files;
  if (!Array.isArray(files) || files.length === 0 || files.length > MAX_ENTRIES) {
    return "it lists no files";
  }
  if (!files.every((f) => typeof f === "string" && safeEntryPath(f))) {
    return "a file's path is not a relative path inside the skill";
  }
  if (!files.includes("SKILL.md")) return "its files do not include SKILL.md";
  const base = indexUrl.replace(/\/index\.json$/, `/${raw.name as string}`);
  return {
    format: "files",
    name: raw.name as string,
    description: raw.description as string,
    base,
    files: [...new Set(files as string[])],
  };
}

/**
 * The digest of a skill the older index lists (it names no digest of its own): sha256 over
 * its files sorted by path, each as its path, a NUL, its bytes, a NUL — the sum vercel-labs'
 * CLI records for such a skill, so both tools name the same version alike.
 */
export function filesDigestInput(
  files: readonly { path: string; bytes: Uint8Array }[],
): Uint8Array {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const encoder = new TextEncoder();
  const parts = sorted.flatMap((
    f,
  ) => [encoder.encode(f.path), new Uint8Array(1), f.bytes, new Uint8Array(1)]);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
