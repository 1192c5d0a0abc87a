/**
 * Where a skill comes from: pure parsing of `skills add` sources and ref flags. Anything
 * that could make git do more than fetch a repository is rejected here, before git runs:
 * option-looking URLs and refs, remote helpers (`ext::`), transports other than
 * https/ssh/git/file, control characters and credentials embedded in URLs.
 *
 * Whether the input names a directory on disk, and whether that directory is a repository,
 * is decided by the caller (runtime/lifecycle/resolve_source.ts) and passed in as a flag;
 * this module does no I/O. That caller also gives each parsed source its `kind` once
 * (`ResolvedSource`), which is what everything after it switches on.
 */

import { type PathRules, pathRules } from "../path_rules.ts";

/** file:// URL paths are POSIX-style on every platform. */
const POSIX = pathRules("posix", () => "/");
import { SkillError } from "../errors.ts";
import { canonicalSkillName, quoteName, skillNameProblem } from "../names.ts";
import { parseOciReference } from "./oci_reference.ts";
import { isLoopbackHost, type ParsedWebSource, webSource, webTargetOf } from "./web_source.ts";
import { npmSource, type ParsedNpmSource, parseRevision } from "./npm_source.ts";

export type Transport = "https" | "ssh" | "git" | "file";

/** A git repository as the string names it (URL, shorthand, or a bare repository's path). */
export interface ParsedGitSource {
  type: "git";
  /** What git clones: never carries credentials, never starts with `-`. */
  url: string;
  transport: Transport;
  /** Path inside the repository where discovery starts ("" for the root). */
  subpath: string;
  /** Canonical skill name selected by `owner/repo@skill`. */
  skill: string | undefined;
  /** Ref selected by `#ref`. */
  ref: string | undefined;
  /**
   * A browser URL's `<ref>/<path>` (after `/tree/` or `/blob/`): read with its first segment
   * as the ref, and split again at a longer ref when the remote has no such ref.
   */
  browserPath?: BrowserPath | undefined;
}

/** The segments after `/tree/` or `/blob/` in a browser URL: a ref, then a path. */
interface BrowserPath {
  kind: "tree" | "blob";
  segments: readonly string[];
}

/** A directory the caller found on disk for the string. */
export interface ParsedLocalSource {
  type: "local";
  /** Absolute path of the directory. */
  path: string;
  subpath: "";
  skill: undefined;
  ref: undefined;
}

/** A skill (or an index of skills) published to an OCI registry (`skills publish`). */
export interface ParsedOciSource {
  type: "oci";
  /** `oci://registry/repository`, without tag or digest: where the artifact lives. */
  url: string;
  registry: string;
  repository: string;
  /** The skill's folder in a pulled index ("" for the whole artifact). */
  subpath: string;
  skill: undefined;
  /** The tag (`:1.0`) or manifest digest (`@sha256:…`) the reference names. */
  ref: string | undefined;
}

/** What a source string says, before anything decides how it is fetched. */
export type ParsedSource =
  | ParsedGitSource
  | ParsedLocalSource
  | ParsedOciSource
  | ParsedWebSource
  | ParsedNpmSource;

/**
 * Where skills come from, resolved once (runtime/lifecycle/resolve_source.ts) into how they
 * are fetched: the fetcher switches on `kind`, and nothing after the resolution parses the
 * string or decides the kind again. `type` stays what registry and lockfile records call a
 * source: a repository on this machine is a git source there too. Registry kinds to come
 * join this union with their own `kind`.
 */
export type ResolvedSource =
  | LocalFolderSource
  | LocalRepositorySource
  | RemoteGitSource
  | OciSource
  | WellKnownSource
  | WebFileSource
  | NpmSource;

/** A directory on this machine: its files are copied. */
export interface LocalFolderSource extends ParsedLocalSource {
  kind: "local-folder";
}

/** A git repository on this machine (a `file:///` URL, a bare repository's path): read in place. */
interface LocalRepositorySource extends ParsedGitSource {
  kind: "local-repository";
  transport: "file";
  /** The repository's path on this machine. */
  path: string;
}

