/**
 * Reading a commit straight out of a repository on this machine (`file://` URLs and bare
 * repository paths), without cloning it: `rev-parse` resolves the ref, `ls-tree` lists the
 * tree, and one `cat-file --batch` streams the blobs into files. A clone would spawn
 * upload-pack, pack-objects and index-pack, write a pack and then check it out; this does
 * a third of the work and writes nothing but the files.
 *
 * The repository is untrusted: only plumbing runs in it (no hooks, filters or checkout),
 * with the same hardened configuration and environment as any other git call. Every tree
 * path is checked before anything is written; symlinks are created last, so no write can
 * pass through one. Ref resolution follows `git clone --branch`: a branch, then a tag, then
 * (for --ref) a commit.
 */

import { dirname, join } from "../core/paths.ts";
import { isFullSha, looksLikeSha, type RefRequest } from "../core/sources.ts";
import { SkillError } from "../core/errors.ts";
import {
  collect,
  gitConfigArgs,
  gitEnv,
  GitError,
  gitFailure,
  type GitOptions,
  gitTimeout,
  gitTimeoutMs,
  runGit,
} from "./git.ts";
import type { FetchedCommit } from "./git_fetch.ts";
import { afterDelay } from "./timer.ts";

/** The local path a `file://` URL names, or null when the fast path does not apply. */
export function localRepositoryPath(url: string): string | null {
  if (Deno.build.os === "windows" || !url.startsWith("file:///")) return null;
  const path = url.slice("file://".length);
  // Percent-encoded URLs are left to git's own parsing, via a clone.
  return path.includes("%") ? null : path;
}

/** The git directory of a repository path: `<path>/.git` for a work tree, else the path. */
async function gitDirOf(path: string): Promise<string> {
  const dotGit = await Deno.lstat(join(path, ".git")).catch(() => null);
  return dotGit?.isDirectory ? join(path, ".git") : path;
}

export async function readLocalRepository(
  path: string,
  url: string,
  request: RefRequest,
  dest: string,
  options: GitOptions,
): Promise<FetchedCommit> {
  const gitDir = await gitDirOf(path);
  const git = (args: string[]) =>
    runGit([...gitConfigArgs("file"), `--git-dir=${gitDir}`, ...args], "file", options);
  const commit = await resolveCommit(git, url, request);
  const listing = await git(["ls-tree", "-r", "-z", "--full-tree", commit.sha]);
  if (listing.code !== 0) throw gitFailure("ls-tree", url, listing.stderr);
  const entries = parseTree(listing.stdout);
  await materialize(gitDir, entries, dest, options);
  return commit;
}

type Git = (args: string[]) => ReturnType<typeof runGit>;

async function resolveCommit(git: Git, url: string, request: RefRequest): Promise<FetchedCommit> {
  if (request.kind === "default") {
    const out = await git(["rev-parse", "HEAD^{commit}", "--symbolic-full-name", "HEAD"]);
    const [sha, name] = out.stdout.trim().split("\n");
    if (out.code !== 0 || sha === undefined || !isFullSha(sha)) {
      if (/unknown revision|ambiguous argument 'HEAD/.test(out.stderr)) {
        throw new GitError("ref_not_found", "the repository has no commits");
      }
      throw gitFailure("rev-parse", url, out.stderr);
    }
    const branch = name?.startsWith("refs/heads/") ? name.slice("refs/heads/".length) : null;
    return { sha: sha.toLowerCase(), branch, tag: null, ref: null };
  }
  const name = request.name;
  const ref = request.kind === "ref" ? name : null;
  const verify = async (rev: string) => {
    const out = await git(["rev-parse", "--verify", "--end-of-options", `${rev}^{commit}`]);
    const sha = out.stdout.trim().toLowerCase();
    if (out.code === 0 && isFullSha(sha)) return { sha, stderr: out.stderr };
    if (/not a git repository|No such file or directory/i.test(out.stderr)) {
      throw gitFailure("rev-parse", url, out.stderr);
    }
    return { sha: null, stderr: out.stderr };
  };
  if (!(request.kind === "ref" && isFullSha(name))) {
    const branch = await verify(`refs/heads/${name}`);
    if (branch.sha) return { sha: branch.sha, branch: name, tag: null, ref };
    const tag = await verify(`refs/tags/${name}`);
    if (tag.sha) return { sha: tag.sha, branch: null, tag: name, ref };
    if (request.kind !== "ref" || !looksLikeSha(name)) {
      throw new GitError(
        "ref_not_found",
        `${request.kind} '${name}' not found`,
        "Check the name; `git ls-remote <url>` lists branches and tags",
      );
    }
  }
  const found = await verify(name.toLowerCase());
  if (found.sha === null || !found.sha.startsWith(name.toLowerCase())) {
    const ambiguous = /ambiguous/i.test(found.stderr);
    throw new GitError(
      "ref_not_found",
      ambiguous ? `commit '${name}' is ambiguous` : `ref or commit '${name}' not found`,
      ambiguous ? "Give more characters of the commit SHA" : undefined,
    );
  }
  return { sha: found.sha, branch: null, tag: null, ref: name };
}

