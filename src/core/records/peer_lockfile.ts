/**
 * One `skills-lock.json` for two tools: how an entry of this tool's lockfile is written so
 * that vercel-labs' `skills` CLI reads it too, and read back; and the peer's own file — its
 * document checked, its entries as it reads them (a lockfile only it wrote, or rewrote), and
 * its `computedHash`. The lockfile's model (lockfile.ts) reads and writes through these.
 *
 * That CLI reads a file of `{ version: 1, skills: { <name>: entry } }` and, per entry,
 * `source` (`owner/repo`, a URL or a path), `sourceType`, `sourceUrl` (preferred over
 * `source` when set), `ref` (given to `git clone --branch`, a commit fetched by its id),
 * `skillPath` (the skill's SKILL.md inside the source) and `computedHash`. It ignores every
 * other field and keeps them when it rewrites the file for another skill (it spreads each
 * entry), but it writes only `version` and `skills` at the top and replaces the entries it
 * installs itself. So this tool writes the peer's fields, under their names and meanings,
 * plus its own (`name`, `branch`, `tag`, `pinnedRef`, `commit`, `digest`, `files`,
 * `permissions`) in fields the peer ignores — and an entry without them is one the peer
 * wrote (see {@link isPinnedEntry}).
 *
 * The two meanings that clash are kept apart: this tool's `source` object becomes the
 * peer's `source`/`sourceType`/`sourceUrl` and `skillPath`, and its `ref` (a ref or commit
 * that pins) is written as `pinnedRef`, while the peer's `ref` names the locked commit
 * wherever the peer can fetch one (so it installs exactly what was recorded).
 */

import { webTargetOf } from "../sources/web_source.ts";
import {
  custom,
  integer,
  isPlainObject,
  literal,
  object,
  optional,
  record,
  string,
  type Validator,
} from "../manifest/validation.ts";
import { parseRevision } from "../sources/npm_source.ts";
import { sha256Hex } from "./digest.ts";

/** The peer reads `version`; this is the only version it knows. */
export const PEER_VERSION = 1;

/** The fields of this tool's entry that the shared form writes under other names. */
interface PinnedFields {
  name: string;
  source: {
    type: "git" | "local" | "oci" | "web" | "npm";
    url: string;
    subpath: string;
    [extra: string]: unknown;
  };
  branch: string | null;
  tag: string | null;
  ref: string | null;
  commit: string | null;
  computedHash?: string;
  [extra: string]: unknown;
}

/** The peer's own names, never kept as extras of this tool's entry. */
const PEER_FIELDS = [
  "source",
  "sourceType",
  "sourceUrl",
  "ref",
  "skillPath",
  "computedHash",
  "wellKnownDigest",
  "version",
  "integrity",
];

/** The peer's `sourceType` of a website: a site's index, or one downloaded file. */
const WEB_TYPES = new Set(["well-known", "download"]);

/**
 * Whether the peer could ask git for a ref of this URL: its `#ref` is read only on sources
 * that look like git remotes to it (GitHub and GitLab URLs, `https://….git`, `ssh://….git`,
 * `git@…`); on any other URL (a `file://` one) a `#` stays part of the path.
 */
function peerReadsRef(url: string): boolean {
  if (url.startsWith("git@")) return true;
  if (/^ssh:\/\/.+\.git(?:$|[/?])/i.test(url)) return true;
  if (/^https?:\/\/.+\.git(?:$|[/?])/i.test(url)) return true;
  const host = hostOf(url);
  return host === "github.com" || host === "gitlab.com";
}

