/**
 * Reading one skill directory: the one way a skill is read from disk, in two modes.
 *
 * - Listing (`loadSkillDir`; the catalog behind list, info, run, chat and MCP): front
 *   matter only (the parser loads lazily), scripts, the names of references and assets;
 *   the first problem throws SkillLoadError with a short reason.
 * - Validation (`inspectSkillDir`; `skills validate`, add and update previews, trust):
 *   additionally the whole SKILL.md (size-capped), every symlink anywhere in the skill,
 *   an empty body, toolset modules and PEP 723 blocks; every problem is a diagnostic with
 *   its file and line, and nothing throws for a bad skill.
 *
 * Both refuse a symlinked skill directory, SKILL.md or scripts/, and bound the directory by
 * realpath containment. Filesystem calls are synchronous: listing a thousand skills is a
 * few thousand tiny calls, and the per-call cost of async ops would dominate.
 */

import { dirname, join, relative, resolve } from "../os/paths.ts";
import type { Diagnostic, Manifest, ParsedSkillMd } from "../../core/manifest/manifest.ts";
import { MANIFEST_FILES, MAX_FRONT_MATTER_BYTES } from "../../core/manifest/limits.ts";
import { canonicalPublishedName } from "../../core/names.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import type { LockedSkill } from "../../core/records/lockfile.ts";
import { VERSION } from "../../core/version.ts";
import { isPlainObject } from "../../core/manifest/validation.ts";
import { isWithin, lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";
import { lstatKeptOrNull, readDirEntries } from "./dir_reads.ts";
import { discoverScripts, listOtherFiles, listResources, type ScriptInfo } from "./contents.ts";
import { requirementsFile } from "./requirements_file.ts";
import { CODEX_AGENT_FILE, SCRIPT_COLLISION, SkillLoadError } from "./load_terms.ts";

// Part of what the loader answers, so callers need not know where it is declared (modules
// that must not load the loader import them from load_terms.ts and contents.ts).
export { type ScriptInfo, SkillLoadError };

export type SkillOrigin = "core" | "git" | "local" | "oci" | "web" | "npm";

/**
 * Where a skill was found (issue 17): in the project (`.agents/skills`, `.claude/skills`
 * from the working directory up to the repository root), the user's `$SKILLS_HOME`, or
 * bundled with the binary. Precedence in that order.
 */
export type SkillScope = "project" | "user" | "bundled";

/** What a project skill carries besides the record: where it is, its trust, its lock. */
export interface ProjectSkillInfo {
  /** The project root (the repository root, or the folder holding `.agents`). */
  root: string;
  /** The skill's folder relative to the root, with `/` (the trust record's key). */
  rel: string;
  /** The digest this user trusted for it (`$SKILLS_HOME/project-trust.json`), or null. */
  trustedDigest: string | null;
  /** Its `skills-lock.json` entry, if the lockfile records it. */
  locked: LockedSkill | undefined;
}

export interface LoadedSkill {
  /** Display name (the registry name for installed skills, else the manifest name). */
  name: string;
  canonical: string;
  /** Real path of the skill directory. */
  dir: string;
  skillMdPath: string;
  origin: SkillOrigin;
  trusted: boolean;
  manifest: Manifest;
  scripts: ScriptInfo[];
  /** Relative paths under `references/` and `assets/`. */
  references: string[];
  assets: string[];
  /**
   * Every other file the skill ships, at any depth (not SKILL.md, scripts/, references/,
   * assets/ or hidden files): `forms.md`, `templates/report.docx`, … Bounded: past
   * {@link MAX_OTHER_FILES} the last entry says how many more there are.
   */
  files: string[];
  entry: RegistryEntry | undefined;
  warnings: Diagnostic[];
  scope: SkillScope;
  /** Project skills only. */
  project?: ProjectSkillInfo | undefined;
}

/** A skill that failed to load, listed with its reason (the catalog's other half). */
export interface SkillFailure {
  name: string;
  canonical: string;
  dir: string;
  origin: SkillOrigin;
  trusted: boolean;
  reason: string;
  entry: RegistryEntry | undefined;
  scope: SkillScope;
}

/** What validation found: the manifest if it parsed, the record if the skill loads. */
export interface InspectResult {
  dir: string;
  manifest: Manifest | undefined;
  /** SKILL.md's `name` as written, even when the manifest is invalid. */
  declaredName?: string | undefined;
  /** SKILL.md has no front matter at all (core/manifest/manifest.ts's ParsedSkillMd). */
  noFrontMatter?: true;
  /** SKILL.md's front matter names neither a name nor a description (ParsedSkillMd). */
  unnamed?: true;
  record: LoadedSkill | undefined;
  diagnostics: Diagnostic[];
}

type ManifestModule = typeof import("../../core/manifest/manifest.ts");
let manifestModule: ManifestModule | undefined;

/**
 * The manifest parser (and with it the YAML library) loads only when a SKILL.md must
 * actually be parsed: with the listing cache warm, `skills run` never needs it.
 */
async function manifestLib(): Promise<ManifestModule> {
  manifestModule ??= await import("../../core/manifest/manifest.ts");
  return manifestModule;
}

/** The lower-case spelling of SKILL.md some published skills use. */
const LOWER_MANIFEST = MANIFEST_FILES[1]!;
/** Validation refuses a SKILL.md larger than this outright (bounded memory). */
export const MAX_SKILL_MD_BYTES = 2 * 1024 * 1024;
const MAX_WALK_ENTRIES = 20_000;

interface LoadOptions {
  origin: SkillOrigin;
  trusted: boolean;
  entry?: RegistryEntry | undefined;
  /** Validate with the Agent Skills spec rules. */
  strict?: boolean;
  /** `root` is already a real path (saves a realpath call per skill). */
  rootIsReal?: boolean;
  /** Default: bundled for origin "core", else user. */
  scope?: SkillScope;
  project?: ProjectSkillInfo | undefined;
  /** The folder name agents see, when not the real folder's (a link the user named). */
  folderName?: string | undefined;
}

/**
 * A locked project skill installed under another name than its SKILL.md's (`skills add
 * --project --name OLD=NEW`): its folder is the lockfile key, so that key names it, as the
 * registry's name does for one in `$SKILLS_HOME`. Undefined for every other skill.
 */
function projectRename(
  project: ProjectSkillInfo | undefined,
  published: string,
): { key: string; name: string } | undefined {
  if (project?.locked === undefined) return undefined;
  const key = project.rel.slice(project.rel.lastIndexOf("/") + 1);
  return key === canonicalPublishedName(published) ? undefined : { key, name: project.locked.name };
}

/**
 * Listing: loads one skill directory (front matter, scripts, resources). Throws
 * SkillLoadError with a short reason when it cannot be used. `root` bounds containment.
 */
export async function loadSkillDir(
  dir: string,
  root: string,
  options: LoadOptions,
): Promise<LoadedSkill> {
  const read = await readSkill(await manifestLib(), dir, root, options, undefined);
  return read.record!;
}

/** Validation: every problem of one skill directory, as diagnostics. */
export async function inspectSkillDir(
  dirInput: string,
  options: { strict?: boolean; folderName?: string | undefined } = {},
): Promise<InspectResult> {
  const dir = resolve(dirInput);
  const load = {
    origin: "local",
    trusted: false,
    strict: options.strict ?? false,
    folderName: options.folderName,
  } as const;
  const read = await readSkill(await manifestLib(), dir, join(dir, ".."), load, dirInput);
  return { dir, ...read };
}

/**
 * The one reader, as the list of its phases. `validating` is the path as the caller gave it
 * (validation mode), or undefined (listing mode). A phase that refuses the skill throws a
 * {@link Refusal}; {@link Reading.refuse} turns it into listing's error or validation's
 * diagnostic, so every refusal ends the reading the same way in both modes.
 */
async function readSkill(
  lib: ManifestModule,
  dir: string,
  root: string,
  options: LoadOptions,
  validating: string | undefined,
): Promise<Omit<InspectResult, "dir">> {
  const reading = new Reading(validating);
  try {
    checkSkillDirectory(dir, validating);
    const mdName = manifestFileName(dir);
    const givenMd = join(dir, mdName);
    if (validating !== undefined) checkGivenManifest(dir, givenMd, mdName, options, reading);
    const folder = listContainedFolder(dir, root, mdName, options);
    const parsed = await parseManifest(lib, folder, givenMd, options, reading);
    if (parsed === undefined) return reading.result;
    const manifest = await withAgentPolicy(parsed.manifest!, folder);
    const warnings = parsed.diagnostics.filter((d) => d.level === "warning");
    const manifestWarnings = warnings.length;
    const scripts = findScripts(dir, folder, manifest, warnings);
    const record = assembleRecord(folder, manifest, scripts, warnings, options);
    reading.result.record = record;
    if (validating !== undefined) {
      reportContentProblems(dir, givenMd, record, warnings.slice(manifestWarnings), reading);
    }
    return reading.result;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return reading.refuse(error);
  }
}

/** Why a skill cannot be read, and the file the diagnostic names. */
class Refusal extends Error {
  constructor(message: string, readonly file: string, readonly noManifest = false) {
    super(message);
  }
}

/**
 * One reading's state across its phases: the mode, the diagnostics validation collects and
 * the result it returns, which keeps what was read before a refusal (the manifest).
 */
class Reading {
  readonly diagnostics: Diagnostic[] = [];
  readonly result: Omit<InspectResult, "dir"> = {
    manifest: undefined,
    record: undefined,
    diagnostics: this.diagnostics,
  };

  constructor(readonly validating: string | undefined) {}

  /** Listing stops at the first problem; validation records it and returns what it has. */
  refuse(refusal: Refusal): Omit<InspectResult, "dir"> {
    if (this.validating === undefined) {
      throw new SkillLoadError(refusal.message, refusal.noManifest);
    }
    this.diagnostics.push({ level: "error", file: refusal.file, message: refusal.message });
    return this.result;
  }
}

/** The folder itself, before anything in it is read: there, not a link, a directory. */
function checkSkillDirectory(dir: string, validating: string | undefined): void {
  const info = lstatKeptOrNull(dir);
  if (info === null) {
    throw new Refusal(
      validating === undefined
        ? "skill directory is missing"
        : `directory not found: ${validating}`,
      dir,
    );
  }
  if (info.isSymlink) {
    // A link the user names is followed before it gets here (discover.ts skillDirsAt), unless
    // it leads nowhere: then that is what is wrong with it.
    const nowhere = validating === undefined ? undefined : danglingTarget(dir);
    throw new Refusal(
      nowhere === undefined
        ? "skill directory is a symlink (refused)"
        : `a symbolic link to ${nowhere}, which does not exist`,
      dir,
    );
  }
  if (!info.isDirectory) throw new Refusal("not a directory", dir);
}

/** Where the link at `path` points, when that is nowhere; else undefined. */
function danglingTarget(path: string): string | undefined {
  try {
    Deno.statSync(path);
    return undefined;
  } catch {
    try {
      return Deno.readLinkSync(path);
    } catch {
      return undefined; // gone meanwhile
    }
  }
}

/** Some published skills spell the manifest skill.md: read it when SKILL.md is absent. */
function manifestFileName(dir: string): string {
  return lstatKeptOrNull(join(dir, "SKILL.md")) === null &&
      lstatSyncOrNull(join(dir, LOWER_MANIFEST)) !== null
    ? LOWER_MANIFEST
    : "SKILL.md";
}

/**
 * Validation only, before the folder is resolved: the SKILL.md at the path the caller gave
 * (a regular file within the size cap, so it can be read whole), no symlink anywhere in the
 * skill, a note of its Git LFS pointers, and one when the manifest is spelled skill.md.
 */
function checkGivenManifest(
  dir: string,
  givenMd: string,
  mdName: string,
  options: LoadOptions,
  reading: Reading,
): void {
  const md = lstatSyncOrNull(givenMd);
  if (md === null) throw new Refusal("SKILL.md not found", givenMd);
  if (md.isSymlink) throw new Refusal("SKILL.md is a symlink (refused)", givenMd);
  if (!md.isFile) throw new Refusal("SKILL.md is not a regular file", givenMd);
  if (md.size > MAX_SKILL_MD_BYTES) {
    throw new Refusal(`SKILL.md is ${md.size} bytes (max ${MAX_SKILL_MD_BYTES})`, givenMd);
  }
  checkEntries(dir, reading.diagnostics);
  if (mdName === LOWER_MANIFEST) {
    reading.diagnostics.push({
      level: options.strict ? "error" : "warning",
      file: givenMd,
      message: "the manifest is named skill.md; the Agent Skills specification names it SKILL.md",
    });
  }
}

/** The skill folder resolved, proved inside its root, and listed once. */
interface SkillFolder {
  /** Real path of the skill directory. */
  realDir: string;
  /** Its entries by name: one directory read tells what SKILL.md, scripts/, … are. */
  children: Map<string, Deno.DirEntry>;
  /** SKILL.md (or skill.md) under the real path: what listing reads and records. */
  skillMdPath: string;
}

/**
 * Realpath containment bounds the skill by its root, and the one listing of the real
 * folder is what every later phase asks about its entries (SKILL.md among them).
 */
function listContainedFolder(
  dir: string,
  root: string,
  mdName: string,
  options: LoadOptions,
): SkillFolder {
  const realRoot = options.rootIsReal ? root : Deno.realPathSync(root);
  // A non-symlink directory directly inside a real root is contained; anything else is resolved.
  const realDir = dirname(dir) === realRoot ? dir : Deno.realPathSync(dir);
  if (!isWithin(realRoot, realDir)) throw new Refusal(`skill directory escapes ${root}`, dir);
  const children = new Map<string, Deno.DirEntry>();
  for (const entry of readDirEntries(realDir)) children.set(entry.name, entry);
  const md = children.get(mdName);
  if (md === undefined) throw new Refusal("SKILL.md is missing", dir, true);
  if (md.isSymlink) throw new Refusal("SKILL.md is a symlink (refused)", dir);
  if (!md.isFile) throw new Refusal("SKILL.md is not a regular file", dir);
  return { realDir, children, skillMdPath: join(realDir, mdName) };
}

/**
 * The front matter parsed and its fields validated. Listing reads only the bounded prefix
 * that holds the front matter and throws at the first error; validation reads the whole
 * file, keeps every diagnostic and what was declared, and answers undefined when the
 * manifest is unusable (the reading ends with what it found).
 */
async function parseManifest(
  { parseSkillMd, hasErrors }: ManifestModule,
  folder: SkillFolder,
  givenMd: string,
  options: LoadOptions,
  reading: Reading,
): Promise<ParsedSkillMd | undefined> {
  const validation = manifestValidation(folder.realDir, options);
  if (reading.validating === undefined) {
    const { bytes, complete } = readPrefixSync(folder.skillMdPath, MAX_FRONT_MATTER_BYTES);
    const parsed = await parseSkillMd(bytes, folder.skillMdPath, validation, complete);
    if (parsed.manifest === undefined || hasErrors(parsed.diagnostics)) {
      const first = parsed.diagnostics.find((d) => d.level === "error");
      throw new SkillLoadError(`Invalid manifest (${first?.message ?? "unreadable"})`);
    }
    return parsed;
  }
  const { diagnostics, result } = reading;
  const parsed = await parseSkillMd(Deno.readFileSync(givenMd), givenMd, validation);
  diagnostics.push(...parsed.diagnostics);
  result.manifest = parsed.manifest;
  result.declaredName = parsed.declaredName;
  if (parsed.noFrontMatter) result.noFrontMatter = true;
  if (parsed.unnamed) result.unnamed = true;
  if (parsed.manifest === undefined || hasErrors(diagnostics)) return undefined;
  if (parsed.body.trim() === "") {
    diagnostics.push({
      level: "warning",
      file: givenMd,
      line: parsed.bodyLine,
      message: "SKILL.md has no instructions after the front matter",
    });
  }
  diagnostics.push(...shellOnLoadWarnings(parsed.body, parsed.bodyLine, givenMd));
  return parsed;
}

/**
 * How the fields are validated. An installed skill's directory is named by its registry
 * entry (`--name` may rename it), so only unregistered skills are compared with their
 * directory name.
 */
function manifestValidation(realDir: string, options: LoadOptions) {
  const dirName = options.entry === undefined
    ? options.folderName ?? realDir.split(/[\\/]/).pop() ?? ""
    : undefined;
  return {
    strict: options.strict ?? false,
    ...(dirName === undefined ? {} : { dirName }),
    cliVersion: VERSION,
  };
}

/** Codex's agents/openai.yaml may keep the skill from the model (implicit invocation off). */
async function withAgentPolicy(manifest: Manifest, folder: SkillFolder): Promise<Manifest> {
  if (folder.children.get("agents")?.isDirectory && await codexHidesSkill(folder.realDir)) {
    manifest.invocation = {
      ...(manifest.invocation ?? { modelInvocable: true, userInvocable: true }),
      modelInvocable: false,
    };
  }
  return manifest;
}

/** The scripts the skill runs; a scripts/ folder that cannot be used refuses the skill. */
function findScripts(
  dir: string,
  folder: SkillFolder,
  manifest: Manifest,
  warnings: Diagnostic[],
): ScriptInfo[] {
  const { realDir, children, skillMdPath } = folder;
  try {
    return discoverScripts(realDir, children.get("scripts"), manifest, warnings, skillMdPath);
  } catch (error) {
    if (!(error instanceof SkillLoadError)) throw error;
    throw new Refusal(error.message, dir);
  }
}

/**
 * The record every caller reads. Its name is the registry's for an installed skill, the
 * lockfile key's for a renamed project skill, else the manifest's.
 */
function assembleRecord(
  folder: SkillFolder,
  manifest: Manifest,
  scripts: ScriptInfo[],
  warnings: Diagnostic[],
  options: LoadOptions,
): LoadedSkill {
  const { realDir, children, skillMdPath } = folder;
  const renamed = projectRename(options.project, manifest.name);
  return {
    name: options.entry?.name ?? renamed?.name ?? manifest.name,
    canonical: options.entry?.name_canonical ?? renamed?.key ??
      canonicalPublishedName(manifest.name),
    dir: realDir,
    skillMdPath,
    origin: options.origin,
    trusted: options.trusted,
    manifest,
    scripts,
    references: listResources(join(realDir, "references"), children.get("references")),
    assets: listResources(join(realDir, "assets"), children.get("assets")),
    files: listOtherFiles(realDir, children),
    entry: options.entry,
    warnings,
    scope: options.scope ?? (options.origin === "core" ? "bundled" : "user"),
    ...(options.project === undefined ? {} : { project: options.project }),
  };
}

/**
 * Validation only, once the skill loads: what reading its contents warned about (a script
 * collision is an error here: validate, add and update refuse an ambiguous skill), then the
 * toolsets and scripts checked against the files.
 */
function reportContentProblems(
  dir: string,
  givenMd: string,
  record: LoadedSkill,
  contentWarnings: Diagnostic[],
  { diagnostics }: Reading,
): void {
  for (const w of contentWarnings) {
    const d = w.message.startsWith(SCRIPT_COLLISION) ? { ...w, level: "error" as const } : w;
    if (!diagnostics.some((known) => known.message === d.message)) diagnostics.push(d);
  }
  checkToolsetsAndScripts(dir, givenMd, record, diagnostics);
}

const MAX_AGENT_FILE_BYTES = 64 * 1024;

/** Whether `agents/openai.yaml` sets `policy.allow_implicit_invocation: false`. */
async function codexHidesSkill(dir: string): Promise<boolean> {
  const path = join(dir, ...CODEX_AGENT_FILE.split("/"));
  const info = lstatSyncOrNull(path);
  if (info === null || !info.isFile) return false;
  const { bytes } = readPrefixSync(path, MAX_AGENT_FILE_BYTES);
  try {
    const { loadFrontMatterYaml } = await import("../../core/manifest/frontmatter.ts");
    const document = await loadFrontMatterYaml(new TextDecoder().decode(bytes), 1);
    const policy = isPlainObject(document) ? document.policy : undefined;
    return isPlainObject(policy) && policy.allow_implicit_invocation === false;
  } catch {
    return false; // an unreadable agent file changes nothing
  }
}

/**
 * Claude Code runs `` !`command` `` blocks of a skill's body when it loads the skill;
 * skills never does (the body is text), and says so when validating.
 */
function shellOnLoadWarnings(body: string, bodyLine: number, file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  body.split("\n").forEach((line, i) => {
    if (/!`[^`\n]+`/.test(line)) {
      out.push({
        level: "warning",
        file,
        line: bodyLine + i,
        message:
          "a !`command` block: Claude Code runs it when it loads the skill; skills never runs it",
      });
    }
  });
  return out;
}

/**
 * Validation: declared toolset modules exist; scripts that declare no packages (no PEP 723
 * block, no requirements.txt) run with python3.
 */
function checkToolsetsAndScripts(
  dir: string,
  skillMd: string,
  record: LoadedSkill,
  diagnostics: Diagnostic[],
): void {
  for (const ref of record.manifest.toolsets) {
    const modulePath = ref.split(":")[0]!.replaceAll(".", "/");
    const candidates = [join(dir, `${modulePath}.py`), join(dir, modulePath, "__init__.py")];
    if (!candidates.some((path) => lstatSyncOrNull(path)?.isFile)) {
      diagnostics.push({
        level: "error",
        file: skillMd,
        message: `toolset '${ref}': ${modulePath}.py not found in the skill`,
      });
    }
  }
  for (const script of record.scripts) {
    if (script.language !== "python") continue;
    const head = new TextDecoder().decode(readPrefixSync(script.path, 4096).bytes);
    if (!head.includes("# /// script") && requirementsFile(script.path, dir) === undefined) {
      diagnostics.push({
        level: "warning",
        file: script.path,
        message: "no PEP 723 '# /// script' block; it will run with plain python3",
      });
    }
  }
}

/** What a Git LFS pointer file starts with: the file's content is stored outside git. */
const LFS_POINTER = "version https://git-lfs.github.com/spec/v1\n";
/** A pointer is a few lines (version, `oid sha256:…`, size): no larger file is one. */
const MAX_LFS_POINTER_BYTES = 512;
/** Pointers named in the warning; the rest are counted. */
const LFS_NAMED = 3;

/**
 * Validation, over every entry of the skill: every symlink inside it is an error. A skill's digest covers file
 * contents, and a link would make what runs depend on where it points at run time: none
 * is installed, whether it leaves the skill or not (docs/security.md). And a warning for
 * Git LFS pointers (K-Dense's skills keep their images so): git holds a three-line pointer
 * where the file should be, and nothing here fetches LFS content, so the skill would get
 * the pointer.
 */
function checkEntries(root: string, diagnostics: Diagnostic[]): void {
  let seen = 0;
  const realRoot = Deno.realPathSync(root);
  const pointers: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of Deno.readDirSync(dir)) {
      if (++seen > MAX_WALK_ENTRIES) {
        diagnostics.push({
          level: "error",
          file: root,
          message: `skill has more than ${MAX_WALK_ENTRIES} files`,
        });
        return;
      }
      const path = join(dir, entry.name);
      if (entry.isSymlink) {
        let target: string | undefined;
        try {
          target = Deno.realPathSync(path);
        } catch { /* dangling */ }
        const rel = relative(root, path);
        if (target === undefined || !isWithin(realRoot, target)) {
          diagnostics.push({
            level: "error",
            file: path,
            message: `symlink ${rel} points outside the skill (refused: skills add installs ` +
              `a copy of a file of the same source in its place, and leaves out one that leads ` +
              `out of the source or nowhere)`,
          });
        } else {
          // `skills add` copies a linked file in its place (lifecycle/fetch_source.ts); a
          // folder read in place, as a project's or the one validated, holds the link itself.
          const copied = Deno.lstatSync(target).isFile
            ? `; skills add installs a copy of ${relative(realRoot, target)} in its place`
            : "; skills add leaves a link to a folder out";
          diagnostics.push({
            level: "error",
            file: path,
            message:
              `symlink ${rel} (refused: a skill holds no symlinks; ship the file itself, or a copy${copied})`,
          });
        }
      } else if (entry.isDirectory && entry.name !== ".git") {
        walk(path);
      } else if (entry.isFile && isLfsPointer(path)) pointers.push(relative(root, path));
    }
  };
  walk(root);
  if (pointers.length === 0) return;
  pointers.sort();
  const more = pointers.length > LFS_NAMED ? `, and ${pointers.length - LFS_NAMED} more` : "";
  diagnostics.push({
    level: "warning",
    file: join(root, pointers[0]!),
    message: `${pointers.length} file(s) are Git LFS pointers, not their content (${
      pointers.slice(0, LFS_NAMED).join(", ")
    }${more}): the repository stores them with Git LFS, which is not fetched; the skill gets the pointers`,
  });
}

/** Whether a file is a Git LFS pointer: small, and starting with the pointer's first line. */
function isLfsPointer(path: string): boolean {
  const info = lstatSyncOrNull(path);
  if (info === null || info.size > MAX_LFS_POINTER_BYTES || info.size < LFS_POINTER.length) {
    return false;
  }
  const head = readPrefixSync(path, LFS_POINTER.length).bytes;
  return new TextDecoder().decode(head) === LFS_POINTER;
}

type FrontMatterModule = typeof import("../../core/manifest/frontmatter.ts");
let frontMatterModule: FrontMatterModule | undefined;

/**
 * Reads the full SKILL.md body (after the front matter) of a loaded skill: the text after
 * the closing `---`, as the manifest parser splits it. Its front matter is not parsed and
 * validated again: the record it was loaded into already was, from these bytes (a served
 * skill's from its verified copy), and `context` reads a thousand bodies in a row. A file
 * that no longer splits (changed since) has no body, as before.
 */
export async function readSkillBody(skill: LoadedSkill): Promise<string> {
  // Synchronous: one small file each, a thousand in a row.
  return await skillBody(Deno.readFileSync(skill.skillMdPath));
}

/** The Markdown body of a SKILL.md's bytes (front matter stripped; "" when it has none). */
export async function skillBody(bytes: Uint8Array): Promise<string> {
  frontMatterModule ??= await import("../../core/manifest/frontmatter.ts");
  const { decodeSkillMd, FrontMatterError, splitSkillMd } = frontMatterModule;
  try {
    return splitSkillMd(decodeSkillMd(bytes)).body;
  } catch (error) {
    if (error instanceof FrontMatterError) return "";
    throw error;
  }
}
