/**
 * `skills lint <dir>`: the author's checks (core/audit/lint_checks.ts) on one skill directory, plus
 * what only running it shows: each command-line script (helper modules aside, see
 * core/lint.helperModules) is run with `--help`, and with `--json` alone,
 * through the real runner (exec/script_service: the same launcher, environment allowlist,
 * sandbox and timeout as `skills run`) — only when the command says so (a trusted skill
 * unchanged since it was trusted, run from its verified copy, or `--run-scripts`), always in
 * the OS sandbox with no network but what the user grants (the skill's own declared hosts
 * are not honoured: nobody reviewed them), and without a sandbox only when the user agreed
 * (`policyModeAgreed`).
 */

import { basename, dirname, join, relative } from "../os/paths.ts";
import type { Diagnostic } from "../../core/manifest/manifest.ts";
import {
  helperModules,
  lintBody,
  lintDescription,
  type LintFinding,
  lintMissingFiles,
  lintNameFolder,
  lintUnreferenced,
  mentionedPaths,
  missingModule,
  missingModuleFinding,
  needsTokenCount,
  scriptMentioned,
} from "../../core/audit/lint_checks.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import { CODEX_AGENT_FILE } from "../catalog/load_terms.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { scriptHelp, scriptRun } from "../exec/script_service.ts";
import { sandboxStatus } from "../exec/spawn/sandbox_request.ts";
import { lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";
import { skillFiles } from "./scan.ts";

export interface LintOptions {
  home: string;
  env: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
  /** Run each script with --help and with --json. */
  runScripts: boolean;
  /**
   * The catalog's record of this skill when the user trusted it and its files still match:
   * its scripts then run as `run` runs them, from the verified copy (re-checked there).
   */
  trusted?: Catalog["skills"][number] | undefined;
  /** Without a working OS sandbox, scripts run only when the user agreed to policy mode. */
  policyModeAgreed?: boolean;
  /** Per script run. */
  timeoutSeconds: number;
  /** Counts tokens (the tokenizer loads only for a body that could exceed the limit). */
  countTokens: (text: string) => Promise<number>;
  /**
   * The folder name agents see, when it is not the real folder's: the link the user named
   * (`skills/docx -> docx-official` is the skill `docx` to every agent that loads it).
   */
  folderName?: string | undefined;
}

export interface LintReport {
  dir: string;
  name: string | null;
  findings: LintFinding[];
  /** Whether its scripts were run (asked for, and a sandbox or the user's agreement). */
  scriptsRun: boolean;
}

const DOC = /\.(?:md|markdown|txt)$/i;
/** Files of scripts/ read to tell helper modules from commands. */
const CODE = /\.(?:py|m?[jt]s|cjs|cts|sh|bash)$/i;
const MAX_DOC_BYTES = 1024 * 1024;

/** Every lint pass over one skill directory, in report order, sorted at the end. */
export async function lintSkillDir(dir: string, options: LintOptions): Promise<LintReport> {
  const loose = await inspectSkillDir(dir);
  const rel = (file: string) => relative(loose.dir, file).replaceAll("\\", "/") || "SKILL.md";
  let findings = invalidFindings(loose.diagnostics, rel);
  const { manifest, record } = loose;
  if (manifest === undefined || record === undefined) {
    return { dir: loose.dir, name: manifest?.name ?? null, findings, scriptsRun: false };
  }
  findings.push(...await portability(dir, loose.diagnostics, rel));
  const skillMd = await readSkillMd(record.skillMdPath);
  const { body, bodyLine } = skillMd.parsed;
  findings.push(
    ...lintDescription(manifest.description, skillMd.lineOf("description"), manifest.whenToUse),
  );
  const bytes = new TextEncoder().encode(body).length;
  const tokens = needsTokenCount(bytes) ? await options.countTokens(body) : undefined;
  findings.push(...lintBody(body, bodyLine, tokens));
  const all = skillFiles(loose.dir);
  const files = lintedFiles(all);
  const mentioned = mentionedPaths(body, bodyLine);
  // A file the body names is there when it is there, hidden (`assets/.claude/rules/x.md`) too.
  findings.push(...lintMissingFiles(mentioned, all, besideSkill(loose.dir)));
  const docs = readDocs(loose.dir, files, skillMd.text);
  const sources = readScriptSources(loose.dir, files, record.scripts);
  const { commands, modules } = commandsAndModules(record.scripts, sources, docs);
  findings = withoutModulePep723(findings, modules);
  findings.push(...lintUnreferenced(docs, files, commands));
  const folder = options.folderName ?? basename(loose.dir);
  findings.push(...lintNameFolder(manifest.name, folder, skillMd.lineOf("name")));
  const scripts = options.runScripts
    ? await scriptFindings({ ...record, scripts: commands }, sources, options)
    : undefined;
  findings.push(...scripts?.findings ?? []);
  findings.sort(byFileAndLine);
  return { dir: loose.dir, name: manifest.name, findings, scriptsRun: scripts?.ran === true };
}

/** What validation refuses, as lint's `invalid` findings (nothing else runs without a manifest). */
function invalidFindings(
  diagnostics: readonly Diagnostic[],
  rel: (file: string) => string,
): LintFinding[] {
  return diagnostics.filter((d) => d.level === "error").map((d) => ({
    rule: "invalid",
    level: "error" as const,
    file: rel(d.file),
    ...(d.line === undefined ? {} : { line: d.line }),
    message: d.message,
  }));
}

/**
 * SKILL.md as the author wrote it: its text (findings point at its lines, `lineOf` finds a
 * front matter key's) and its body, parsed without validation.
 */
async function readSkillMd(path: string) {
  const text = new TextDecoder().decode(Deno.readFileSync(path));
  const { parseSkillMd } = await import("../../core/manifest/manifest.ts");
  const parsed = await parseSkillMd(new TextEncoder().encode(text), "SKILL.md");
  const lineOf = (key: string) => {
    const index = text.split("\n").findIndex((l) => l.startsWith(`${key}:`));
    return index === -1 ? 1 : index + 1;
  };
  return { text, parsed, lineOf };
}

/**
 * The skill's files lint wants mentioned and reads: hidden files and `__pycache__` are not
 * the author's documents or scripts.
 */
function lintedFiles(all: readonly string[]): string[] {
  return all.filter((f) =>
    !f.split("/").some((part) => part.startsWith(".") || part === "__pycache__")
  );
}

/**
 * SKILL.md and every other document: where scripts must be mentioned. Codex's
 * `agents/openai.yaml` is one too: its `icon_small` and `icon_large` name the skill's icons
 * (`./assets/icon.png`), which no Markdown file mentions.
 */
function readDocs(
  dir: string,
  files: readonly string[],
  skillMdText: string,
): { path: string; text: string }[] {
  return [
    { path: "SKILL.md", text: skillMdText },
    ...files.filter((f) => (DOC.test(f) || f === CODEX_AGENT_FILE) && f !== "SKILL.md")
      .map((path) => ({ path, text: readTextPrefix(join(dir, ...path.split("/"))) })),
  ];
}

/**
 * Every code file of scripts/ by its path below scripts/, for what imports what (a
 * package's __init__.py too), and every script the record lists.
 */
function readScriptSources(
  dir: string,
  files: readonly string[],
  scripts: LoadedSkill["scripts"],
): Map<string, string> {
  const sources = new Map(
    files.filter((f) => f.startsWith("scripts/") && CODE.test(f)).map((f) => [
      f.slice("scripts/".length),
      readTextPrefix(join(dir, ...f.split("/"))),
    ]),
  );
  for (const script of scripts) {
    if (!sources.has(script.file)) sources.set(script.file, readTextPrefix(script.path));
  }
  return sources;
}

function readTextPrefix(path: string): string {
  return new TextDecoder().decode(readPrefixSync(path, MAX_DOC_BYTES).bytes);
}

/** Helper modules (utils.py) are not commands: not run, not asked to be mentioned. */
function commandsAndModules(
  scripts: LoadedSkill["scripts"],
  sources: ReadonlyMap<string, string>,
  docs: readonly { path: string; text: string }[],
) {
  const byFile = new Map(scripts.map((s) => [s.file, s]));
  const modules = helperModules(
    [...sources].map(([file, text]) => ({ file, text })),
    (file) => byFile.has(file) && scriptMentioned(docs, byFile.get(file)!),
  );
  return { commands: scripts.filter((s) => !modules.has(s.file)), modules };
}

/** A module is imported, never run on its own: it needs no PEP 723 block of its own. */
function withoutModulePep723(
  findings: readonly LintFinding[],
  modules: ReadonlyMap<string, unknown>,
): LintFinding[] {
  const moduleFiles = new Set([...modules.keys()].map((file) => `scripts/${file}`));
  return findings.filter((f) => !(moduleFiles.has(f.file) && /PEP 723/.test(f.message)));
}

/**
 * How many folders above a skill a path it mentions may be found (plugin, repository): the
 * repository's top is four above a plugin's skill (`plugins/<p>/skills/<s>/`, where
 * yigitkonur's skills name the repository's `scripts/validate-skills.py`). The walk stops at
 * a `.git` folder, the repository's top, whatever the count.
 */
const OUTSIDE_LEVELS = 4;

/** How many folders beside a skill are looked in for a path it mentions. */
const SIBLINGS_LOOKED_AT = 1000;

/**
 * Finds a path a skill mentions in a folder above it (`scripts/x.py` of the plugin or
 * repository holding the skill), up to the repository's root, or else in a skill beside it
 * (`references/run.md` of the sibling skill its text names, as OpenAI's plugins write); answers
 * where, relative to the skill.
 */
function besideSkill(dir: string): (path: string) => string | undefined {
  let siblings: string[] | undefined;
  return (path) => {
    let folder = dir;
    for (let up = 1; up <= OUTSIDE_LEVELS; up++) {
      if (lstatSyncOrNull(join(folder, ".git")) !== null) break;
      const parent = dirname(folder);
      if (parent === folder) break;
      folder = parent;
      if (lstatSyncOrNull(join(folder, ...path.split("/"))) !== null) {
        return `${"../".repeat(up)}${path}`;
      }
    }
    siblings ??= siblingSkills(dir);
    const holder = siblings.find((name) =>
      lstatSyncOrNull(join(dirname(dir), name, ...path.split("/"))) !== null
    );
    return holder === undefined ? undefined : `../${holder}/${path}`;
  };
}

/** The skills in the folder that holds `dir` (not `dir` itself), by folder name. */
function siblingSkills(dir: string): string[] {
  const out: string[] = [];
  try {
    for (const entry of Deno.readDirSync(dirname(dir))) {
      if (out.length >= SIBLINGS_LOOKED_AT) break;
      if (!entry.isDirectory || entry.name === basename(dir)) continue;
      if (lstatSyncOrNull(join(dirname(dir), entry.name, "SKILL.md"))?.isFile) out.push(entry.name);
    }
  } catch { /* an unreadable parent: no siblings */ }
  return out.sort();
}

/** SKILL.md first, then the other files by path; within a file by line. */
function byFileAndLine(a: LintFinding, b: LintFinding): number {
  if (a.file === b.file) return (a.line ?? 0) - (b.line ?? 0);
  if (a.file === "SKILL.md" || b.file === "SKILL.md") return a.file === "SKILL.md" ? -1 : 1;
  return a.file < b.file ? -1 : 1;
}

/**
 * What `validate` warns about, and what `validate --strict` (the Agent Skills spec exactly)
 * would refuse: both are portability problems. The name/folder mismatch has its own rule.
 */
async function portability(
  dir: string,
  loose: readonly Diagnostic[],
  rel: (file: string) => string,
): Promise<LintFinding[]> {
  const strict = await inspectSkillDir(dir, { strict: true });
  const seen = new Set<string>();
  const out: LintFinding[] = [];
  for (const d of [...loose.filter((x) => x.level === "warning"), ...strict.diagnostics]) {
    if (/differs from the directory|must equal the directory/.test(d.message)) continue;
    // The same warning may come from both readings; each file keeps its own.
    const key = `${d.file}\u0000${d.message}`;
    if (seen.has(key) || loose.some((x) => x.level === "error" && x.message === d.message)) {
      continue;
    }
    seen.add(key);
    out.push({
      rule: "portability",
      level: "warning",
      file: rel(d.file),
      ...(d.line === undefined ? {} : { line: d.line }),
      message: d.level === "error" ? `not portable (validate --strict: ${d.message})` : d.message,
    });
  }
  return out;
}

type LoadedSkill = Catalog["skills"][number];

/** Runs every script with --help, then with --json alone, through the real runner. */
async function scriptFindings(
  record: LoadedSkill,
  sources: ReadonlyMap<string, string>,
  options: LintOptions,
): Promise<{ findings: LintFinding[]; ran: boolean }> {
  const sandbox = await sandboxStatus(options.env, options.home);
  if (sandbox.kind !== "bwrap" && options.policyModeAgreed !== true) {
    return { findings: uncheckedScripts(record, sandbox.reason), ran: false };
  }
  const commands = new Set(record.scripts.map((s) => s.name));
  const skill = options.trusted === undefined
    ? record
    : { ...options.trusted, scripts: options.trusted.scripts.filter((s) => commands.has(s.name)) };
  const review: ScriptReview = {
    catalog: {
      home: options.home,
      skills: [skill],
      failures: [],
      notes: [],
      shadowed: [],
      project: undefined,
      installedDirs: [],
    },
    canonical: skill.canonical,
    sources,
    deps: {
      home: options.home,
      env: options.env,
      signal: options.signal,
      timeoutSeconds: options.timeoutSeconds,
      // A skill under review runs as it is; a trusted one only as verified.
      allowUntrusted: options.trusted === undefined,
      // The skill's own permissions.network is not honoured under review: nobody approved it.
      declaredNetwork: false,
    },
  };
  const out: LintFinding[] = [];
  for (const script of skill.scripts) out.push(...await reviewScript(review, script));
  return { findings: out, ran: true };
}

/** Without an OS sandbox (and without the user's agreement) no script runs: each says so. */
function uncheckedScripts(record: LoadedSkill, reason: string | undefined): LintFinding[] {
  return record.scripts.map((script) => ({
    rule: "script-unchecked",
    level: "warning" as const,
    file: `scripts/${script.file}`,
    message: `\`${script.name}\` was not run: no OS sandbox here (${reason}), and ` +
      "scripts of a skill under review run outside one only when you agree",
  }));
}

/** What every script's runs share: a catalog of the one skill, its sources, the runner's deps. */
interface ScriptReview {
  catalog: Catalog;
  canonical: string;
  sources: ReadonlyMap<string, string>;
  deps: Parameters<typeof scriptRun>[5] & Parameters<typeof scriptHelp>[3];
}

type Script = LoadedSkill["scripts"][number];

/**
 * A run's message as a finding shows it: its first line, bounded. The bound leaves room for
 * the verified copy's path the runner names (~100 characters under a temporary home) and the
 * reason after it, which is what the author needs.
 */
const firstLine = (text: string) => text.split("\n")[0]!.slice(0, 500);

/**
 * One script: its --help first; when it cannot start (no uv, a missing module) that is the
 * one finding, else what its help lacks and then what its --json run printed.
 */
async function reviewScript(review: ScriptReview, script: Script): Promise<LintFinding[]> {
  const { catalog, canonical, deps } = review;
  const file = `scripts/${script.file}`;
  const help = await scriptHelp(catalog, canonical, script.name, deps);
  if (!help.success && help.error === "dependency_unavailable") {
    // Nothing to judge: the script cannot start on this machine (no uv for its dependencies).
    return [{
      rule: "script-unchecked",
      level: "warning",
      file,
      message: `\`${script.name}\` was not run: ${firstLine(help.message)}`,
    }];
  }
  const missing = help.success ? undefined : missingModule(help.message);
  if (missing !== undefined) {
    // The script never started: its help is not what failed.
    const text = review.sources.get(script.file) ?? "";
    return [missingModuleFinding({ name: script.name, file: script.file, text }, missing)];
  }
  const out = helpFindings(script, file, help);
  const run = await scriptRun(catalog, canonical, script.name, [], true, deps);
  if (!run.success && (run.error === "parse_error" || run.error === "timeout")) {
    out.push({
      rule: "script-json",
      level: "warning",
      file,
      message: run.error === "timeout"
        ? `\`${script.name} --json\` did not finish within ${deps.timeoutSeconds}s`
        : `\`${script.name} --json\` printed something other than one JSON document (${
          firstLine(run.message)
        })`,
    });
  }
  return out;
}

/** A script should explain its options: --help failing or printing nothing is a finding. */
function helpFindings(
  script: Script,
  file: string,
  help: Awaited<ReturnType<typeof scriptHelp>>,
): LintFinding[] {
  if (!help.success) {
    return [{
      rule: "script-help",
      level: "warning",
      file,
      message: `\`${script.name} --help\` failed (${help.error}: ${
        firstLine(help.message)
      }): scripts should explain their options`,
    }];
  }
  if (help.result.help_text.trim() === "") {
    return [{
      rule: "script-help",
      level: "warning",
      file,
      message: `\`${script.name} --help\` printed nothing: scripts should explain their options`,
    }];
  }
  return [];
}