function hostOf(url: string): string | undefined {
  if (!/^https?:\/\//.test(url)) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** `https://github.com/o/r(.git)` → `o/r` (the peer's spelling of a GitHub source). */
function githubShorthand(url: string): string | undefined {
  const match = /^https:\/\/github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(
    url,
  );
  return match === null ? undefined : `${match[1]}/${match[2]}`;
}

/** An entry as the file holds it: the peer's fields first, then this tool's. */
export function toSharedEntry(entry: PinnedFields): Record<string, unknown> {
  const { name, source, branch, tag, ref, commit, computedHash, ...rest } = entry;
  const out: Record<string, unknown> = {};
  if (source.type === "local") {
    // The peer reads `./dir` as a path and `dir` as `owner/repo`; it resolves it from the root.
    const url = source.url;
    out.source = url === "." || /^(\/|[A-Za-z]:[\\/])/.test(url) ? url : `./${url}`;
    out.sourceType = "local";
  } else if (source.type === "web") {
    // The peer's own spelling: a site's index is `well-known` (the host as `source`, the URL
    // it adds from as `sourceUrl`, the entry's digest as `wellKnownDigest`), a file `download`.
    const site = webTargetOf(source.url) === "site";
    out.source = site ? new URL(source.url).hostname.replace(/^www\./, "") : source.url;
    out.sourceType = site ? "well-known" : "download";
    out.sourceUrl = source.url;
    if (site && commit !== null) out.wellKnownDigest = commit;
  } else if (source.type === "npm") {
    // The peer has no registry packages: its only npm type is `node_modules` (a skill synced
    // from the project's node_modules, pruned when that folder lacks it), which would make
    // it delete this entry. `npm` is a type it reports it cannot install, and keeps as it is.
    // `version` and `integrity` are derived from the revision, so they never go stale.
    out.source = source.url.slice("npm:".length);
    out.sourceType = "npm";
    out.sourceUrl = source.url;
    const revision = commit === null ? undefined : parseRevision(commit);
    if (revision !== undefined) {
      out.version = revision.version;
      if (revision.integrity !== undefined) out.integrity = revision.integrity;
    }
  } else if (source.type === "oci") {
    // The peer has no OCI sources: it reports this entry as one it cannot install, and
    // keeps it as it is when it rewrites the file.
    out.source = source.url;
    out.sourceType = "oci";
    out.sourceUrl = source.url;
  } else {
    const shorthand = githubShorthand(source.url);
    out.source = shorthand ?? source.url;
    out.sourceType = shorthand !== undefined
      ? "github"
      : hostOf(source.url) === "gitlab.com"
      ? "gitlab"
      : "git";
    out.sourceUrl = source.url;
    if (commit !== null && peerReadsRef(source.url)) out.ref = commit;
  }
  out.skillPath = source.subpath === "" ? "SKILL.md" : `${source.subpath}/SKILL.md`;
  if (computedHash !== undefined) out.computedHash = computedHash;
  const { type: _type, url: _url, subpath: _subpath, ...sourceExtras } = source;
  out.name = name;
  out.branch = branch;
  out.tag = tag;
  out.pinnedRef = ref;
  out.commit = commit;
  if (Object.keys(sourceExtras).length > 0) out.sourceExtras = sourceExtras;
  for (const [key, value] of Object.entries(rest)) {
    if (!PEER_FIELDS.includes(key)) out[key] = value;
  }
  return out;
}

/**
 * Whether a shared entry carries this tool's record (commit, digest, files) or is one the
 * peer wrote (which it does for every skill it installs or restores).
 */
export function isPinnedEntry(raw: Record<string, unknown>): boolean {
  return "digest" in raw || "files" in raw || "commit" in raw;
}

/**
 * A pinned entry back in this tool's shape, unchecked: the caller validates the result
 * with the lockfile schema. `skillPath` must name a SKILL.md (or its folder).
 */
export function fromSharedEntry(raw: Record<string, unknown>): Record<string, unknown> {
  const {
    source,
    sourceType,
    sourceUrl,
    ref: _peerRef,
    skillPath,
    pinnedRef,
    sourceExtras,
    wellKnownDigest: _digest,
    version: _version,
    integrity: _integrity,
    ...rest
  } = raw;
  const local = sourceType === "local";
  const url = local
    ? (typeof source === "string" ? source.replace(/^\.\/(?=.)/, "") : source)
    : sourceUrl;
  const subpath = local
    ? ""
    : typeof skillPath === "string"
    ? skillPath.replace(/^\.\//, "").replace(/(^|\/)SKILL\.md$/, "").replace(/\/+$/, "")
    : skillPath;
  const extras = sourceExtras !== null && typeof sourceExtras === "object" ? sourceExtras : {};
  return {
    ...rest,
    source: {
      ...extras,
      type: local
        ? "local"
        : sourceType === "oci"
        ? "oci"
        : sourceType === "npm"
        ? "npm"
        : WEB_TYPES.has(String(sourceType))
        ? "web"
        : "git",
      url,
      subpath,
    },
    ref: pinnedRef,
  };
}

/**
 * What vercel-labs' CLI (1.7.4) copies of a skill into `.agents/skills/<name>` (its
 * `copyDirectory`): every file but those named `metadata.json`, at any depth, and those in
 * `.git`, `__pycache__` or `__pypackages__` folders. Its `computedHash` covers the source
 * folder instead (every regular file outside `.git` and `node_modules` folders), so a skill
 * it installed lacks files its hash covers; `files` is this tool's listing of the source.
 */
export function peerInstalledFiles(
  files: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, sha] of Object.entries(files)) {
    const parts = path.split("/");
    if (parts[parts.length - 1] === "metadata.json") continue;
    if (parts.slice(0, -1).some((p) => [".git", "__pycache__", "__pypackages__"].includes(p))) {
      continue;
    }
    out[path] = sha;
  }
  return out;
}

/** Whether the peer walks into a folder named `name` for its `computedHash`. */
export function peerHashesFolder(name: string): boolean {
  return name !== ".git" && name !== "node_modules";
}

/** One entry of a lockfile written by vercel-labs' `skills` CLI (project `skills-lock.json`). */
export interface ForeignLockedSkill {
  /** The entry's key: the skill's name as that tool installed it. */
  name: string;
  /** `owner/repo`, a URL, a path or a package name, depending on `sourceType`. */
  source: string;
  sourceType: string;
  /** The URL it was added from, when the entry records one (a website's, for `well-known`). */
  sourceUrl: string | null;
  /** The branch or tag asked for, if any (never a resolved commit). */
  ref: string | null;
  /** The skill's folder (or its SKILL.md) inside the source, if recorded. */
  skillPath: string | null;
  /**
   * sha256 over the sorted relative paths and bytes of the installed files; null for an
   * entry this tool wrote before it recorded one (its `ref` then pins its commit).
   */
  computedHash: string | null;
}

const text = string();

/** An entry the peer wrote: its fields, its hash required. */
const FOREIGN_ENTRY = object({
  source: string({ min: 1 }),
  sourceType: string({ min: 1 }),
  ref: optional(text),
  skillPath: optional(text),
  computedHash: text,
});

/** An entry of this tool in a file the peer rewrote: the peer's fields, no hash required. */
const PINNED_AS_FOREIGN = object({
  source: string({ min: 1 }),
  sourceType: string({ min: 1 }),
  ref: optional(text),
  skillPath: optional(text),
  computedHash: optional(text),
});

/** The file as the peer reads it: its `version`, and each entry its own or this tool's. */
export const PEER_DOCUMENT: Validator<{ version: number; skills: Record<string, unknown> }> =
  object({
    version: literal(PEER_VERSION),
    lockfileVersion: optional(integer({ min: 2 })),
    skills: record(
      custom<Record<string, unknown>>(
        "object",
        (value) =>
          isPlainObject(value)
            ? (isPinnedEntry(value) ? PINNED_AS_FOREIGN : FOREIGN_ENTRY)(value)
            : { path: [], message: "expected object" },
      ),
    ),
  });

/** The peer's file once {@link PEER_DOCUMENT} accepted it. */
type ForeignDocument = {
  skills: Record<
    string,
    {
      source: string;
      sourceType: string;
      sourceUrl?: unknown;
      ref?: string;
      skillPath?: string;
      computedHash?: string;
    }
  >;
};

/** Every entry of a file the peer wrote (or rewrote), as the peer reads it, sorted by name. */
export function foreignEntries(data: { skills: Record<string, unknown> }): ForeignLockedSkill[] {
  const doc = data as ForeignDocument;
  return Object.entries(doc.skills).map(([name, e]) => ({
    name,
    source: e.source,
    sourceType: e.sourceType,
    sourceUrl: typeof e.sourceUrl === "string" ? e.sourceUrl : null,
    ref: e.ref ?? null,
    skillPath: e.skillPath ?? null,
    computedHash: e.computedHash ?? null,
  })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * vercel-labs' `computedHash`: sha256 over every file sorted by relative path (with
 * `localeCompare`, as that tool sorts), each contributing its path then its bytes.
 */
export async function foreignComputedHash(
  files: readonly { path: string; bytes: Uint8Array }[],
): Promise<string> {
  const sorted = [...files].sort((a, b) => a.path.localeCompare(b.path));
  const encoder = new TextEncoder();
  const parts = sorted.flatMap((f) => [encoder.encode(f.path), f.bytes]);
  const total = parts.reduce((n, p) => n + p.length, 0);
  const all = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return await sha256Hex(all);
}
