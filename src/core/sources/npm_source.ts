/**
 * Skills shipped inside npm packages: the `npm:<package>[@range]` source (scoped names too),
 * the version a range picks from a registry's package document, the integrity a tarball must
 * have (`dist.integrity`, sha512 SRI; else `dist.shasum`), and which folders of a package
 * hold its skills, read from the fields of its `package.json` that tools write:
 *
 * - `agents.skills` (onmax/npm-agentskills, the Nuxt convention): a list of `{ name, path }`;
 * - `agentskills` (@codemcp/agentskills): a map of name to source, of which `file:` paths
 *   inside the package are the package's own skills (others live elsewhere and are noted);
 * - `skills` (antfu/skills-npm and vercel-labs' `experimental_sync`): sources hosted
 *   elsewhere (noted, not files of the package) — those tools find a package's own skills by
 *   its layout, which is read when no field names a folder: a `SKILL.md` at the root, else
 *   `skills/*\/SKILL.md`, `dist/skills/*\/SKILL.md`, `.agents/skills/*\/SKILL.md`.
 *
 * Pure: the package document and `package.json` are untrusted input, read here as data.
 * The revision a record keeps is `<version>@<integrity>` (or the version alone when the
 * integrity is unknown, for a package read from `node_modules`), so version and integrity
 * always travel together through update, restore and the lockfile.
 */

import { SkillError } from "../errors.ts";
import { quoteName } from "../names.ts";
import { compareSemver, parseSemver } from "../manifest/semver.ts";
import { isPlainObject } from "../manifest/validation.ts";
import { parseRange, satisfies } from "./requirements.ts";
import { safeEntryPath } from "./web_source.ts";

/** A package on an npm registry, as `skills add npm:…` names it. */
export interface ParsedNpmSource {
  type: "npm";
  /** `npm:<package>`: registry-free, the same for everyone whatever registry they use. */
  url: string;
  /** The package's name (`pkg`, `@org/pkg`). */
  packageName: string;
  /** The skill's folder inside the package ("" until one is chosen). */
  subpath: string;
  skill: undefined;
  /** The range or dist-tag asked for (`^1.2`, `1.2.3`, `next`); undefined for `latest`. */
  ref: string | undefined;
}

const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*$/i;
const DIST_TAG = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** The integrity forms npm writes: `sha512-<base64>` (and older `sha1-…`). */
const SRI = /^(sha512|sha384|sha256|sha1)-([A-Za-z0-9+/]+={0,2})$/;
/** A record's revision: the version, then `@` and its integrity when known. */
const REVISION =
  /^(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)(?:@((?:sha512|sha384|sha256|sha1)-[A-Za-z0-9+/]+={0,2}))?$/;

function invalid(input: string, why: string): SkillError {
  return new SkillError("invalid_source", `Invalid source '${quoteName(input)}': ${why}`, {
    hint: "Write npm:<package>, npm:<package>@<range> or npm:@scope/<package>@<range>",
  });
}

/** Whether a string is an npm package name (scoped or not, at most 214 characters). */
export function isPackageName(name: string): boolean {
  return name.length <= 214 && NAME.test(name) && !/^[._]/.test(name);
}

/** Whether a range names versions: a semver range or a dist-tag. */
function isRangeOrTag(range: string): boolean {
  return parseRange(range) !== undefined || DIST_TAG.test(range);
}

/** `npm:<package>[@range]`; throws `invalid_source` for anything else. */
export function npmSource(input: string): ParsedNpmSource {
  const spec = input.slice("npm:".length);
  if (CONTROL.test(spec)) throw invalid(input, "it contains control characters");
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  const packageName = at === -1 ? spec : spec.slice(0, at);
  const range = at === -1 ? undefined : spec.slice(at + 1).trim();
  if (!isPackageName(packageName)) {
    throw invalid(input, `'${quoteName(packageName)}' is not an npm package name`);
  }
  if (range !== undefined && (range === "" || range.length > 256 || !isRangeOrTag(range))) {
    throw invalid(input, `'${quoteName(range ?? "")}' is neither a semver range nor a dist-tag`);
  }
  return {
    type: "npm",
    url: `npm:${packageName}`,
    packageName,
    subpath: "",
    skill: undefined,
    ref: range === "latest" ? undefined : range,
  };
}

/**
 * The source a record names (`npm:<package>`, untrusted: parsed again), without the range
 * it was added with: the record's `tag` is what an update follows.
 */
export function npmRecordSource(url: string): ParsedNpmSource {
  if (!/^npm:/.test(url)) {
    throw new SkillError("invalid_source", `Invalid npm source '${quoteName(url)}' in a record`);
  }
  return { ...npmSource(url), ref: undefined };
}

/** A record's revision, `<version>@<integrity>` (or the version alone), read back. */
export function parseRevision(
  revision: string,
): { version: string; integrity: string | undefined } | undefined {
  const match = REVISION.exec(revision);
  return match === null ? undefined : { version: match[1]!, integrity: match[2] };
}