/** A repository git clones over its transport (file:// too where it cannot be read in place). */
interface RemoteGitSource extends ParsedGitSource {
  kind: "remote-git";
}

/** An artifact in an OCI registry: pulled, every blob and file checked. */
export interface OciSource extends ParsedOciSource {
  kind: "oci";
}

/** A website whose well-known index lists skills: each entry downloaded and its digest checked. */
export interface WellKnownSource extends ParsedWebSource {
  kind: "well-known";
}

/** One file on a website, a SKILL.md or an archive, downloaded within limits. */
export interface WebFileSource extends ParsedWebSource {
  kind: "web-file";
  target: "skill-md" | "archive";
}

/**
 * A package of an npm registry: its document read through the user's registry, its tarball
 * checked against `dist.integrity`; or, from `node_modules`, the package installed there.
 */
export interface NpmSource extends ParsedNpmSource {
  kind: "npm";
  /** The package's folder in the project's `node_modules` (read from disk, no network). */
  installedDir?: string;
  /** The integrity npm's hidden lockfile records for that installed package, if any. */
  installedIntegrity?: string;
}

/** Both kinds that git reads: records call either a git source. */
export type GitSource = LocalRepositorySource | RemoteGitSource;

/** Where a source's files come from: the URL (git, OCI) or the directory. */
export function sourceLocation(source: ParsedSource): string {
  return source.type === "local" ? source.path : source.url;
}

/**
 * Whether a parsed https URL could be a website rather than a repository: not GitHub's or
 * GitLab's, no `.git`, no ref. The resolver asks the site for its index (and keeps the git
 * reading when there is none).
 */
export function mayBeWebsite(source: ParsedSource): source is ParsedGitSource {
  if (source.type !== "git" || source.transport !== "https" || source.ref !== undefined) {
    return false;
  }
  if (source.subpath !== "" || /\.git$/i.test(source.url)) return false;
  const host = new URL(source.url).hostname.toLowerCase();
  return host !== "github.com" && host !== "gitlab.com";
}

/** An `oci://registry/repository[:tag|@sha256:…]` source; the reference is checked here. */
export function ociSource(input: string): ParsedOciSource {
  const reference = parseOciReference(input);
  return {
    type: "oci",
    url: `oci://${reference.registry}/${reference.repository}`,
    registry: reference.registry,
    repository: reference.repository,
    subpath: "",
    skill: undefined,
    ref: reference.digest ?? reference.tag,
  };
}

interface ParseSourceOptions {
  /** The caller found a directory with this absolute path for the input. */
  localDirectory?: string | undefined;
  /** That directory is a bare git repository: clone it (file://) instead of copying. */
  localIsBareRepository?: boolean;
  /** The platform's path rules for `localDirectory` (default: POSIX). */
  paths?: Pick<PathRules, "isAbsolute" | "normalize">;
}

/** What to check out: the default branch, a named branch or tag, or any ref / commit. */
export type RefRequest =
  | { kind: "default" }
  | { kind: "branch"; name: string }
  | { kind: "tag"; name: string }
  | { kind: "ref"; name: string };

type NamedRef = Exclude<RefRequest, { kind: "default" }>;

const MAX_SOURCE_LENGTH = 2048;
const MAX_REF_LENGTH = 255;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const GITHUB_OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const GITHUB_REPO = /^[A-Za-z0-9._-]{1,100}$/;
const REPO_HINT =
  "Give the repository (https://github.com/<owner>/<repo>, owner/repo) or a folder in it (…/tree/<ref>/<path>)";
const HOST = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$/;
const SCP_LIKE = /^(?:([^@/:]+)@)?([^@/:]+):(?!\/\/)(.*)$/;
const HEX_SHA = /^[0-9a-f]{4,64}$/i;

function invalid(input: string, reason: string, hint?: string): SkillError {
  return new SkillError(
    "invalid_source",
    `Invalid source '${quoteName(input)}': ${reason}`,
    hint === undefined ? {} : { hint },
  );
}

const CREDENTIAL_HINT = "Remove the credentials from the URL and let git supply them: " +
  "`git config --global credential.helper store` (or your platform's helper, e.g. " +
  "`osxkeychain`, `manager`, `libsecret`), or use an ssh URL with an ssh key";

