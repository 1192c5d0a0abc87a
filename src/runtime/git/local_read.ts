/**
 * Writing a commit's files from git objects: straight out of a repository on this machine
 * (`file://` URLs and bare repository paths, not cloned at all: `readLocalRepository`), and
 * from a clone fetch.ts made without checkout, which is then a repository on this machine too
 * (`readRemoteRepository`). This is the top of the git stack (runtime/git/mod.ts): it imports
 * fetch.ts and command.ts, and neither imports it. One `git cat-file --batch` process answers
 * every question: the ref's commit, the trees (walked level by level) and then the blobs, which
 * stream into files. A clone would spawn upload-pack, pack-objects and index-pack, write a
 * pack and then check it out; this does a fraction of the work and writes only the files.
 *
 * The repository is untrusted: only plumbing runs in it (no hooks, filters or checkout),
 * with the same hardened configuration and environment as any other git call, and no lazy
 * fetch from a promisor remote. Every tree path is checked before anything is written;
 * symlinks are created last, so no write can pass through one. Ref resolution follows
 * `git clone --branch`: a branch, then a tag, then (for --ref) a commit.
 */

import { dirname, join } from "../os/paths.ts";
import {
  isFullSha,
  looksLikeSha,
  type RefRequest,
  type Transport,
  validateRef,
} from "../../core/sources/sources.ts";
import { SkillError } from "../../core/errors.ts";
import { MAX_SKILL_FILE_BYTES, tooLargeMessage } from "../../core/manifest/limits.ts";
import {
  collect,
  type Collector,
  type FetchedCommit,
  gitConfigArgs,
  gitEnv,
  GitError,
  gitFailure,
  type GitOptions,
  gitTimeout,
  gitTimeoutMs,
  runGit,
} from "./command.ts";
import { type Clone, cloneRepository, remoteRefs } from "./fetch.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import { afterDelay } from "../os/timer.ts";

/** More paths than this in one commit is refused (a tree reusing subtrees can multiply). */
export const MAX_TREE_ENTRIES = 100_000;

/**
 * Clones `request` of a remote (fetch.ts) into `dest` and writes the commit's files there:
 * a remote repository's files, read like a local one's.
 */
export async function readRemoteRepository(
  url: string,
  transport: Transport,
  request: RefRequest,
  dest: string,
  options: GitOptions,
): Promise<FetchedCommit> {
  try {
    return await readClone(await cloneRepository(url, transport, request, dest, options), options);
  } catch (error) {
    // A shallow clone of a HEAD that names no commit fetches nothing: the remote's branches,
    // asked for only then, tell an empty repository from a HEAD no one pushed.
    if (!(error instanceof HeadWithoutCommit) || request.kind !== "default") throw error;
    const refs = await remoteRefs(url, transport, options).catch(() => new Map<string, string>());
    const branches = [...refs.keys()].filter((name) => name.startsWith("refs/heads/"));
    throw new HeadWithoutCommit(error.headBranch, branches);
  }
}

/** Writes the files of the commit a clone holds into the clone's directory. */
async function readClone(clone: Clone, options: GitOptions): Promise<FetchedCommit> {
  // Our clones leave out only blobs over the size limit: a missing blob is one of those.
  const read = await readLocalRepository(
    clone.path,
    clone.url,
    clone.read,
    clone.path,
    options,
    true,
  );
  return {
    sha: read.sha,
    branch: read.branch,
    tag: read.branch === null ? clone.tagWhenDetached : null,
    ref: clone.ref,
  };
}

/** The git directory of a repository path: `<path>/.git` for a work tree, else the path. */
function gitDirOf(path: string): string {
  return lstatSyncOrNull(join(path, ".git"))?.isDirectory ? join(path, ".git") : path;
}

/**
 * Writes the files of `request`'s commit of the repository at `path` into `dest`.
 * `sizeFiltered`: the repository is our clone, made without blobs over the size limit.
 */
