/**
 * A source resolved once into how it is fetched (`ResolvedSource`, core/sources): the string
 * the user typed (`resolveSource`: is it a directory, is that directory a bare repository, is
 * it inside $SKILLS_HOME?) and a source read back from a registry or lockfile record
 * (`resolveParsed`). Whether a source is a git repository on this machine — read in place,
 * never cloned — is decided here and nowhere else (`localRepositoryPath`): the fetcher
 * (fetch_source.ts), the signer check and the progress lines switch on the kind it gives.
 */

import { basename, dirname, join, resolve } from "../os/paths.ts";
import { MANIFEST_FILES } from "../../core/manifest/limits.ts";
import * as PLATFORM_PATHS from "../os/paths.ts";
import { SkillError, UsageError } from "../../core/errors.ts";
import {
  type GitSource,
  isPathSelector,
  type LocalFolderSource,
  mayBeWebsite,
  type OciSource,
  type ParsedGitSource,
  type ParsedLocalSource,
  type ParsedOciSource,
  type ParsedSource,
  parseSource,
  type RefFlags,
  type RefRequest,
  refRequest,
  type ResolvedSource,
} from "../../core/sources/sources.ts";
import { type ParsedWebSource, webSource, webTargetOf } from "../../core/sources/web_source.ts";
import { isWithin, lstatOrNull } from "../os/fs.ts";

/** Where a typed source is looked up: the working directory, `~`'s home, `$SKILLS_HOME`. */
interface Whereabouts {
  cwd: string;
  env: Readonly<Record<string, string>>;
  home: string;
}

/** What a command's source and flags ask for: the source, the ref to fetch, the skills named. */
export interface SourceRequest {
  source: ResolvedSource;
  request: RefRequest;
  /** `--skill` values, and the skill an `owner/repo@skill` source names (once). */
  selectors: string[];
}

/**
 * Resolves what `skills add` / `skills audit` were given: the source (`resolveSource`), the
 * ref (`--ref/--branch/--tag` or the source's `#ref`; refused for a directory) and the skills
 * asked for.
 */
export async function resolveRequest(
  input: string,
  flags: RefFlags,
  skills: readonly string[],
  where: Whereabouts,
): Promise<SourceRequest> {
  const source = await resolveSource(input, where);
  const unversioned = source.kind === "local-folder" || source.type === "web" ||
    source.type === "npm";
  if (unversioned && Object.values(flags).some((v) => v !== undefined)) {
    throw new UsageError(
      "--ref, --branch and --tag apply to git and OCI sources, not to directories, websites or npm packages",
      source.type === "npm"
        ? "Give an npm package's range after '@': npm:<package>@^1.2"
        : undefined,
    );
  }
  // An npm range (`npm:pkg@^1.2`) is what the install and its updates follow.
  const request: RefRequest = source.type === "npm"
    ? { kind: "tag", name: source.ref ?? "latest" }
    : refRequest(flags, source.ref);
  const selectors = [...skills];
  if (source.skill !== undefined && !selectors.includes(source.skill)) selectors.push(source.skill);
  // One skill of a site's index: only its files are downloaded.
  const [only] = selectors;
  if (
    source.kind === "well-known" && selectors.length === 1 && only !== "*" && !isPathSelector(only!)
  ) {
    return { source: { ...source, subpath: only! }, request, selectors };
  }
  return { source, request, selectors };
}

/**
 * Turns what the user typed into a source: an existing directory is a local folder (a bare
 * git repository is a repository read in place instead of copied); anything else is parsed
 * as a git URL, GitHub shorthand or `oci://` reference. A directory inside $SKILLS_HOME (or
 * containing it) is refused.
 */