/** Whether a record's commit is an npm revision. */
export function isNpmRevision(revision: string): boolean {
  return REVISION.test(revision);
}

/** The revision a record keeps. */
export function npmRevision(version: string, integrity: string | undefined): string {
  return integrity === undefined ? version : `${version}@${integrity}`;
}

/** One version of a package document, as far as an install needs it. */
interface PackageVersion {
  version: string;
  tarball: string;
  /** The SRI the tarball must match (`dist.integrity`, else `sha1-` from `dist.shasum`). */
  integrity: string;
}

function versionEntry(raw: unknown, version: string): PackageVersion | undefined {
  if (!isPlainObject(raw) || !isPlainObject(raw.dist)) return undefined;
  const dist = raw.dist;
  if (typeof dist.tarball !== "string" || dist.tarball === "") return undefined;
  const integrity = strongestIntegrity(dist.integrity) ?? shasumIntegrity(dist.shasum);
  if (integrity === undefined) return undefined;
  return { version, tarball: dist.tarball, integrity };
}

/** The strongest of the space-separated SRI hashes npm may give. */
function strongestIntegrity(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const order = ["sha512", "sha384", "sha256", "sha1"];
  const found = raw.split(/\s+/).map((h) => SRI.exec(h)).filter((m) => m !== null);
  found.sort((a, b) => order.indexOf(a[1]!) - order.indexOf(b[1]!));
  return found[0]?.[0];
}

/** `dist.shasum` (hex sha1) as the SRI npm writes for it. */
function shasumIntegrity(raw: unknown): string | undefined {
  if (typeof raw !== "string" || !/^[0-9a-f]{40}$/i.test(raw)) return undefined;
  const bytes = raw.match(/../g)!.map((h) => parseInt(h, 16));
  return `sha1-${btoa(String.fromCharCode(...bytes))}`;
}

/** An SRI split into the WebCrypto algorithm and the expected bytes (base64). */
export function integrityParts(
  integrity: string,
): { algorithm: "SHA-512" | "SHA-384" | "SHA-256" | "SHA-1"; base64: string } | undefined {
  const match = SRI.exec(integrity);
  if (match === null) return undefined;
  const algorithm =
    ({ sha512: "SHA-512", sha384: "SHA-384", sha256: "SHA-256", sha1: "SHA-1" } as const)[
      match[1] as "sha512"
    ];
  return { algorithm, base64: match[2]! };
}

/**
 * The version a request picks from a package document: a pinned revision's version (its
 * integrity must be the document's too), a dist-tag, or the highest version a range allows
 * (prereleases only when the range names one).
 */
export function pickVersion(
  document: unknown,
  request: { range: string | undefined; revision: string | undefined },
  label: string,
): PackageVersion {
  if (!isPlainObject(document) || !isPlainObject(document.versions)) {
    throw new SkillError("parse_error", `The registry's document for ${label} lists no versions`);
  }
  const versions = document.versions;
  const tags = isPlainObject(document["dist-tags"]) ? document["dist-tags"] : {};
  const wanted = pinnedOrRanged(versions, tags, request);
  if (wanted === undefined) {
    const asked = request.revision ?? request.range ?? "latest";
    throw new SkillError("not_found", `No version of ${label} matches '${quoteName(asked)}'`);
  }
  const entry = Object.hasOwn(versions, wanted)
    ? versionEntry(versions[wanted], wanted)
    : undefined;
  if (entry === undefined) {
    throw new SkillError(
      "parse_error",
      `The registry's document for ${label}@${wanted} has no tarball with an integrity`,
    );
  }
  return entry;
}

function pinnedOrRanged(
  versions: Record<string, unknown>,
  tags: Record<string, unknown>,
  request: { range: string | undefined; revision: string | undefined },
): string | undefined {
  if (request.revision !== undefined) {
    const pinned = parseRevision(request.revision);
    return pinned !== undefined && Object.hasOwn(versions, pinned.version)
      ? pinned.version
      : undefined;
  }
  const range = request.range ?? "latest";
  if (DIST_TAG.test(range) && parseRange(range) === undefined) {
    const tagged = tags[range];
    return typeof tagged === "string" ? tagged : undefined;
  }
  const fitting = Object.keys(versions).filter((v) => parseSemver(v) && satisfies(range, v));
  return fitting.sort((a, b) => compareSemver(parseSemver(b)!, parseSemver(a)!))[0];
}

/** A folder of a package that holds a skill, and the field that named it. */
interface PackageSkillFolder {
  /** Relative to the package root, `/`-separated ("" for a package that is one skill). */
  path: string;
  field: "agents.skills" | "agentskills" | "layout";
}

/** The skill folders a package declares, and what of its fields was not read (and why). */
export interface PackageSkills {
  folders: PackageSkillFolder[];
  notes: string[];
}

const LAYOUT_FOLDERS = ["skills", "dist/skills", ".agents/skills"];