export async function readLocalRepository(
  path: string,
  url: string,
  request: RefRequest,
  dest: string,
  options: GitOptions,
  sizeFiltered = false,
): Promise<FetchedCommit> {
  const gitDir = gitDirOf(path);
  const objects = new CatFile(gitDir, url, options);
  try {
    const commit = await resolveCommit(objects, gitDir, url, request, options);
    const entries = await listTree(objects, commit.tree);
    await materialize(objects, entries, dest, sizeFiltered);
    await objects.close();
    return { sha: commit.sha, branch: commit.branch, tag: commit.tag, ref: commit.ref };
  } finally {
    await objects.dispose();
  }
}

interface ResolvedCommit extends FetchedCommit {
  /** The commit's root tree. */
  tree: string;
}

async function resolveCommit(
  objects: CatFile,
  gitDir: string,
  url: string,
  request: RefRequest,
  options: GitOptions,
): Promise<ResolvedCommit> {
  const commitOf = async (rev: string) => {
    const found = await objects.lookup(`${rev}^{commit}`);
    return typeof found === "string" ? found : { sha: found.oid, tree: treeOfCommit(found) };
  };
  if (request.kind === "default") {
    const head = readHead(gitDir) ?? await headViaRevParse(gitDir, url, options);
    const found = await commitOf(head.rev);
    if (typeof found === "string") {
      throw new HeadWithoutCommit(head.branch, await localBranches(gitDir, options));
    }
    return { ...found, branch: head.branch, tag: null, ref: null };
  }
  const name = request.name;
  const ref = request.kind === "ref" ? name : null;
  if (!(request.kind === "ref" && isFullSha(name))) {
    const branch = await commitOf(`refs/heads/${name}`);
    if (typeof branch !== "string") return { ...branch, branch: name, tag: null, ref };
    const tag = await commitOf(`refs/tags/${name}`);
    if (typeof tag !== "string") return { ...tag, branch: null, tag: name, ref };
    if (request.kind !== "ref" || !looksLikeSha(name)) {
      throw new GitError(
        "ref_not_found",
        `${request.kind} '${name}' not found`,
        "Check the name; `git ls-remote <url>` lists branches and tags",
      );
    }
  }
  const found = await commitOf(name.toLowerCase());
  if (typeof found === "string" || !found.sha.startsWith(name.toLowerCase())) {
    const ambiguous = found === "ambiguous";
    throw new GitError(
      "ref_not_found",
      ambiguous ? `commit '${name}' is ambiguous` : `ref or commit '${name}' not found`,
      ambiguous ? "Give more characters of the commit SHA" : undefined,
    );
  }
  return { ...found, branch: null, tag: null, ref: name };
}

/**
 * HEAD names no commit. Either the repository is empty, or its HEAD names a branch no one
 * pushed: `git init --bare` points HEAD at `master` and a team pushes `main` to it, which
 * `git clone` only warns about, leaving nothing checked out. The branches it has are named,
 * `main` or `master` first, so the user can pick one.
 */
class HeadWithoutCommit extends GitError {
  readonly headBranch: string | null;

  /** `branches`: full ref names (`refs/heads/main`). */
  constructor(headBranch: string | null, branches: readonly string[]) {
    const names = branches.map((ref) => ref.slice("refs/heads/".length))
      .filter((name) => {
        try {
          validateRef(name);
          return true;
        } catch {
          return false; // not a name anyone could pass to --branch
        }
      })
      .sort((a, b) =>
        Number(b === "main" || b === "master") - Number(a === "main" || a === "master")
      );
    const shown = names.slice(0, 5).join(", ") +
      (names.length > 5 ? `, and ${names.length - 5} more` : "");
    const head = headBranch === null
      ? "its HEAD names no commit"
      : `its HEAD names the branch '${headBranch}', which has no commits`;
    super(
      "ref_not_found",
      names.length === 0 ? "the repository has no commits" : `${head}; its branches: ${shown}`,
      names.length === 0 ? undefined : `Name the branch to install: --branch ${names[0]}`,
    );
    this.headBranch = headBranch;
  }
}

