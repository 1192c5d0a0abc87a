/**
 * Getting a resolved source's files into a directory of a change's staging area (change.ts
 * decides where), by its kind (resolve_source.ts decided it once): a copy of a local folder,
 * a read of a repository on this machine, a clone of a remote read the same way, or a
 * verified pull from an OCI registry.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { MAX_SKILL_FILE_BYTES, tooLargeMessage } from "../../core/manifest/limits.ts";
import {
  describeSource,
  type GitSource,
  ociLabel,
  type OciSource,
  type RefRequest,
  type ResolvedSource,
  sourceLocation,
} from "../../core/sources/sources.ts";
import type { FetchedCommit, GitOptions } from "../git/command.ts";
import { readLocalRepository, readRemoteRepository } from "../git/local_read.ts";
import { lstatOrNull } from "../os/fs.ts";
import { RegistryClient } from "../oci/client.ts";
import { pullInto } from "../oci/pull.ts";
import type { Signed } from "../signing/policy.ts";

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
  /** Who signed it, when a signer policy applied (lifecycle/signatures.ts). */
  signed?: Signed;
}

const SKIP_DIRS = new Set([".git", "node_modules"]);
const MAX_COPY_ENTRIES = 20_000;
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
  }
}

/** Copies, reads, clones or pulls `source` into `root` (a directory that does not exist yet). */
export async function fetchInto(
  source: ResolvedSource,
  request: RefRequest,
  root: string,
  git: GitOptions,
): Promise<Fetched> {
  switch (source.kind) {
    case "local-folder":
      await copyTree(source.path, root, git.signal);
      return { source, root, base: root, commit: null };
    case "oci":
      return await pullOci(source, request, root);
    case "local-repository":
      return await atSubpath(
        source,
        root,
        await readLocalRepository(source.path, source.url, request, root, git),
      );
    case "remote-git":
      return await atSubpath(
        source,
        root,
        await readRemoteRepository(source.url, source.transport, request, root, git),
      );
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
      // pull.ts already names the artifact in its own refusals.
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
  const walk = async (src: string, dest: string) => {
    signal?.throwIfAborted();
    await Deno.mkdir(dest);
    for await (const entry of Deno.readDir(src)) {
      if (++count > MAX_COPY_ENTRIES) {
        throw new SkillError(
          "io_error",
          `Cannot copy ${from}: more than ${MAX_COPY_ENTRIES} files`,
        );
      }
      if (entry.isDirectory && SKIP_DIRS.has(entry.name)) continue;
      const s = join(src, entry.name);
      const d = join(dest, entry.name);
      if (entry.isSymlink) await Deno.symlink(await Deno.readLink(s), d);
      else if (entry.isDirectory) await walk(s, d);
      else if (entry.isFile) {
        const info = await Deno.lstat(s);
        checkSize(s, info.size);
        await Deno.copyFile(s, d);
        // A file that grew while being copied is caught here, at most one copy late.
        const copied = await Deno.lstat(d);
        if (copied.size > MAX_SKILL_FILE_BYTES) checkSize(s, copied.size);
        if (info.mode !== null) await Deno.chmod(d, info.mode & 0o777);
      }
    }
  };
  await walk(from, to);
}