/** A path a field gives, normalised; undefined when it leaves the package. */
function fieldPath(raw: string): string | undefined {
  const path = raw.trim().replace(/^file:/, "").replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
  if (path === "" || path === ".") return "";
  return safeEntryPath(path) ? path : undefined;
}

/**
 * The folders under `path` that hold a skill: the folder itself (or the folder of a
 * `SKILL.md` it names), else its children that have one — a folder of skills.
 */
function foldersAt(path: string, files: ReadonlySet<string>): string[] {
  const join = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);
  if (/(?:^|\/)SKILL\.md$/.test(path) && files.has(path)) {
    return [path.split("/").slice(0, -1).join("/")];
  }
  if (files.has(join(path, "SKILL.md"))) return [path];
  const prefix = path === "" ? "" : `${path}/`;
  const children = new Set<string>();
  for (const file of files) {
    if (!file.startsWith(prefix)) continue;
    const rest = file.slice(prefix.length).split("/");
    if (rest.length === 2 && rest[1] === "SKILL.md") children.add(join(path, rest[0]!));
  }
  return [...children].sort();
}

/** What `agents.skills` names: `[{ name, path }]` (a bare path string is read too). */
function agentsSkills(raw: unknown, files: ReadonlySet<string>, out: PackageSkills): void {
  if (!Array.isArray(raw)) {
    out.notes.push("agents.skills: not a list of { name, path }");
    return;
  }
  for (const [index, entry] of raw.entries()) {
    const given = typeof entry === "string"
      ? entry
      : isPlainObject(entry) && typeof entry.path === "string"
      ? entry.path
      : undefined;
    if (given === undefined) {
      out.notes.push(`agents.skills[${index}]: no path`);
      continue;
    }
    addFolders(`agents.skills[${index}]`, "agents.skills", given, files, out);
  }
}

/** What `agentskills` names: `{ name: "file:./path" | "<source elsewhere>" }`. */
function agentskillsField(raw: unknown, files: ReadonlySet<string>, out: PackageSkills): void {
  const entries: [string, unknown][] = typeof raw === "string"
    ? [["agentskills", raw]]
    : Array.isArray(raw)
    ? raw.map((v, i) => [`agentskills[${i}]`, v])
    : isPlainObject(raw)
    ? Object.entries(raw).map(([k, v]) => [`agentskills.${k}`, v])
    : [];
  if (entries.length === 0) out.notes.push("agentskills: not a map of name to source");
  for (const [where, value] of entries) {
    if (typeof value !== "string") {
      out.notes.push(`${where}: not a source string`);
      continue;
    }
    if (/^file:|^\.{0,2}\//.test(value) || !/[:@]/.test(value)) {
      addFolders(where, "agentskills", value, files, out);
    } else {
      out.notes.push(`${where}: '${quoteName(value)}' is hosted elsewhere, not in the package`);
    }
  }
}

function addFolders(
  where: string,
  field: PackageSkillFolder["field"],
  given: string,
  files: ReadonlySet<string>,
  out: PackageSkills,
): void {
  const path = fieldPath(given);
  if (path === undefined) {
    out.notes.push(`${where}: '${quoteName(given)}' is not a path inside the package`);
    return;
  }
  const found = foldersAt(path, files);
  if (found.length === 0) out.notes.push(`${where}: '${quoteName(given)}' holds no SKILL.md`);
  for (const folder of found) {
    if (!out.folders.some((f) => f.path === folder)) out.folders.push({ path: folder, field });
  }
}

/**
 * The skill folders of a package, from its `package.json` (untrusted) and the paths of its
 * files: what `agents.skills` and `agentskills` name, else the layout the other tools read.
 */
export function packageSkillFolders(
  packageJson: unknown,
  files: ReadonlySet<string>,
): PackageSkills {
  const out: PackageSkills = { folders: [], notes: [] };
  const pkg = isPlainObject(packageJson) ? packageJson : {};
  if (isPlainObject(pkg.agents) && pkg.agents.skills !== undefined) {
    agentsSkills(pkg.agents.skills, files, out);
  }
  if (pkg.agentskills !== undefined) agentskillsField(pkg.agentskills, files, out);
  if (Array.isArray(pkg.skills) && pkg.skills.length > 0) {
    out.notes.push(
      "skills: lists skills hosted elsewhere (skills-npm's curated sources); add those sources themselves",
    );
  }
  if (out.folders.length > 0) return out;
  if (files.has("SKILL.md")) {
    out.folders.push({ path: "", field: "layout" });
    return out;
  }
  for (const dir of LAYOUT_FOLDERS) {
    for (const folder of foldersAt(dir, files)) {
      if (folder !== dir) out.folders.push({ path: folder, field: "layout" });
    }
  }
  return out;
}

/** The registry URL of a package's document (`@scope/name` as `@scope%2fname`). */
export function packageDocumentUrl(registry: string, packageName: string): string {
  const base = registry.endsWith("/") ? registry : `${registry}/`;
  return `${base}${packageName.replace("/", "%2f")}`;
}