/** A repository's own branches (full ref names), asked only when its HEAD names no commit. */
async function localBranches(gitDir: string, options: GitOptions): Promise<string[]> {
  const out = await runGit(
    [
      ...gitConfigArgs("file"),
      `--git-dir=${gitDir}`,
      "for-each-ref",
      "--count=100",
      "--format=%(refname)",
      "refs/heads/",
    ],
    "file",
    options,
  );
  return out.code === 0 ? out.stdout.split("\n").filter((line) => line !== "") : [];
}

interface Head {
  /** What to resolve: `refs/heads/<branch>` or a commit SHA. */
  rev: string;
  branch: string | null;
}

/**
 * HEAD read from its file, as the files ref backend stores it: `ref: refs/heads/<name>` or
 * a detached SHA. Anything else (reftable, a symlink, an odd ref) returns null, and git
 * itself is asked.
 */
function readHead(gitDir: string): Head | null {
  const path = join(gitDir, "HEAD");
  const info = lstatSyncOrNull(path);
  if (!info?.isFile || info.size > 1024) return null;
  const text = Deno.readTextFileSync(path).trim();
  if (isFullSha(text)) return { rev: text.toLowerCase(), branch: null };
  const match = /^ref: refs\/heads\/(.+)$/.exec(text);
  if (match === null) return null;
  try {
    validateRef(match[1]!);
  } catch {
    return null;
  }
  return { rev: `refs/heads/${match[1]}`, branch: match[1]! };
}

async function headViaRevParse(gitDir: string, url: string, options: GitOptions): Promise<Head> {
  const out = await runGit(
    [
      ...gitConfigArgs("file"),
      `--git-dir=${gitDir}`,
      "rev-parse",
      "HEAD^{commit}",
      "--symbolic-full-name",
      "HEAD",
    ],
    "file",
    options,
  );
  const [sha, name] = out.stdout.trim().split("\n");
  if (out.code !== 0 || sha === undefined || !isFullSha(sha)) {
    if (/unknown revision|ambiguous argument 'HEAD/.test(out.stderr)) {
      throw new HeadWithoutCommit(null, await localBranches(gitDir, options));
    }
    throw gitFailure("rev-parse", url, out.stderr);
  }
  const branch = name?.startsWith("refs/heads/") ? name.slice("refs/heads/".length) : null;
  return { rev: sha.toLowerCase(), branch };
}

function treeOfCommit(commit: GitObject): string {
  const match = /^tree ([0-9a-f]{40}|[0-9a-f]{64})\n/.exec(
    new TextDecoder().decode(commit.bytes.subarray(0, 80)),
  );
  if (match === null) throw new GitError("other", `commit ${commit.oid} has no tree`);
  return match[1]!;
}

interface TreeEntry {
  /** Canonical mode, as `ls-tree` prints it: 040000, 100644, 100755, 120000 or 160000. */
  mode: string;
  oid: string;
  /** Repository-relative, `/`-separated, checked. */
  path: string;
}

/**
 * Parses one binary tree object (`<mode> <name>\0<raw oid>` records) of the directory at
 * `prefix` ("" for the root), refusing any name a checkout would refuse.
 */