/** True for a full commit SHA (sha1 or sha256 object name). */
export function isFullSha(value: string): boolean {
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(value);
}

/** True when a ref could be an (abbreviated) commit SHA. */
export function looksLikeSha(value: string): boolean {
  return HEX_SHA.test(value);
}

/** Validates a branch, tag or commit name the way `git check-ref-format` would; throws. */
export function validateRef(ref: string, what = "ref"): string {
  const bad = (reason: string) =>
    new SkillError("invalid_source", `Invalid ${what} '${quoteName(ref)}': ${reason}`);
  if (ref.length === 0) throw bad("it is empty");
  if (ref.length > MAX_REF_LENGTH) throw bad(`it is longer than ${MAX_REF_LENGTH} characters`);
  if (CONTROL.test(ref)) throw bad("it contains control characters");
  if (ref.startsWith("-")) throw bad("it starts with '-'");
  if (/[\s~^:?*[\\]/.test(ref)) throw bad("it contains a space or one of ~ ^ : ? * [ \\");
  if (ref.includes("..") || ref.includes("@{") || ref === "@") {
    throw bad("it contains '..' or '@{'");
  }
  if (ref.startsWith("/") || ref.endsWith("/") || ref.includes("//")) {
    throw bad("it has an empty path component");
  }
  if (ref.endsWith(".") || ref.split("/").some((c) => c.startsWith(".") || c.endsWith(".lock"))) {
    throw bad("a component starts with '.' or ends with '.lock'");
  }
  return ref;
}

/** Normalises a path inside a repository; rejects traversal and absolute paths. */
export function validateSubpath(input: string, subpath: string): string {
  if (subpath === "") return "";
  if (CONTROL.test(subpath) || subpath.includes("\\")) {
    throw invalid(input, "the path inside the repository contains control characters or '\\'");
  }
  const parts = subpath.split("/").filter((p) => p !== "");
  if (subpath.startsWith("/") && parts.length === 0) return "";
  if (parts.some((p) => p === "." || p === ".." || p === ".git")) {
    throw invalid(input, "the path inside the repository may not contain '.', '..' or '.git'");
  }
  return parts.join("/");
}

/** Parses a source as typed by the user. Throws `invalid_source` with a hint. */
export function parseSource(input: string, options: ParseSourceOptions = {}): ParsedSource {
  if (input.length === 0) throw invalid(input, "it is empty");
  if (input.length > MAX_SOURCE_LENGTH) {
    throw invalid(input, `it is longer than ${MAX_SOURCE_LENGTH} characters`);
  }
  if (CONTROL.test(input)) throw invalid(input, "it contains control characters");
  if (input.startsWith("-")) {
    throw invalid(input, "it starts with '-' (it would be read as an option by git)");
  }

  if (options.localDirectory !== undefined) {
    const paths = options.paths ?? POSIX;
    const path = paths.normalize(options.localDirectory);
    if (!paths.isAbsolute(path)) throw invalid(input, "the local directory path is not absolute");
    if (options.localIsBareRepository) {
      return gitSource(`file://${path}`, "file", "", undefined, undefined);
    }
    return { type: "local", path, subpath: "", skill: undefined, ref: undefined };
  }

  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(input)) {
    const transport = input.slice(0, input.indexOf("::"));
    throw invalid(
      input,
      `the '${quoteName(transport)}::' remote helper transport is not allowed`,
      "Use an https://, ssh://, git:// or file:// URL",
    );
  }

  if (/^oci:\/\//i.test(input)) return ociSource(input);
  if (/^npm:/i.test(input)) return npmSource(`npm:${input.slice(4)}`);

  input = withoutPageParts(input);
  const hash = input.indexOf("#");
  const base = hash === -1 ? input : input.slice(0, hash);
  const ref = hash === -1 ? undefined : validateRef(input.slice(hash + 1));
  if (base.length === 0) throw invalid(input, "it has a ref but no repository");

  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(base)?.[1]?.toLowerCase();
  if (scheme !== undefined) return parseUrl(input, base, scheme, ref);

  if (looksLikePath(base)) {
    throw invalid(
      input,
      "no such directory",
      "Check the path, or use owner/repo for a GitHub repository",
    );
  }

  const scp = SCP_LIKE.exec(base);
  if (scp !== null) return parseScpLike(input, base, scp, ref);

  return parseShorthand(input, base, ref);
}

function looksLikePath(base: string): boolean {
  return base === "." || base === ".." || base.startsWith("./") || base.startsWith("../") ||
    base.startsWith("/") || base.startsWith("~");
}

function gitSource(
  url: string,
  transport: Transport,
  subpath: string,
  skill: string | undefined,
  ref: string | undefined,
): ParsedGitSource {
  return { type: "git", url, transport, subpath, skill, ref };
}

function parseUrl(
  input: string,
  base: string,
  scheme: string,
  ref: string | undefined,
): ParsedSource {
  const direct = (scheme === "https" || scheme === "http") && ref === undefined &&
    directWebFile(base);
  if (direct || (scheme === "http" && ref === undefined && loopbackUrl(base))) {
    return webSource(base);
  }
  if (scheme === "http") {
    throw invalid(
      input,
      "plain http:// is not allowed (only for a website on a loopback host)",
      "Use the https:// URL",
    );
  }
  if (scheme !== "https" && scheme !== "ssh" && scheme !== "git" && scheme !== "file") {
    throw invalid(
      input,
      `the '${quoteName(scheme)}' transport is not allowed`,
      "Use an https://, ssh://, git:// or file:// URL",
    );
  }
  // `new URL` resolves `..` and `.` (also as %2e): `…/tree/main/../secret` would silently
  // become ref `secret`. A repository URL has no business with dot segments; refuse them.
  const rawPath = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*(\/[^?#]*)?/.exec(base)?.[1] ?? "";
  if (scheme !== "file" && rawPath.split("/").some((s) => /^(?:\.|%2e){1,2}$/i.test(s))) {
    throw invalid(input, "its path contains a '.' or '..' segment");
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw invalid(input, "it is not a valid URL");
  }
  if (url.search !== "") throw invalid(input, "a query string ('?') is not allowed");
  if (url.password !== "" || (url.username !== "" && scheme !== "ssh")) {
    // Never echo the secret: the message shows the URL with its user info masked.
    const masked = input.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^@/]*@/, "$1***@");
    throw invalid(masked, "credentials in the URL are not allowed", CREDENTIAL_HINT);
  }
  const user = decodeURIComponent(url.username);
  if (user.startsWith("-")) throw invalid(input, "the user name starts with '-'");
  const host = url.hostname;
  if (scheme === "file") {
    if (host !== "" && host !== "localhost") {
      throw invalid(input, "a file:// URL must name a local path (file:///path)");
    }
    const path = decodeURIComponent(url.pathname);
    if (CONTROL.test(path)) throw invalid(input, "it contains control characters");
    return gitSource(`file://${POSIX.normalize(path)}`, "file", "", undefined, ref);
  }
  const rawHost = /^[a-z]+:\/\/(?:[^@/]*@)?([^/:]*)/i.exec(base)?.[1] ?? host;
  if (rawHost.startsWith("-") || decodeURIComponent(rawHost).startsWith("-")) {
    throw invalid(input, "the host name starts with '-' (it would be read as an ssh option)");
  }
  if (!HOST.test(host)) throw invalid(input, `'${quoteName(host)}' is not a valid host name`);
  const path = decodeURIComponent(url.pathname);
  if (CONTROL.test(path)) throw invalid(input, "it contains control characters");
  if (path === "/" || path === "") {
    // A site's root names no repository: it may list skills in its well-known index.
    if (scheme === "https" && ref === undefined) return webSource(base);
    throw invalid(input, "it names no repository");
  }

  const transport = scheme as Transport;
  if (scheme === "https" && host.toLowerCase() === "github.com") {
    return parseGitHubPath(input, path, ref) ?? gitSource(base, transport, "", undefined, ref);
  }
  // `url.host` keeps a non-default port (self-hosted GitLab on :8443); `hostname` would drop it.
  if (scheme === "https" && path.includes("/-/")) {
    return parseGitLabPath(input, url.host, path, ref);
  }
  const src = scheme === "https" ? srcPage(url.hostname, path) : undefined;
  if (src !== undefined) return parseSrcPage(input, url.host, src, ref);
  return gitSource(base, transport, "", undefined, ref);
}

/**
 * A `/src/` page: Gitea's, Forgejo's and Codeberg's `/<owner>/<repo>/src/branch/<ref>/…` (also
 * `tag` and `commit`), on any host, and Bitbucket's `/<workspace>/<repo>/src/<ref>/…`: the
 * repository's path and what follows the ref's kind.
 */
function srcPage(host: string, path: string): { repo: string; rest: string[] } | undefined {
  const match = /^(\/[^/]+\/[^/]+?)(?:\.git)?\/src\/(?:branch|tag|commit)\/(.+)$/.exec(path) ??
    (host.toLowerCase() === "bitbucket.org"
      ? /^(\/[^/]+\/[^/]+?)(?:\.git)?\/src\/(.+)$/.exec(path)
      : null);
  if (match === null) return undefined;
  return { repo: match[1]!, rest: match[2]!.split("/").filter((p) => p !== "") };
}

/** A `/src/` page's repository, ref and folder (a SKILL.md's page names its folder). */
function parseSrcPage(
  input: string,
  host: string,
  page: { repo: string; rest: string[] },
  ref: string | undefined,
): ParsedGitSource {
  const kind = /^skill\.md$/i.test(page.rest.at(-1) ?? "") ? "blob" : "tree";
  return browserSource(input, `https://${host}${page.repo}.git`, kind, page.rest, ref);
}

/** A URL whose path names a SKILL.md or an archive (`.zip`, `.tar`, `.tar.gz`, `.tgz`). */
function directWebFile(base: string): boolean {
  try {
    const url = new URL(base);
    // A repository's browser URL of a file (GitHub's, GitLab's `/-/blob/`) is a git source.
    if (url.hostname === "github.com" && /\/(?:tree|blob)\//.test(url.pathname)) return false;
    if (url.pathname.includes("/-/")) return false;
    if (srcPage(url.hostname, url.pathname) !== undefined) return false;
    return webTargetOf(base) !== "site";
  } catch {
    return false;
  }
}

function loopbackUrl(base: string): boolean {
  try {
    return isLoopbackHost(new URL(base).hostname);
  } catch {
    return false;
  }
}

/**
 * The repository `url` at a browser URL's `<ref>/<path>` (`rest`): after `tree` a folder,
 * after `blob` a file (whose folder is meant). A branch name with slashes is read as its
 * first segment at first; `rest` is kept (`browserPath`), and the fetch splits it again at
 * the remote's longer ref (`splitBrowserPath`) when there is no such ref.
 */
function browserSource(
  input: string,
  url: string,
  kind: "tree" | "blob",
  rest: readonly string[],
  ref: string | undefined,
): ParsedGitSource {
  const [treeRef, ...path] = rest;
  if (treeRef === undefined) throw invalid(input, `it names no ref after /${kind}/`);
  if (ref !== undefined) throw invalid(input, `it names a ref twice (/${kind}/<ref> and #ref)`);
  const folder = kind === "blob" ? path.slice(0, -1) : path;
  const at = validateRef(treeRef);
  return {
    ...gitSource(url, "https", validateSubpath(input, folder.join("/")), undefined, at),
    browserPath: { kind, segments: rest },
  };
}

/**
 * A browser path split at the longest of `refs` (branch and tag names) it starts with, on a
 * segment boundary: `feature/x/skills/pdf` with a branch `feature/x` is that branch and
 * `skills/pdf`, as the forge itself reads it. A blob keeps at least its file. Undefined
 * when no ref fits.
 */
export function splitBrowserPath(
  input: string,
  path: BrowserPath,
  refs: Iterable<string>,
): { ref: string; subpath: string } | undefined {
  const joined = path.segments.join("/");
  let best: string | undefined;
  for (const ref of refs) {
    const fits = joined === ref || joined.startsWith(`${ref}/`);
    if (fits && (best === undefined || ref.length > best.length)) best = ref;
  }
  if (best === undefined) return undefined;
  const rest = path.segments.slice(best.split("/").length);
  if (path.kind === "blob" && rest.length === 0) return undefined;
  const folder = path.kind === "blob" ? rest.slice(0, -1) : rest;
  return { ref: validateRef(best), subpath: validateSubpath(input, folder.join("/")) };
}

/** GitLab (any host): `https://host/group/.../repo/-/(tree|blob)/<ref>/<path>`. */
function parseGitLabPath(
  input: string,
  host: string,
  path: string,
  ref: string | undefined,
): ParsedGitSource {
  const marker = path.indexOf("/-/");
  const repoPath = path.slice(0, marker).replace(/\.git$/, "");
  const [kind, ...rest] = path.slice(marker + 3).split("/").filter((p) => p !== "");
  if (repoPath.split("/").filter((p) => p !== "").length < 2) {
    throw invalid(input, "it names no repository before /-/");
  }
  const url = `https://${host}${repoPath}.git`;
  if (kind !== "tree" && kind !== "blob") {
    throw invalid(input, `a GitLab /-/${kind ?? ""} page is not a repository`, REPO_HINT);
  }
  return browserSource(input, url, kind, rest, ref);
}

/** `https://github.com/owner/repo[.git][/(tree|blob)/<ref>/<path>]`. */
function parseGitHubPath(
  input: string,
  path: string,
  ref: string | undefined,
): ParsedGitSource | undefined {
  const parts = path.split("/").filter((p) => p !== "");
  const [owner, repoRaw, kind, ...rest] = parts;
  if (owner !== undefined && repoRaw === undefined) {
    throw invalid(
      input,
      `it names the user or organisation '${quoteName(owner)}', not a repository`,
      REPO_HINT,
    );
  }
  if (owner === undefined || repoRaw === undefined) return undefined;
  const repo = repoRaw.replace(/\.git$/, "");
  if (!GITHUB_OWNER.test(owner) || !GITHUB_REPO.test(repo)) return undefined;
  const url = `https://github.com/${owner}/${repo}.git`;
  if (kind === undefined) return gitSource(url, "https", "", undefined, ref);
  if (kind !== "tree" && kind !== "blob") {
    throw invalid(input, `a GitHub /${kind} page is not a repository`, REPO_HINT);
  }
  return browserSource(input, url, kind, rest, ref);
}

function parseScpLike(
  input: string,
  base: string,
  match: RegExpExecArray,
  ref: string | undefined,
): ParsedSource {
  const [, user, host = "", path = ""] = match;
  if (user !== undefined && user.startsWith("-")) {
    throw invalid(input, "the user name starts with '-'");
  }
  if (host.startsWith("-")) {
    throw invalid(input, "the host name starts with '-' (it would be read as an ssh option)");
  }
  if (!HOST.test(host)) throw invalid(input, `'${quoteName(host)}' is not a valid host name`);
  if (path === "" || path.startsWith("-")) {
    throw invalid(input, "the repository path is empty or starts with '-'");
  }
  return gitSource(base, "ssh", "", undefined, ref);
}

/**
 * What a forge's pages add to a URL copied from the browser and that cannot change what is
 * fetched (the repository's URL is made from its path): GitHub's tab shown and plain view,
 * and GitLab's `ref_type=heads`, which says the ref is a branch, read first anyway. Any other
 * query is refused, `ref_type=tags` too (a tag of a branch's name would not be read).
 */
const PAGE_QUERY: Readonly<Record<string, (value: string) => boolean>> = {
  tab: () => true,
  plain: () => true,
  ref_type: (value) => value === "heads",
};
/** Anchors of those pages (the README, a licence tab, lines of a file): never a ref. */
const PAGE_ANCHOR = /^(?:readme|[\w.-]+-ov-file|L\d+(?:C\d+)?(?:-L?\d+(?:C\d+)?)?)$/;

/**
 * A github.com page URL, or a GitLab `/-/tree/` or `/-/blob/` page on any host, as copied
 * from the browser (`…/skills?tab=readme-ov-file`, `…#readme`, `…/SKILL.md?plain=1#L12`,
 * `…/-/tree/main/pdf?ref_type=heads`) without what the page added; any other query or
 * fragment is left for the parser to refuse or read as `#ref`.
 */
function withoutPageParts(input: string): string {
  const match =
    /^(https:\/\/(?:(?:www\.)?github\.com\/[^?#]*|[^/?#]+\/[^?#]*\/-\/(?:tree|blob)\/[^?#]*))(\?[^#]*)?(#.*)?$/i
      .exec(input);
  if (match === null) return input;
  const [, path, query, fragment] = match;
  const pageQuery = query !== undefined &&
    [...new URLSearchParams(query)].every(([key, value]) =>
      Object.hasOwn(PAGE_QUERY, key) && PAGE_QUERY[key]!(value)
    );
  const pageAnchor = fragment !== undefined && PAGE_ANCHOR.test(fragment.slice(1));
  return `${path}${query === undefined || pageQuery ? "" : query}${
    fragment === undefined || pageAnchor ? "" : fragment
  }`;
}

/** `owner/repo`, `owner/repo/sub/path`, `owner/repo@skill`, each with an optional `#ref`. */
function parseShorthand(input: string, base: string, ref: string | undefined): ParsedSource {
  let spec = base;
  let skill: string | undefined;
  const at = spec.lastIndexOf("@");
  if (at !== -1) {
    const name = spec.slice(at + 1);
    const problem = skillNameProblem(name);
    if (problem !== undefined) throw invalid(input, `the skill name after '@' ${problem}`);
    skill = canonicalSkillName(name);
    spec = spec.slice(0, at);
  }
  const parts = spec.split("/");
  const [owner, repoRaw, ...rest] = parts;
  if (owner === undefined || repoRaw === undefined || repoRaw === "") {
    throw invalid(
      input,
      "it is not a URL, a directory or owner/repo",
      "Use owner/repo (GitHub), an https://, ssh://, git:// or file:// URL, or a directory path",
    );
  }
  const repo = repoRaw.replace(/\.git$/, "");
  if (!GITHUB_OWNER.test(owner)) {
    // `github.com/owner/repo`, pasted without its scheme: an owner never holds a dot, a host
    // does. Not fetched as such (a folder may be named so too): the hint says both ways.
    const host = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/i.test(owner)
      ? `For a URL write https://${quoteName(spec)}; for a folder here, ./${quoteName(spec)}`
      : undefined;
    throw invalid(input, `'${quoteName(owner)}' is not a valid GitHub owner`, host);
  }
  if (!GITHUB_REPO.test(repo) || repo === "." || repo === "..") {
    throw invalid(input, `'${quoteName(repo)}' is not a valid GitHub repository name`);
  }
  const subpath = validateSubpath(input, rest.join("/"));
  return gitSource(`https://github.com/${owner}/${repo}.git`, "https", subpath, skill, ref);
}

export interface RefFlags {
  ref?: string | undefined;
  branch?: string | undefined;
  tag?: string | undefined;
}

/**
 * Combines `--ref/--branch/--tag` with a `#ref` from the source. At most one may be
 * given (the same value twice is fine). Throws `usage` for conflicts.
 */
export function refRequest(flags: RefFlags, fromSource: string | undefined): RefRequest {
  const given: NamedRef[] = [];
  if (flags.ref !== undefined) given.push({ kind: "ref", name: validateRef(flags.ref) });
  if (flags.branch !== undefined) {
    given.push({ kind: "branch", name: validateRef(flags.branch, "branch") });
  }
  if (flags.tag !== undefined) given.push({ kind: "tag", name: validateRef(flags.tag, "tag") });
  if (given.length > 1) {
    throw new SkillError("usage", "Give only one of --ref, --branch and --tag");
  }
  const flag = given[0];
  if (fromSource !== undefined) {
    if (flag !== undefined && flag.name !== fromSource) {
      throw new SkillError(
        "usage",
        `The source names ref '${quoteName(fromSource)}' but --${flag.kind} names '${
          quoteName(flag.name)
        }'`,
      );
    }
    return flag ?? { kind: "ref", name: fromSource };
  }
  return flag ?? { kind: "default" };
}

/** A short human description of a source, e.g. for the confirmation prompt. */
export function describeSource(source: ParsedSource): string {
  if (source.type === "local") return source.path;
  if (source.type === "web") {
    return source.subpath === "" ? source.url : `${source.url} (${source.subpath})`;
  }
  if (source.type === "oci") return source.ref === undefined ? source.url : ociLabel(source);
  if (source.type === "npm") {
    const at = source.ref === undefined ? source.url : `${source.url}@${source.ref}`;
    return source.subpath === "" ? at : `${at} (${source.subpath})`;
  }
  // A browser URL's ref and path as given: where the ref ends is known only once fetched.
  if (source.browserPath !== undefined) {
    return `${source.url} (${source.browserPath.segments.join("/")})`;
  }
  return source.subpath === "" ? source.url : `${source.url} (${source.subpath})`;
}

/**
 * The argument of `--skill`: a skill name or `*`; returns the canonical name or `*`. A skill
 * published under a name that is no identifier is selected by its installed name. A path
 * (`skills/pdf`, as `--list` shows it) picks one folder of the source when two share a name;
 * it is returned as a normalized path, only ever compared with the paths the source holds.
 */
export function parseSkillSelector(value: string): string {
  if (value === "*") return "*";
  if (value.includes("/")) return skillPathSelector(value, "--skill");
  const problem = skillNameProblem(value);
  if (problem !== undefined) {
    throw new SkillError("usage", `Invalid --skill '${quoteName(value)}': ${problem}`);
  }
  return canonicalSkillName(value);
}

/**
 * One folder of a skill's path as `--skill` takes it: letters, digits, `.`, `_` and `-`
 * (`.claude`, `skills`, `uipath-maestro-flow`), never `.` or `..` alone. A folder named
 * otherwise is picked by its skill's name.
 */
const PATH_SEGMENT = /^[A-Za-z0-9._-]{1,255}$/;

/**
 * A skill's folder in its source as `--skill` and `--name OLD=NEW` take it (`skills/pdf`,
 * `./skills/pdf/`), as a selector ({@link pathSelector}). Never `..`, never absolute: a path
 * inside the source, or a usage error.
 */
export function skillPathSelector(value: string, flag: string): string {
  const path = value.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
  const parts = path.split("/");
  if (
    value.startsWith("/") ||
    parts.some((part) => part === "." || part === ".." || !PATH_SEGMENT.test(part))
  ) {
    throw new SkillError(
      "usage",
      `Invalid ${flag} '${
        quoteName(value)
      }': a skill's path in its source, such as skills/pdf (as --list shows it)`,
    );
  }
  return pathSelector(path);
}

/** A folder of the source as a selector: its path, `./` before a folder at the top. */
export function pathSelector(rel: string): string {
  return rel.includes("/") ? rel : `./${rel}`;
}

/** Whether a selector (parseSkillSelector's, or a `--name` OLD) names a folder, not a skill. */
export function isPathSelector(selector: string): boolean {
  return selector.includes("/");
}

/** The folder a path selector names, as the source's paths are written (`./pdf` is `pdf`). */
export function selectedPath(selector: string): string {
  return selector.startsWith("./") ? selector.slice(2) : selector;
}

/** `oci://registry/repository:tag` or `…@sha256:…` as the user would write it. */
export function ociLabel(source: Pick<ParsedOciSource, "url" | "ref">, ref = source.ref): string {
  if (ref === undefined) return source.url;
  return `${source.url}${ref.startsWith("sha256:") ? "@" : ":"}${ref}`;
}

/** A commit or manifest digest shortened for a line of output (`3f2a9c1e0b4d`, `sha256:3f2a9c1e0b4d`). */
export function shortRevision(id: string): string {
  const npm = parseRevision(id);
  if (npm !== undefined) return npm.version;
  return id.startsWith("sha256:") ? id.slice(0, 19) : id.slice(0, 12);
}

/** What the summary calls a source's revision: a git commit, or an OCI manifest digest. */
export function revisionLabel(
  source: Pick<ParsedSource, "type">,
): "Commit" | "Manifest" | "Digest" | "Version" {
  if (source.type === "npm") return "Version";
  return source.type === "oci" ? "Manifest" : source.type === "web" ? "Digest" : "Commit";
}
