/**
 * Cloning a remote repository at a ref with git (see command.ts for how git is run): shallow
 * clones of branches and tags, an exact fetch of a full commit SHA, a full clone + rev-parse
 * for an abbreviated one, and ls-remote to see whether a tracked ref moved. Clones fetch
 * objects only, without blobs over the file-size limit, and are never checked out: what they
 * return says which commit to read, and local_read.ts (the layer above) writes its files with
 * every path checked, as for any repository on this machine. This module imports only
 * command.ts (runtime/git/mod.ts declares the order).
 */

import {
  isFullSha,
  looksLikeSha,
  type RefRequest,
  type Transport,
} from "../../core/sources/sources.ts";
import { removeIfExists } from "../os/fs.ts";
import {
  cloneArgv,
  fetchCommitArgv,
  GitError,
  type GitOptions,
  gitOrThrow,
  initArgv,
  lsRemoteArgv,
  revParseArgv,
  runGit,
  withRetries,
} from "./command.ts";

/**
 * A clone made in `path` without checkout: which of its commits to read, and how the user
 * named it (what the read cannot know: the tag a detached clone was asked for, the `--ref`).
 */
export interface Clone {
  url: string;
  /** The clone's directory: its `.git` is inside, its files are written there. */
  path: string;
  /** The clone's HEAD after a branch or tag clone; the exact commit after a SHA fetch. */
  read: RefRequest;
  /** The tag asked for, recorded when the commit read sits on no branch. */
  tagWhenDetached: string | null;
  /** The `--ref` (or `#ref`) as given, or null. */
  ref: string | null;
}

/**
 * Clones `request` of `url` into `dest` (which must not exist): shallow for branches and
 * tags, exactly the commit for a full SHA, a full clone + rev-parse for an abbreviated one.
 */
export async function cloneRepository(
  url: string,
  transport: Transport,
  request: RefRequest,
  dest: string,
  options: GitOptions,
): Promise<Clone> {
  const reset = () => removeIfExists(dest);
  const retry = <T>(work: () => Promise<T>) => withRetries(options, work, reset);
  if (request.kind === "ref" && isFullSha(request.name)) {
    return await fetchExactCommit(url, transport, request.name, dest, options);
  }
  const branch = request.kind === "default" ? undefined : request.name;
  try {
    await retry(() =>
      gitOrThrow(
        "clone",
        url,
        cloneArgv(transport, url, dest, { branch, checkout: false }),
        transport,
        options,
      )
    );
  } catch (error) {
    const abbreviated = request.kind === "ref" && looksLikeSha(request.name);
    if (!(error instanceof GitError) || error.kind !== "ref_not_found" || !abbreviated) {
      if (error instanceof GitError && error.kind === "ref_not_found" && branch !== undefined) {
        throw new GitError(
          "ref_not_found",
          `${request.kind === "ref" ? "ref" : request.kind} '${branch}' not found`,
          "Check the name; `git ls-remote <url>` lists branches and tags",
        );
      }
      throw error;
    }
    await reset();
    return await fetchAbbreviatedCommit(url, transport, request.name, dest, options);
  }
  // `clone --branch` leaves HEAD on what was asked for: the clone's HEAD is the commit.
  return {
    url,
    path: dest,
    read: { kind: "default" },
    tagWhenDetached: branch ?? null,
    ref: request.kind === "ref" ? request.name : null,
  };
}

async function fetchExactCommit(
  url: string,
  transport: Transport,
  sha: string,
  dest: string,
  options: GitOptions,
): Promise<Clone> {
  const lower = sha.toLowerCase();
  try {
    await withRetries(options, async () => {
      await removeIfExists(dest);
      await gitOrThrow("init", url, initArgv(transport, dest), transport, options);
      await gitOrThrow(
        "fetch",
        url,
        fetchCommitArgv(transport, url, lower),
        transport,
        options,
        dest,
      );
    });
  } catch (error) {
    // Servers that refuse unadvertised objects: clone everything and look for it.
    if (!(error instanceof GitError) || error.kind !== "ref_not_found") throw error;
    await removeIfExists(dest);
    return await fetchAbbreviatedCommit(url, transport, lower, dest, options);
  }
  return { url, path: dest, read: { kind: "ref", name: lower }, tagWhenDetached: null, ref: sha };
}

async function fetchAbbreviatedCommit(
  url: string,
  transport: Transport,
  prefix: string,
  dest: string,
  options: GitOptions,
): Promise<Clone> {
  await withRetries(
    options,
    () =>
      gitOrThrow(
        "clone",
        url,
        cloneArgv(transport, url, dest, { shallow: false, checkout: false }),
        transport,
        options,
      ),
    () => removeIfExists(dest),
  );
  const out = await runGit(revParseArgv(transport, prefix), transport, options, dest);
  const sha = out.stdout.trim().toLowerCase();
  if (out.code !== 0 || !isFullSha(sha) || !sha.startsWith(prefix.toLowerCase())) {
    const ambiguous = /ambiguous/i.test(out.stderr);
    throw new GitError(
      "ref_not_found",
      ambiguous ? `commit '${prefix}' is ambiguous` : `ref or commit '${prefix}' not found`,
      ambiguous ? "Give more characters of the commit SHA" : undefined,
    );
  }
  return { url, path: dest, read: { kind: "ref", name: sha }, tagWhenDetached: null, ref: prefix };
}

/**
 * Every branch and tag of a remote, by full ref name (peeled tags as `refs/tags/x^{}`): one
 * ls-remote answers for all the skills an update checks from that remote.
 */
export async function remoteRefs(
  url: string,
  transport: Transport,
  options: GitOptions,
): Promise<Map<string, string>> {
  // Patterns, not everything: GitHub also advertises thousands of refs/pull/* refs.
  const argv = lsRemoteArgv(transport, url, ["refs/heads/*", "refs/tags/*"]);
  const out = await withRetries(
    options,
    () => gitOrThrow("ls-remote", url, argv, transport, options),
  );
  const found = new Map<string, string>();
  for (const line of out.stdout.split("\n")) {
    const [sha, name] = line.split("\t");
    if (sha !== undefined && name !== undefined) found.set(name, sha.toLowerCase());
  }
  return found;
}

/** The commit `tracking` names among a remote's refs (a peeled tag wins), or null. */
export function trackedCommit(
  refs: ReadonlyMap<string, string>,
  tracking: { kind: "branch" | "tag"; name: string },
): string | null {
  if (tracking.kind === "branch") return refs.get(`refs/heads/${tracking.name}`) ?? null;
  return refs.get(`refs/tags/${tracking.name}^{}`) ?? refs.get(`refs/tags/${tracking.name}`) ??
    null;
}

/** The commit a branch or tag of `url` points to (a peeled tag wins), or null. */
export async function remoteCommit(
  url: string,
  transport: Transport,
  tracking: { kind: "branch" | "tag"; name: string },
  options: GitOptions,
): Promise<string | null> {
  return trackedCommit(await remoteRefs(url, transport, options), tracking);
}