export function parseTreeObject(bytes: Uint8Array, prefix: string, oidBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const decoder = new TextDecoder();
  let at = 0;
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at);
    const nul = space < 0 ? -1 : bytes.indexOf(0, space);
    if (nul < 0 || nul + 1 + oidBytes > bytes.length) {
      throw new GitError("other", `malformed git tree object under '${prefix || "."}'`);
    }
    const mode = canonicalMode(decoder.decode(bytes.subarray(at, space)));
    const name = decoder.decode(bytes.subarray(space + 1, nul));
    const path = prefix === "" ? name : `${prefix}/${name}`;
    if (name.includes("/") || !isSafeTreePath(path)) {
      throw new SkillError(
        "invalid_source",
        `The repository contains an unsafe path: ${JSON.stringify(path)}`,
      );
    }
    if (mode === null) throw new GitError("other", `unsupported file mode for ${path}`);
    let oid = "";
    for (const byte of bytes.subarray(nul + 1, nul + 1 + oidBytes)) {
      oid += byte.toString(16).padStart(2, "0");
    }
    entries.push({ mode, oid, path });
    at = nul + 1 + oidBytes;
  }
  return entries;
}

/** git's canon_mode: any regular file is 100644 or 100755 by its owner execute bit. */
function canonicalMode(octal: string): string | null {
  if (!/^[0-7]{5,6}$/.test(octal)) return null;
  const mode = parseInt(octal, 8);
  switch (mode & 0o170000) {
    case 0o040000:
      return "040000";
    case 0o100000:
      return mode & 0o100 ? "100755" : "100644";
    case 0o120000:
      return "120000";
    case 0o160000:
      return "160000";
    default:
      return null;
  }
}

/** No empty, `.`, `..` or `.git` component and no control characters (git's verify_path). */
export function isSafeTreePath(path: string): boolean {
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f]/.test(path)) return false;
  return path.split("/").every((part) =>
    part !== "" && part !== "." && part !== ".." && part.toLowerCase() !== ".git"
  );
}

/** Every non-tree entry under `root`, walking one tree level per round trip. */
async function listTree(objects: CatFile, root: string): Promise<TreeEntry[]> {
  const files: TreeEntry[] = [];
  let level = [{ oid: root, path: "" }];
  let count = 0;
  while (level.length > 0) {
    const next: { oid: string; path: string }[] = [];
    let i = 0;
    await objects.each(level.map((t) => t.oid), objectTooLarge, (oid, found) => {
      const prefix = level[i++]!.path;
      if (typeof found === "string" || found.type !== "tree") {
        throw new GitError("other", `tree ${oid} of '${prefix || "."}' cannot be read`);
      }
      for (const entry of parseTreeObject(found.bytes, prefix, oid.length / 2)) {
        if (++count > MAX_TREE_ENTRIES) {
          throw new SkillError(
            "invalid_source",
            `The repository has more than ${MAX_TREE_ENTRIES} files and directories`,
          );
        }
        if (entry.mode === "040000") next.push({ oid: entry.oid, path: entry.path });
        else files.push(entry);
      }
    });
    level = next;
  }
  return files;
}