export interface TreeEntry {
  mode: string;
  oid: string;
  /** Repository-relative, `/`-separated, checked. */
  path: string;
}

/** Parses `ls-tree -r -z` output, refusing any path a checkout would refuse. */
export function parseTree(output: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of output.split("\0")) {
    if (record === "") continue;
    const match = /^(\d{6}) (blob|commit) ([0-9a-f]{40}|[0-9a-f]{64})\t(.+)$/s.exec(record);
    if (!match) {
      throw new GitError("other", `unexpected git ls-tree output: ${record.slice(0, 80)}`);
    }
    const [, mode, , oid, path] = match;
    if (!isSafeTreePath(path!)) {
      throw new SkillError(
        "invalid_source",
        `The repository contains an unsafe path: ${JSON.stringify(path)}`,
      );
    }
    entries.push({ mode: mode!, oid: oid!, path: path! });
  }
  return entries;
}

/** No empty, `.`, `..` or `.git` component and no control characters (git's verify_path). */
export function isSafeTreePath(path: string): boolean {
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f]/.test(path)) return false;
  return path.split("/").every((part) =>
    part !== "" && part !== "." && part !== ".." && part.toLowerCase() !== ".git"
  );
}

/** Writes the entries into `dest` (created): files and directories first, symlinks last. */
async function materialize(
  gitDir: string,
  entries: readonly TreeEntry[],
  dest: string,
  options: GitOptions,
): Promise<void> {
  await Deno.mkdir(dest, { recursive: true });
  const made = new Set<string>([dest]);
  const ensureParent = async (path: string) => {
    const parent = dirname(path);
    if (made.has(parent)) return;
    await Deno.mkdir(parent, { recursive: true });
    made.add(parent);
  };
  /** The blobs to read, each with where it goes (one blob may sit at several paths). */
  const byOid = new Map<string, { mode: string; target: string }[]>();
  for (const entry of entries) {
    const target = join(dest, ...entry.path.split("/"));
    if (entry.mode === "160000") {
      // A submodule is never fetched; a clone leaves an empty directory there too.
      await ensureParent(target);
      await Deno.mkdir(target);
      made.add(target);
      continue;
    }
    if (!["100644", "100755", "120000"].includes(entry.mode)) {
      throw new GitError("other", `unsupported file mode ${entry.mode} for ${entry.path}`);
    }
    const places = byOid.get(entry.oid) ?? [];
    places.push({ mode: entry.mode, target });
    byOid.set(entry.oid, places);
  }
  const links: { linkTo: string; path: string }[] = [];
  await catFileBatch(gitDir, [...byOid.keys()], options, async (oid, bytes) => {
    for (const { mode, target } of byOid.get(oid) ?? []) {
      if (mode === "120000") {
        links.push({ linkTo: new TextDecoder().decode(bytes), path: target });
        continue;
      }
      await ensureParent(target);
      await Deno.writeFile(target, bytes, {
        createNew: true,
        mode: mode === "100755" ? 0o755 : 0o644,
      });
    }
  });
  for (const link of links) {
    await ensureParent(link.path);
    await Deno.symlink(link.linkTo, link.path);
  }
}

