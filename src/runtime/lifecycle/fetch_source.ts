/**
 * Getting a resolved source's files into a directory of a change's staging area (change.ts
 * decides where), by its kind (resolve_source.ts decided it once): a copy of a local folder,
 * a read of a repository on this machine, a clone of a remote read the same way, or a
 * verified pull from an OCI registry.
 */

import { basename, dirname, join, relative, SEP } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import {
  MANIFEST_FILES,
  MAX_SKILL_FILE_BYTES,
  tooLargeMessage,
} from "../../core/manifest/limits.ts";
import {
  describeSource,
  type GitSource,
  isPathSelector,
  type NpmSource,
  ociLabel,
  type OciSource,
  pathSelector,
  type RefRequest,
  type ResolvedSource,
  selectedPath,
  sourceLocation,
  splitBrowserPath,
  type WebFileSource,
  type WellKnownSource,
} from "../../core/sources/sources.ts";
import { type FetchedCommit, GitError, type GitOptions } from "../git/command.ts";
import { remoteRefs } from "../git/fetch.ts";
import { MAX_TREE_ENTRIES, readLocalRepository, readRemoteRepository } from "../git/local_read.ts";
import { fileTurns, isWithin, lstatOrNull, lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import { archiveLimits } from "../web/entries.ts";
// The OCI, website and npm fetchers are imported where their kind is met (dynamic import()):
// an add from git loads none of them, and start-up is a feature.
import type { Signed } from "../signing/signer_policy.ts";
import type { Diagnostic, Manifest } from "../../core/manifest/manifest.ts";
import { canonicalSkillName, isValidSkillName, publishedSkillKey } from "../../core/names.ts";
import { inspectSkillDir, type ScriptInfo } from "../catalog/loader.ts";
import { discoverSkills } from "../catalog/discover.ts";
import { requirementsOf } from "../../core/sources/requirements.ts";

export interface Fetched {
  source: ResolvedSource;
  /** Root of the fetched tree inside staging (the clone, or the copied directory). */
  root: string;
  /** Where discovery starts: root + the source's subpath. */
  base: string;
  /**
   * The checked-out commit for git sources; for OCI, the manifest digest the reference
   * resolved to (as `sha`, with the tag followed or the digest pinned); null for directories.
   */
  commit: FetchedCommit | null;
  /**
   * A website's index: the digest each skill folder (by its path in the fetch) was fetched
   * at, each skill its own version (`revisionOf`); `commit` is set when there is one.
   */
  revisions?: ReadonlyMap<string, FetchedCommit>;
  /** Who signed it, when a signer policy applied (lifecycle/signatures.ts). */
  signed?: Signed;
  /** Links left out of the fetched tree (settleLinks): each skill's summary names its own. */
  leftOutLinks?: readonly LeftOutLink[];
}

const SKIP_DIRS = new Set([".git", "node_modules"]);
/**
 * A local directory copied for an install holds at most as many entries as a commit's tree
 * may: a folder is as large as the repository it is a checkout of (an API collection's
 * reference pages run to 25,000 files), and each skill is still held to its own cap
 * (catalog/loader.ts) when it is read.
 */
const MAX_COPY_ENTRIES = MAX_TREE_ENTRIES;
/** A local directory copied for an install holds at most this much in all. */
const MAX_COPY_BYTES = 1024 * 1024 * 1024;

/** Where a source's files come from, as the user typed it: the URL or the directory. */
export function sourceLabel(source: ResolvedSource): string {
  return sourceLocation(source);
}

/** The progress line shown before fetching a source to install. */
export function fetchAnnouncement(source: ResolvedSource, request?: RefRequest): string {
  switch (source.kind) {
    case "local-folder":
      return `Copying ${source.path} ...`;
    case "oci": {
      // A restore pulls the lockfile's digest, an update the tag: say which.
      const named = request === undefined || request.kind === "default" ? source.ref : request.name;
      return `Pulling ${ociLabel(source, named)} ...`;
    }
    case "local-repository":
      return `Reading ${describeSource(source)} ...`;
    case "remote-git":
      return `Cloning ${describeSource(source)} ...`;
    case "well-known":
      return `Reading the skills index of ${describeSource(source)} ...`;
    case "web-file":
      return `Downloading ${source.url} ...`;
    case "npm":
      return source.installedDir !== undefined
        ? `Reading ${source.url} from node_modules ...`
        : `Downloading ${describeSource(source)} ...`;
  }
}

/** The version a skill of a fetch was fetched at: its own (a site's index), else the fetch's. */
export function revisionOf(fetched: Fetched, rel: string): FetchedCommit | null {
  return fetched.revisions?.get(rel) ?? fetched.commit;
}

/** A website's version of a skill: its digest, nothing to follow. */
function digestRevision(digest: string): FetchedCommit {
  return { sha: digest, branch: null, tag: null, ref: null };
}

/** The digest a restore asks a website for (`--ref sha256:…` from the record), if any. */
function wantedDigest(request: RefRequest): string | undefined {
  return request.kind === "ref" && request.name.startsWith("sha256:") ? request.name : undefined;
}

/** A site's index: each skill in `<root>/<name>/`, its digest checked before it is written. */
async function fetchSite(
  source: WellKnownSource,
  request: RefRequest,
  root: string,
  signal?: AbortSignal,
): Promise<Fetched> {
  const limits = archiveLimits(Deno.env.toObject());
  const { fetchWellKnown } = await import("../web/fetch_web.ts");
  const digests = await fetchWellKnown(
    source.url,
    source.subpath,
    wantedDigest(request),
    root,
    limits,
    signal,
  );
  const revisions = new Map([...digests].map(([name, d]) => [name, digestRevision(d)]));
  const base = source.subpath === "" ? root : join(root, source.subpath);
  const single = revisions.size === 1 ? [...revisions.values()][0]! : null;
  return { source, root, base, commit: single, revisions };
}

/** One file from a website (a SKILL.md, or an archive read within the limits). */
async function fetchFile(
  source: WebFileSource,
  request: RefRequest,
  root: string,
  signal?: AbortSignal,
): Promise<Fetched> {
  const limits = archiveLimits(Deno.env.toObject());
  const { fetchWebFile } = await import("../web/fetch_web.ts");
  const digest = await fetchWebFile(
    source.url,
    source.target,
    wantedDigest(request),
    root,
    limits,
    signal,
  );
  const base = source.subpath === "" ? root : join(root, ...source.subpath.split("/"));
  if ((await lstatOrNull(base)) === null) {
    throw new SkillError("not_found", `Path '${source.subpath}' not found in ${source.url}`);
  }
  return { source, root, base, commit: digestRevision(digest) };
}

/**
 * Copies, reads, clones or pulls `source` into `root` (a directory that does not exist yet),
 * its links settled: copies of its own files, the rest left out (settleLinks).
 */
export async function fetchInto(
  source: ResolvedSource,
  request: RefRequest,
  root: string,
  git: GitOptions,
): Promise<Fetched> {
  const fetched = await fetchTree(source, request, root, git);
  // Only a folder's copy and a git tree write links; the other fetchers refuse them.
  if (
    source.kind === "local-folder" || source.kind === "local-repository" ||
    source.kind === "remote-git"
  ) {
    const leftOut = await settleLinks(fetched.root);
    if (leftOut.length > 0) return { ...fetched, leftOutLinks: leftOut };
  }
  return fetched;
}

function fetchTree(
  source: ResolvedSource,
  request: RefRequest,
  root: string,
  git: GitOptions,
): Promise<Fetched> {
  switch (source.kind) {
    case "local-folder":
      return copyTree(source.path, root, git.signal)
        .then(() => ({ source, root, base: root, commit: null }));
    case "oci":
      return pullOci(source, request, root);
    case "local-repository":
    case "remote-git":
      return fetchGit(source, request, root, git);
    case "well-known":
      return fetchSite(source, request, root, git.signal);
    case "web-file":
      return fetchFile(source, request, root, git.signal);
    case "npm":
      return fetchPackage(source, request, root, git);
  }
}

/** At most this much is written in all as copies of linked files, per fetch. */
const MAX_LINKED_COPY_BYTES = 64 * 1024 * 1024;

/** A link `add` left out of its copy of a source: where it was, and what it held. */
interface LeftOutLink {
  /** Its path in the fetched tree, `/`-separated. */
  path: string;
  /** Its text, as `readlink` gives it (never followed). */
  target: string;
  why: "out of the source" | "nowhere" | "a folder";
}

/**
 * An installed skill holds no links: its digest binds bytes, and a link would make what runs
 * depend on where it points then. In a fetch's own copy of a source, before anything is
 * validated, audited or digested: a link to a regular file of that same source (Supabase's
 * `CLAUDE.md -> AGENTS.md`; a file a monorepo's skills share) is replaced by a copy of the
 * file, the author's bytes; a link that leads out of the source or to nothing, or to a folder
 * from inside a skill, is removed, never followed, and returned so each skill's summary names it (richfrem's
 * spec-kitty skills each hold a link six levels up, out of the repository: the skill works
 * without it, as the peer installs it). A linked `SKILL.md` stays (a second name for another
 * skill, which `add` lists apart), and so does a link whose copy would pass
 * MAX_LINKED_COPY_BYTES in all, for validation to refuse. Every decision is made before
 * anything changes, so the order of the links changes nothing.
 */
async function settleLinks(root: string): Promise<LeftOutLink[]> {
  const links: string[] = [];
  // Read synchronously: ~9 µs an entry, where an asynchronous walk took twice as long.
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      if (entry.isSymlink) links.push(path);
      else if (entry.isDirectory) walk(path);
    }
  };
  walk(root);
  if (links.length === 0) return [];
  const realRoot = await Deno.realPath(root);
  const copies: { link: string; target: string; mode: number }[] = [];
  const leftOut: { link: string; why: LeftOutLink["why"] }[] = [];
  let copied = 0;
  for (const link of links) {
    if (basename(link).toLowerCase() === "skill.md") continue;
    const target = await Deno.realPath(link).catch(() => undefined);
    if (target === undefined) leftOut.push({ link, why: "nowhere" });
    else if (!isWithin(realRoot, target)) leftOut.push({ link, why: "out of the source" });
    else {
      const info = await Deno.lstat(target);
      if (!info.isFile) {
        // A folder link outside every skill is how a plugin's skills/ reaches the folders
        // that hold them (mrgoonie's .claude/skills/): discovery follows it to the real place.
        if (insideASkill(root, link)) leftOut.push({ link, why: "a folder" });
      } else if (copied + info.size <= MAX_LINKED_COPY_BYTES) {
        copied += info.size;
        copies.push({ link, target, mode: (info.mode ?? 0o644) & 0o777 });
      }
    }
  }
  // Bytes are read before any link is touched: a copy never depends on another's removal.
  const bytes = await Promise.all(copies.map((c) => Deno.readFile(c.target)));
  const out: LeftOutLink[] = [];
  for (const { link, why } of leftOut) {
    const text = await Deno.readLink(link);
    out.push({ path: relative(root, link).split(SEP).join("/"), target: text, why });
  }
  // The link goes before a byte is written: nothing is written through it.
  for (const { link } of [...copies, ...leftOut]) await Deno.remove(link);
  for (const [i, c] of copies.entries()) {
    await Deno.writeFile(c.link, bytes[i]!, { createNew: true, mode: c.mode });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Whether a folder from `path`'s parent up to `root`, both included, holds a SKILL.md. */
function insideASkill(root: string, path: string): boolean {
  for (let dir = dirname(path); dir.length >= root.length; dir = dirname(dir)) {
    if (MANIFEST_FILES.some((name) => lstatSyncOrNull(join(dir, name))?.isFile === true)) {
      return true;
    }
    if (dir === root || dirname(dir) === dir) break;
  }
  return false;
}

/**
 * An npm package's skills (runtime/npm): a record's revision (`--ref <version>@<integrity>`)
 * restores exactly that, a tag request is the range an update follows, else the source's own
 * range (or `latest`).
 */
async function fetchPackage(
  source: NpmSource,
  request: RefRequest,
  root: string,
  git: GitOptions,
): Promise<Fetched> {
  if (request.kind === "branch") {
    throw new SkillError(
      "usage",
      "An npm package has versions, not branches: use npm:<package>@<range>",
    );
  }
  const revision = request.kind === "ref" ? request.name : undefined;
  const range = request.kind === "tag" ? request.name : source.ref;
  const { fetchNpmPackage } = await import("../npm/fetch_npm.ts");
  const got = await fetchNpmPackage(
    source,
    { range, revision },
    root,
    archiveLimits(git.env),
    git.env,
    git.env.INIT_CWD ?? Deno.cwd(),
    git.signal,
  );
  const base = source.subpath === "" ? root : join(root, ...source.subpath.split("/"));
  if (source.subpath !== "" && (await lstatOrNull(base)) === null) {
    throw new SkillError(
      "not_found",
      `Skill folder '${source.subpath}' not found in ${source.url}`,
    );
  }
  const commit = { sha: got.revision, branch: null, tag: range ?? "latest", ref: null };
  return { source, root, base, commit };
}

/**
 * A repository's files at `request`. A browser URL's `/tree/feature/x/skills/pdf` is read
 * with `feature` as its ref first; when the repository has no such ref, its branches and
 * tags (one `ls-remote`, only then) say where the ref ends (`splitBrowserPath`), as the
 * forge reads it, and the read is made again.
 */
async function fetchGit(
  source: GitSource,
  request: RefRequest,
  root: string,
  git: GitOptions,
): Promise<Fetched> {
  const read = async (at: GitSource, wanted: RefRequest) =>
    await atSubpath(
      at,
      root,
      at.kind === "local-repository"
        ? await readLocalRepository(at.path, at.url, wanted, root, git)
        : await readRemoteRepository(at.url, at.transport, wanted, root, git),
    );
  try {
    return await read(source, request);
  } catch (error) {
    const browser = source.browserPath;
    const fromUrl = request.kind === "ref" && request.name === source.ref;
    if (!(error instanceof GitError) || error.kind !== "ref_not_found" || !browser || !fromUrl) {
      throw error;
    }
    const refs = await remoteRefs(source.url, source.transport, git);
    const names = [...refs.keys()].filter((name) => !name.endsWith("^{}"))
      .map((name) => name.replace(/^refs\/(?:heads|tags)\//, ""));
    const split = splitBrowserPath(source.url, browser, names);
    if (split === undefined) throw error;
    await removeIfExists(root); // as the first read found it: not there
    return await read({ ...source, ref: split.ref, subpath: split.subpath }, {
      kind: "ref",
      name: split.ref,
    });
  }
}

/** A git fetch whose discovery starts at the source's subpath, which must be a folder. */
async function atSubpath(
  source: GitSource,
  root: string,
  commit: FetchedCommit,
): Promise<Fetched> {
  const base = source.subpath === "" ? root : join(root, ...source.subpath.split("/"));
  const info = await lstatOrNull(base);
  if (info === null || !info.isDirectory || info.isSymlink) {
    throw new SkillError(
      "not_found",
      `Path '${source.subpath}' not found in ${source.url} at ${commit.sha.slice(0, 12)}`,
    );
  }
  return { source, root, base, commit };
}

/**
 * Pulls an OCI reference, verified blob by blob and file by file (runtime/oci/pull.ts): the
 * tag or digest asked for (`--tag`, `:tag`, `@sha256:…`), else the source's own, else
 * `latest`. The "commit" is the manifest digest the reference resolved to.
 */
async function pullOci(source: OciSource, request: RefRequest, root: string): Promise<Fetched> {
  const wanted = request.kind === "default" ? source.ref ?? "latest" : request.name;
  if (request.kind === "branch") {
    throw new SkillError("usage", `An OCI registry has tags, not branches: use --tag ${wanted}`);
  }
  const digest = wanted.startsWith("sha256:") ? wanted : undefined;
  const reference = {
    registry: source.registry,
    repository: source.repository,
    ...(digest ? { digest } : { tag: wanted }),
  };
  const [{ pullInto }, { RegistryClient }] = await Promise.all([
    import("../oci/pull.ts"),
    import("../oci/client.ts"),
  ]);
  let pulled;
  try {
    pulled = await pullInto(reference, new RegistryClient({ registry: source.registry }), root);
  } catch (error) {
    if (error instanceof SkillError) throw error;
    const message = (error as Error).message;
    const status = (error as { status?: number }).status;
    const code = status === 404
      ? "not_found"
      : status === 401 || status === 403
      ? "permission_denied"
      : status !== undefined || message.startsWith("Cannot reach")
      ? "io_error"
      : "integrity_mismatch";
    throw new SkillError(
      code,
      // oci/pull.ts already names the artifact in its own refusals.
      message.startsWith("Cannot install from ")
        ? message
        : `Cannot install from ${ociLabel(source, wanted)}: ${message}`,
      { cause: error },
    );
  }
  const base = source.subpath === "" ? root : join(root, ...source.subpath.split("/"));
  if (source.subpath !== "" && (await lstatOrNull(base)) === null) {
    throw new SkillError(
      "not_found",
      `Skill '${source.subpath}' not found in ${ociLabel(source, pulled.digest)}`,
    );
  }
  const commit = {
    sha: pulled.digest,
    branch: null,
    tag: digest ? null : wanted,
    ref: digest ?? null,
  };
  return { source, root, base, commit };
}

/**
 * Copies a directory tree: regular files with their mode, directories, and symlinks as
 * symlinks (so that validation sees and judges them). `.git` and `node_modules` are skipped.
 */
async function copyTree(from: string, to: string, signal?: AbortSignal): Promise<void> {
  const info = await lstatOrNull(from);
  if (info === null || !info.isDirectory) {
    throw new SkillError("not_found", `Directory not found: ${from}`);
  }
  let count = 0;
  const turn = fileTurns();
  let bytes = 0;
  /** Sizes are checked before a byte is copied (a sparse 2 GiB file costs nothing to stat). */
  const checkSize = (path: string, size: number) => {
    const rel = path.slice(from.length + 1).replaceAll("\\", "/");
    if (size > MAX_SKILL_FILE_BYTES) {
      throw new SkillError("io_error", `Cannot copy ${from}: ${tooLargeMessage(rel, size)}`);
    }
    bytes += size;
    if (bytes > MAX_COPY_BYTES) {
      throw new SkillError(
        "io_error",
        `Cannot copy ${from}: it holds more than ${MAX_COPY_BYTES} bytes (1 GiB)`,
        { hint: "Point at the skill's own directory, or install from its git repository" },
      );
    }
  };
  // Sync calls, one folder at a time: an awaited call per file costs a hand-off to Deno's
  // thread pool and back, which made a folder of 20,000 files take seconds. A turn of the
  // event loop every few hundred entries lets Ctrl-C abort `signal` meanwhile.
  const walk = async (src: string, dest: string) => {
    signal?.throwIfAborted();
    Deno.mkdirSync(dest);
    for (const entry of Deno.readDirSync(src)) {
      if (++count > MAX_COPY_ENTRIES) {
        throw new SkillError(
          "io_error",
          `Cannot copy ${from}: more than ${MAX_COPY_ENTRIES} files`,
        );
      }
      await turn();
      signal?.throwIfAborted();
      if (entry.isDirectory && SKIP_DIRS.has(entry.name)) continue;
      const s = join(src, entry.name);
      const d = join(dest, entry.name);
      if (entry.isSymlink) Deno.symlinkSync(Deno.readLinkSync(s), d);
      else if (entry.isDirectory) await walk(s, d);
      else if (entry.isFile) {
        const info = Deno.lstatSync(s);
        checkSize(s, info.size);
        Deno.copyFileSync(s, d);
        // A file that grew while being copied is caught here, at most one copy late.
        const copied = Deno.lstatSync(d);
        if (copied.size > MAX_SKILL_FILE_BYTES) checkSize(s, copied.size);
        if (info.mode !== null) Deno.chmodSync(d, info.mode & 0o777);
      }
    }
  };
  await walk(from, to);
}

export interface Candidate {
  /** Path of the skill inside the source (repository-relative), "" for the root. */
  rel: string;
  dir: string;
  /** From the manifest; undefined when SKILL.md could not be parsed. */
  name: string | undefined;
  canonical: string | undefined;
  description: string;
  manifest: Manifest | undefined;
  scripts: ScriptInfo[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /**
   * Where its SKILL.md points when that is a symlink (never followed: such a folder is
   * refused when asked for by name, and left out of `--skill '*'`): a mirror of a skill or
   * of a command kept for another agent, as some repositories ship (`.gemini/skills/x/`).
   */
  linked?: string;
  /**
   * The source names it as one of its skills (a plugin manifest, or the top `skills/`
   * folder): of two folders with one name, the one `--skill '*'` installs when the other was
   * only come upon (runtime/catalog/discover.ts).
   */
  declared?: true;
  /**
   * In an agent's skills folder at the source's top (`.agents/skills/<name>`): the copy the
   * repository keeps for its own agent, preferred by `--skill '*'` over a same-named folder
   * the search only came upon, not over a declared one.
   */
  agentFolder?: true;
  /**
   * Found only by the deeper search of a tree with no layout (runtime/catalog/discover.ts):
   * `--skill '*'` prefers a same-named one found nearer the top.
   */
  deep?: true;
  /** Its SKILL.md has no front matter at all: `--skill '*'` leaves it out unless declared. */
  noFrontMatter?: true;
  /**
   * Its SKILL.md's front matter names neither a name nor a description: a document claiming
   * no skill, which `--skill '*'` leaves out unless declared, as one with no front matter.
   */
  unnamed?: true;
}

/** Finds and validates every skill in a fetched source. */
export async function inspectCandidates(fetched: Fetched): Promise<Candidate[]> {
  const found = await discoverSkills(fetched.base);
  const prefix = fetched.source.subpath;
  const out: Candidate[] = [];
  for (const f of found) {
    const result = await inspectSkillDir(f.dir);
    const manifest = result.manifest;
    const rel = [prefix, f.rel].filter((p) => p !== "").join("/");
    // The directory name of a repository root says nothing about the skill.
    const warnings = [
      ...result.diagnostics.filter((d) =>
        d.level === "warning" &&
        !(f.rel === "" && d.message.includes("differs from the directory"))
      ),
      ...leftOutWarnings(fetched, f.dir),
      ...unreadRequirements(manifest, join(f.dir, "SKILL.md")),
    ];
    // An invalid skill is still named as its SKILL.md names it, so it can be listed and
    // picked with --skill (and then refused with its errors).
    const name = manifest?.name ?? result.declaredName;
    const linked = f.linkedManifest === undefined
      ? undefined
      : await Deno.readLink(join(f.dir, f.linkedManifest)).catch(() => "?");
    out.push({
      ...(linked !== undefined ? { linked } : {}),
      ...(f.declared ? { declared: true as const } : {}),
      ...(f.agentFolder ? { agentFolder: true as const } : {}),
      ...(f.deep ? { deep: true as const } : {}),
      ...(result.noFrontMatter ? { noFrontMatter: true as const } : {}),
      ...(result.unnamed ? { unnamed: true as const } : {}),
      rel,
      dir: f.dir,
      name,
      canonical: publishedSkillKey(name),
      description: manifest?.description ?? "",
      manifest,
      scripts: result.record?.scripts ?? [],
      errors: result.diagnostics.filter((d) => d.level === "error"),
      warnings,
    });
  }
  return out;
}

/** A warning for `metadata.requires` entries that name no skill to install (requirementsOf). */
function unreadRequirements(manifest: Manifest | undefined, file: string): Diagnostic[] {
  const { unread } = requirementsOf(manifest?.metadata);
  if (unread.length === 0) return [];
  return [{
    level: "warning",
    file,
    message: `metadata.requires: ${
      unread.map((e) => `'${e}'`).join(", ")
    } names no skill to install (no owner/repo, URL or scheme): not read as a dependency; ` +
      `a program the skill needs belongs in 'compatibility'`,
  }];
}

/** A warning for each link the fetch left out of this skill's folder (settleLinks). */
function leftOutWarnings(fetched: Fetched, dir: string): Diagnostic[] {
  const links = fetched.leftOutLinks ?? [];
  if (links.length === 0) return [];
  const inSkill = relative(fetched.root, dir).split(SEP).filter((p) => p !== "").join("/");
  const prefix = inSkill === "" ? "" : `${inSkill}/`;
  return links.filter((link) => link.path.startsWith(prefix)).map((link) => ({
    level: "warning" as const,
    file: join(dir, link.path.slice(prefix.length)),
    message:
      `a symlink to ${link.target}, leading ${
        link.why === "a folder" ? "to a folder" : link.why
      }: left out (a link is never followed or installed; a link to a file of the source is ` +
      `installed as a copy)`,
  }));
}

function dirKey(rel: string): string | undefined {
  const last = rel.split("/").pop() ?? "";
  return isValidSkillName(last) ? canonicalSkillName(last) : undefined;
}

/**
 * Chooses candidates by canonical name (manifest name or directory name); `*` selects all.
 * With no selectors, a source with exactly one skill selects it; several is a usage error
 * the CLI turns into a question on a terminal.
 */
export function selectCandidates(
  candidates: readonly Candidate[],
  selectors: readonly string[],
  sourceLabel: string,
): Candidate[] {
  if (candidates.length === 0) {
    throw new SkillError("not_found", `No skills found in ${sourceLabel}`, {
      hint:
        "A skill is a directory with a SKILL.md (at the root, in skills/<name>/, or up to 3 levels deep; 5 in a tree with no skills/ folder, agent folder or plugin manifest)",
    });
  }
  if (selectors.length === 0) {
    if (candidates.length === 1) return [...candidates];
    throw new SkillError(
      "usage",
      `${sourceLabel} contains ${candidates.length} skills: ${
        candidates.map(candidateLabel).join(", ")
      }`,
      { hint: "Choose with --skill NAME (repeatable) or --skill '*' for all; --list shows them" },
    );
  }
  if (selectors.includes("*")) return [...candidates];
  const chosen: Candidate[] = [];
  for (const wanted of selectors) {
    if (isPathSelector(wanted)) {
      const hit = candidates.find((c) => c.rel === selectedPath(wanted));
      if (hit === undefined) {
        throw new SkillError("not_found", `No skill at '${wanted}' in ${sourceLabel}`, {
          hint: `Skills are at: ${candidates.map((c) => c.rel || "(root)").join(", ")}` +
            insideRootSkill(candidates, (rel) => rel === selectedPath(wanted)),
        });
      }
      if (!chosen.includes(hit)) chosen.push(hit);
      continue;
    }
    const match = candidates.filter((c) => c.canonical === wanted);
    const hits = match.length > 0 ? match : candidates.filter((c) => dirKey(c.rel) === wanted);
    if (hits.length === 0) {
      throw new SkillError("not_found", `Skill '${wanted}' not found in ${sourceLabel}`, {
        hint: `Available: ${candidates.map(candidateLabel).join(", ")}` +
          insideRootSkill(candidates, (rel) => dirKey(rel) === wanted),
      });
    }
    if (hits.length > 1) {
      throw new SkillError(
        "conflict",
        `Skill '${wanted}' is ambiguous in ${sourceLabel}: ${hits.map((h) => h.rel).join(", ")}`,
        {
          hint: `Pick one by its path: ${
            hits.map((h) => `--skill ${pathArgument(h)}`).join(" or ")
          }`,
        },
      );
    }
    if (!chosen.includes(hits[0]!)) chosen.push(hits[0]!);
  }
  return chosen;
}

/** How deep below a root skill a folder holding a SKILL.md is looked for (only on a miss). */
const NESTED_DEPTH = 4;

/**
 * When the only skill found is the source's root, a `--skill` that named none of it may mean a
 * folder inside it with a SKILL.md of its own (a collection whose root SKILL.md describes the
 * collection, its skills under skills/): the root is one skill and those folders are its
 * files, as the peer CLI reads it too, so nothing else is offered — the hint says where the
 * folder is and how to add it as the source. Empty when there is none.
 */
function insideRootSkill(
  candidates: readonly Candidate[],
  matches: (rel: string) => boolean,
): string {
  const root = candidates.length === 1 && candidates[0]!.rel === "" ? candidates[0] : undefined;
  if (root === undefined) return "";
  const found: string[] = [];
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > NESTED_DEPTH || found.length > 0) return;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory || entry.isSymlink || entry.name === ".git") continue;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const folder = join(dir, entry.name);
      if (matches(path) && lstatSyncOrNull(join(folder, "SKILL.md"))?.isFile) found.push(path);
      else walk(folder, path, depth + 1);
    }
  };
  walk(root.dir, "", 1);
  if (found.length === 0) return "";
  const [path] = found;
  return `. ${path}/SKILL.md is inside the skill at the root (${
    candidateLabel(root)
  }), whose folders are its own files: to add that folder as a skill of its own, give it after ` +
    `the source (owner/repo/${path}, or ./path/to/repo/${path})`;
}