/** Writes the entries into `dest` (created): files and directories first, symlinks last. */
async function materialize(
  objects: CatFile,
  entries: readonly TreeEntry[],
  dest: string,
  sizeFiltered: boolean,
): Promise<void> {
  Deno.mkdirSync(dest, { recursive: true });
  const made = new Set<string>([dest]);
  const ensureParent = (path: string) => {
    const parent = dirname(path);
    if (made.has(parent)) return;
    Deno.mkdirSync(parent, { recursive: true });
    made.add(parent);
  };
  /** The blobs to read, each with where it goes (one blob may sit at several paths). */
  const byOid = new Map<string, { mode: string; target: string; path: string }[]>();
  for (const entry of entries) {
    const target = join(dest, ...entry.path.split("/"));
    if (entry.mode === "160000") {
      // A submodule is never fetched; a clone leaves an empty directory there too.
      ensureParent(target);
      Deno.mkdirSync(target);
      made.add(target);
      continue;
    }
    const places = byOid.get(entry.oid) ?? [];
    places.push({ mode: entry.mode, target, path: entry.path });
    byOid.set(entry.oid, places);
  }
  const links: { linkTo: string; path: string }[] = [];
  const pathOf = (oid: string) => byOid.get(oid)?.[0]?.path ?? oid;
  const tooLarge = (oid: string, size: number) =>
    new SkillError("invalid_source", `The repository's file ${tooLargeMessage(pathOf(oid), size)}`);
  await objects.each([...byOid.keys()], tooLarge, (oid, found) => {
    if (typeof found === "string" || found.type !== "blob") {
      throw new GitError("other", `blob ${oid} cannot be read`);
    }
    for (const { mode, target } of byOid.get(oid) ?? []) {
      if (mode === "120000") {
        links.push({ linkTo: new TextDecoder().decode(found.bytes), path: target });
        continue;
      }
      ensureParent(target);
      Deno.writeFileSync(target, found.bytes, {
        createNew: true,
        mode: mode === "100755" ? 0o755 : 0o644,
      });
    }
  }).catch((error) => {
    if (!(error instanceof OmittedObject)) throw error;
    const path = pathOf(error.oid);
    throw new SkillError(
      "invalid_source",
      sizeFiltered
        // Our clones leave out only blobs over the limit (command.ts).
        ? `The repository's file ${path} is over ${MAX_SKILL_FILE_BYTES} bytes (100 MiB) and was not downloaded; larger files are refused`
        : `The repository's file ${path} is missing (a partial clone without it); install from the repository it was cloned from`,
    );
  });
  for (const link of links) {
    ensureParent(link.path);
    Deno.symlinkSync(link.linkTo, link.path);
  }
}

function objectTooLarge(name: string, size: number): Error {
  return new SkillError("invalid_source", `The repository's object ${tooLargeMessage(name, size)}`);
}

/** An object a filtered clone left out (a blob over the size limit). */
class OmittedObject extends Error {
  constructor(readonly oid: string) {
    super(`git object ${oid} was not downloaded`);
  }
}

interface GitObject {
  oid: string;
  type: string;
  bytes: Uint8Array;
}

/** What `cat-file --batch` says of a name: the object, or why there is none. */
type Answer = GitObject | "missing" | "ambiguous";

/**
 * One `git cat-file --batch` process: names in on stdin, `<oid> <type> <size>\n<bytes>\n`
 * (or `<name> missing`) out, in order. Killed on timeout or abort; `dispose` always reaps it.
 */
class CatFile {
  readonly #url: string;
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: BatchReader;
  readonly #stderr: Collector;
  readonly #signal: AbortSignal | undefined;
  readonly #timeoutMs: number;
  readonly #cancelTimer: () => void;
  #timedOut = false;