async function resolveSource(
  input: string,
  { cwd, env, home }: Whereabouts,
): Promise<ResolvedSource> {
  if (!input.includes("://") && !/^[A-Za-z][A-Za-z0-9+.-]*::/.test(input)) {
    let path = typedPath(input, cwd, env);
    let info = await Deno.stat(path).catch(() => null);
    if (info?.isFile) {
      // A skill's SKILL.md names its folder, as a forge's page of it does.
      if (!MANIFEST_FILES.includes(basename(path))) throw fileSourceError(input, path);
      path = dirname(path);
      info = await Deno.stat(path).catch(() => null);
      input = path;
    }
    if (info?.isDirectory) {
      // A link the user typed (`./skills/docx -> docx-official`) is installed from the folder
      // it names, which is also where the check below looks: the copy never follows a link.
      if ((await Deno.lstat(path)).isSymlink) {
        path = await Deno.realPath(path);
        input = path;
      }
      if (isWithin(path, home) || isWithin(home, path)) {
        throw new SkillError(
          "invalid_source",
          `Cannot install from ${path}: it is inside $SKILLS_HOME or contains it (${home})`,
        );
      }
      return resolveParsed(parseSource(input, {
        localDirectory: path,
        localIsBareRepository: await isBareRepository(path),
        paths: PLATFORM_PATHS,
      }));
    }
  }
  const parsed = parseSource(input);
  if (mayBeWebsite(parsed)) {
    // An https URL that names no repository plainly: a site that lists skills is a website;
    // anything else (no index, no answer) stays the git remote it was read as.
    const site = webSource(parsed.url);
    // Ten seconds, as vercel-labs' CLI allows discovery: a host that does not answer is left
    // to git, which reports it.
    const { findWellKnownIndex } = await import("../web/fetch_web.ts"); // only for an https site
    const index = await findWellKnownIndex(site.url, AbortSignal.timeout(10_000))
      .catch(() => null);
    if (index !== null) return resolveParsed(site);
  }
  return resolveParsed(parsed);
}

/**
 * A file named as a source: an archive (a `.skill` file, as Anthropic's skill-creator packages
 * a skill, or a `.zip` or tarball) is unpacked by the user and its folder added — a local
 * archive is not read in place — and anything else is no source.
 */
function fileSourceError(input: string, path: string): SkillError {
  const name = basename(path);
  const zip = /\.(?:skill|zip)$/i.test(name);
  const tar = /\.(?:tar|tar\.gz|tgz)$/i.test(name);
  if (!zip && !tar) {
    return new SkillError(
      "invalid_source",
      `Invalid source '${input}': it is a file, not a skill's folder`,
      { hint: "Give the folder that holds the skill's SKILL.md" },
    );
  }
  const unpack = zip ? `unzip ${name} -d skill` : `mkdir skill && tar -xf ${name} -C skill`;
  return new SkillError(
    "invalid_source",
    `Invalid source '${input}': it is an archive; a local archive is not read in place`,
    {
      hint:
        `Unpack it (\`${unpack}\`) and give the folder that holds its SKILL.md; from an https URL it is read as it is`,
    },
  );
}

/** The path a typed source names, `~` being the user's home, relative to `cwd`. */
export function typedPath(
  input: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
): string {
  const expanded = input === "~" || input.startsWith("~/")
    ? join(env.HOME ?? "~", input.slice(1))
    : input;
  return resolve(cwd, expanded);
}

/** A directory git would take for a bare repository (and no skill folder that has a HEAD file). */
async function isBareRepository(path: string): Promise<boolean> {
  const [head, objects, refs, skillMd] = await Promise.all(
    ["HEAD", "objects", "refs", "SKILL.md"].map((n) => lstatOrNull(join(path, n))),
  );
  return head?.isFile === true && objects?.isDirectory === true && refs?.isDirectory === true &&
    skillMd === null;
}

/**
 * Gives a parsed source its kind: the one place that does. Records (registry entries, lock
 * entries) come here with the source their URL parses to.
 */
export function resolveParsed(parsed: ParsedLocalSource): LocalFolderSource;
export function resolveParsed(parsed: ParsedOciSource): OciSource;
export function resolveParsed(parsed: ParsedGitSource): GitSource;
export function resolveParsed(parsed: ParsedWebSource): ResolvedSource;
export function resolveParsed(parsed: ParsedSource): ResolvedSource;
export function resolveParsed(parsed: ParsedSource): ResolvedSource {
  switch (parsed.type) {
    case "local":
      return { ...parsed, kind: "local-folder" };
    case "oci":
      return { ...parsed, kind: "oci" };
    case "npm":
      return { ...parsed, kind: "npm" };
    case "web": {
      const target = webTargetOf(parsed.url);
      return target === "site"
        ? { ...parsed, kind: "well-known" }
        : { ...parsed, kind: "web-file", target };
    }
    case "git": {
      const path = parsed.transport === "file" ? localRepositoryPath(parsed.url) : null;
      return path === null
        ? { ...parsed, kind: "remote-git" }
        : { ...parsed, transport: "file", kind: "local-repository", path };
    }
  }
}

/**
 * The path a `file:///` URL names when git's objects there can be read in place
 * (runtime/git/local_read.ts), or null when the repository is cloned instead: on Windows,
 * for a host, and for percent-encoded URLs, which are left to git's own parsing.
 */
export function localRepositoryPath(url: string): string | null {
  if (Deno.build.os === "windows" || !url.startsWith("file:///")) return null;
  const path = url.slice("file://".length);
  return path.includes("%") ? null : path;
}