/**
 * Streams objects out of `git cat-file --batch`: `<oid> <type> <size>\n<bytes>\n` each.
 * Objects arrive whole, one at a time; `onObject` is awaited before the next one is read.
 */
async function catFileBatch(
  gitDir: string,
  oids: readonly string[],
  options: GitOptions,
  onObject: (oid: string, bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  if (oids.length === 0) return;
  const child = new Deno.Command("git", {
    args: [...gitConfigArgs("file"), `--git-dir=${gitDir}`, "cat-file", "--batch"],
    env: gitEnv(options.env, "file"),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  };
  const timeoutMs = options.timeoutMs ?? gitTimeoutMs(options.env);
  const cancelTimer = afterDelay(timeoutMs, () => {
    timedOut = true;
    kill();
  });
  options.signal?.addEventListener("abort", kill);
  const stderr = collect(child.stderr);
  const writer = child.stdin.getWriter();
  const fed = writer.write(new TextEncoder().encode(oids.join("\n") + "\n"))
    .then(() => writer.close()).catch(() => {});
  let failure: unknown;
  try {
    const reader = new BatchReader(child.stdout.getReader());
    for (let n = 0; n < oids.length; n++) {
      const header = await reader.line();
      const match = header === null ? null : /^(\S+) (\S+) (\d+)$/.exec(header);
      if (match === null) {
        throw new GitError("other", `git cat-file failed: ${header ?? "no output"}`);
      }
      const bytes = await reader.bytes(Number(match[3]) + 1); // + the trailing newline
      await onObject(match[1]!, bytes.subarray(0, bytes.length - 1));
    }
    await reader.cancel();
  } catch (error) {
    failure = error;
    kill();
  } finally {
    cancelTimer();
    options.signal?.removeEventListener("abort", kill);
  }
  await fed;
  const status = await child.status;
  await stderr.done;
  options.signal?.throwIfAborted();
  if (timedOut) throw gitTimeout("cat-file", timeoutMs);
  if (failure !== undefined) throw failure;
  if (status.code !== 0) {
    throw new GitError(
      "other",
      `git cat-file failed: ${stderr.text().trim() || `exit ${status.code}`}`,
    );
  }
}

/** Buffered reads of lines and exact byte counts from a byte stream. */
class BatchReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer: Uint8Array = new Uint8Array(0);

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
  }

  async #fill(): Promise<boolean> {
    const { value, done } = await this.#reader.read();
    if (done) return false;
    const merged = new Uint8Array(this.#buffer.length + value.length);
    merged.set(this.#buffer);
    merged.set(value, this.#buffer.length);
    this.#buffer = merged;
    return true;
  }

  async line(): Promise<string | null> {
    let newline: number;
    while ((newline = this.#buffer.indexOf(0x0a)) < 0) {
      if (!(await this.#fill())) return null;
    }
    const text = new TextDecoder().decode(this.#buffer.subarray(0, newline));
    this.#buffer = this.#buffer.subarray(newline + 1);
    return text;
  }

  async bytes(count: number): Promise<Uint8Array> {
    if (this.#buffer.length < count) {
      // Read straight into one buffer of the right size instead of merging chunk by chunk.
      const out = new Uint8Array(count);
      out.set(this.#buffer);
      let filled = this.#buffer.length;
      this.#buffer = new Uint8Array(0);
      while (filled < count) {
        const { value, done } = await this.#reader.read();
        if (done) throw new GitError("other", "git cat-file output ended early");
        const take = Math.min(value.length, count - filled);
        out.set(value.subarray(0, take), filled);
        filled += take;
        if (take < value.length) this.#buffer = value.subarray(take);
      }
      return out;
    }
    const out = this.#buffer.subarray(0, count);
    this.#buffer = this.#buffer.subarray(count);
    return out;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}