  constructor(gitDir: string, url: string, options: GitOptions) {
    options.signal?.throwIfAborted();
    this.#url = url;
    this.#signal = options.signal;
    this.#child = new Deno.Command("git", {
      args: [...gitConfigArgs("file"), `--git-dir=${gitDir}`, "cat-file", "--batch"],
      // A partial clone must not fetch what it lacks from its promisor remote.
      env: { ...gitEnv(options.env, "file"), GIT_NO_LAZY_FETCH: "1" },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reader = new BatchReader(this.#child.stdout.getReader());
    this.#stderr = collect(this.#child.stderr);
    this.#timeoutMs = options.timeoutMs ?? gitTimeoutMs(options.env);
    this.#cancelTimer = afterDelay(this.#timeoutMs, () => {
      this.#timedOut = true;
      this.#kill();
    });
    this.#signal?.addEventListener("abort", this.#kill);
  }

  #kill = () => {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already gone */ }
  };

  /**
   * Asks for every name at once; `onAnswer` sees each answer before the next is read. An
   * object over MAX_SKILL_FILE_BYTES is refused (`tooLarge`) before it is read into memory.
   */
  async each(
    names: readonly string[],
    tooLarge: (name: string, size: number) => Error,
    onAnswer: (name: string, answer: Answer) => void,
  ): Promise<void> {
    if (names.length === 0) return;
    // Not awaited before reading: git stops reading names while its output is unread.
    const fed = this.#writer.write(new TextEncoder().encode(names.join("\n") + "\n"))
      .catch(() => {});
    for (const name of names) {
      const header = await this.#reader.line();
      if (header === null) throw await this.#failure();
      if (header === `${name} missing` || header === `${name} ambiguous`) {
        onAnswer(name, header.slice(name.length + 1) as "missing" | "ambiguous");
        continue;
      }
      const match = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z]+) (\d+)$/.exec(header);
      if (match === null) {
        throw new GitError("other", `unexpected git cat-file output: ${header.slice(0, 80)}`);
      }
      const size = Number(match[3]);
      if (size > MAX_SKILL_FILE_BYTES) throw tooLarge(name, size);
      const bytes = await this.#reader.bytes(size + 1); // + the trailing newline
      if (bytes === null) throw await this.#failure();
      onAnswer(name, { oid: match[1]!, type: match[2]!, bytes: bytes.subarray(0, -1) });
    }
    await fed;
  }

  async lookup(name: string): Promise<Answer> {
    let answer: Answer = "missing";
    await this.each([name], objectTooLarge, (_, found) => (answer = found));
    return answer;
  }

  /** Why git stopped answering. */
  async #failure(): Promise<unknown> {
    await this.#child.status;
    await this.#stderr.done;
    if (this.#signal?.aborted) return this.#signal.reason;
    if (this.#timedOut) return gitTimeout("cat-file", this.#timeoutMs);
    const stderr = this.#stderr.text();
    // A partial clone without the object: git dies rather than fetch it lazily.
    const omitted = /could not fetch ([0-9a-f]{40,64}) from promisor remote/.exec(stderr);
    if (omitted !== null) return new OmittedObject(omitted[1]!);
    return gitFailure("cat-file", this.#url, stderr);
  }

  /** Ends the session after the last answer; throws if git failed on the way. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#reader.cancel();
    const status = await this.#child.status;
    await this.#stderr.done;
    this.#signal?.throwIfAborted();
    if (this.#timedOut) throw gitTimeout("cat-file", this.#timeoutMs);
    if (status.code !== 0) throw gitFailure("cat-file", this.#url, this.#stderr.text());
  }

  /** Stops git if it still runs and releases everything; safe after close(). */
  async dispose(): Promise<void> {
    this.#cancelTimer();
    this.#signal?.removeEventListener("abort", this.#kill);
    this.#kill();
    await this.#writer.close().catch(() => {});
    await this.#reader.cancel();
    await this.#child.status;
    await this.#stderr.done;
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
    const { value, done } = await this.#reader.read()
      .catch(() => ({ value: undefined, done: true }));
    if (done || value === undefined) return false;
    const merged = new Uint8Array(this.#buffer.length + value.length);
    merged.set(this.#buffer);
    merged.set(value, this.#buffer.length);
    this.#buffer = merged;
    return true;
  }

  /** The next line without its newline; null at the end of the stream. */
  async line(): Promise<string | null> {
    let newline: number;
    while ((newline = this.#buffer.indexOf(0x0a)) < 0) {
      if (!(await this.#fill())) return null;
    }
    const text = new TextDecoder().decode(this.#buffer.subarray(0, newline));
    this.#buffer = this.#buffer.subarray(newline + 1);
    return text;
  }

  /** Exactly `count` bytes; null when the stream ends first. */
  async bytes(count: number): Promise<Uint8Array | null> {
    if (this.#buffer.length < count) {
      // Read straight into one buffer of the right size instead of merging chunk by chunk.
      const out = new Uint8Array(count);
      out.set(this.#buffer);
      let filled = this.#buffer.length;
      this.#buffer = new Uint8Array(0);
      while (filled < count) {
        const { value, done } = await this.#reader.read().catch(() => ({
          value: undefined,
          done: true,
        }));
        if (done || value === undefined) return null;
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