/**
 * Valid candidates that would be installed under one name, in groups of two or more: `keyOf`
 * gives each one's name (undefined: left out of every group).
 */
export function sameNameGroups(
  candidates: readonly Candidate[],
  keyOf: (c: Candidate) => string | undefined,
): Candidate[][] {
  const byName = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const key = keyOf(c);
    if (key === undefined || c.manifest === undefined || c.errors.length > 0) continue;
    byName.set(key, [...(byName.get(key) ?? []), c]);
  }
  return [...byName.values()].filter((group) => group.length > 1);
}

/**
 * A candidate's path as `--skill` and `--name OLD=NEW` take it: `skills/pdf`, or `./pdf` for a
 * folder at the top (a bare `pdf` is read as a name).
 */
export function pathArgument(c: Pick<Candidate, "rel">): string {
  return pathSelector(c.rel);
}

/** How a candidate is named in messages: its manifest name, else its folder. */
export function candidateLabel(c: Candidate): string {
  return c.name ?? (c.rel === "" ? "(root)" : c.rel);
}

/** `invalid_manifest` for a candidate that failed validation, each error with its line. */
export function invalidCandidate(c: Candidate, selectedCount: number): SkillError | undefined {
  if (c.errors.length === 0 && c.manifest !== undefined) return undefined;
  const lines = c.errors.map((e) =>
    `${candidateLabel(c)}: ${e.message}${e.line ? ` (line ${e.line})` : ""}`
  );
  return new SkillError("invalid_manifest", `Invalid skill: ${lines.join("; ")}`, {
    hint: selectedCount === 1 ? "Nothing was installed" : "This skill was not installed",
  });
}
