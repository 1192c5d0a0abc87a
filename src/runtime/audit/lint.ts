/**
 * `skills lint <dir>`: the author's checks (core/audit/lint.ts) on one skill directory, plus
 * what only running it shows: each command-line script (helper modules aside, see
 * core/lint.helperModules) is run with `--help`, and with `--json` alone,
 * through the real runner (exec/script_service: the same launcher, environment allowlist,
 * sandbox and timeout as `skills run`) — only when the command says so (a trusted skill, or
 * `--run-scripts`), always in the OS sandbox with no network but what the user grants (the
 * skill's own declared hosts are not honoured: nobody reviewed them), and without a
 * sandbox only when the user agreed (`policyModeAgreed`).
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
} from "../../core/audit/lint.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { scriptHelp, scriptRun } from "../exec/script_service.ts";
import { sandboxStatus } from "../exec/sandbox.ts";
import { lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";
import { skillFiles } from "./scan.ts";

export interface LintOptions {
  home: string;
  env: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
  /** Run each script with --help and with --json. */
  runScripts: boolean;
  /** Without a working OS sandbox, scripts run only when the user agreed to policy mode. */
  policyModeAgreed?: boolean;
  /** Per script run. */
  timeoutSeconds: number;
  /** Counts tokens (the tokenizer loads only for a body that could exceed the limit). */
  countTokens: (text: string) => Promise<number>;
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

export async function lintSkillDir(dir: string, options: LintOptions): Promise<LintReport> {
  const loose = await inspectSkillDir(dir);
  const rel = (file: string) => relative(loose.dir, file).replaceAll("\\", "/") || "SKILL.md";
  const findings: LintFinding[] = loose.diagnostics.filter((d) => d.level === "error").map((d) => ({
    rule: "invalid",
    level: "error" as const,
    file: rel(d.file),
    ...(d.line === undefined ? {} : { line: d.line }),
    message: d.message,
  }));
  const manifest = loose.manifest;
  const record = loose.record;
  if (manifest === undefined || record === undefined) {
    return { dir: loose.dir, name: manifest?.name ?? null, findings, scriptsRun: false };
  }
  findings.push(...await portability(dir, loose.diagnostics, rel));

  const text = new TextDecoder().decode(Deno.readFileSync(record.skillMdPath));
  const { parseSkillMd } = await import("../../core/manifest/manifest.ts");
  const parsed = await parseSkillMd(new TextEncoder().encode(text), "SKILL.md");
  const lineOf = (key: string) => {
    const index = text.split("\n").findIndex((l) => l.startsWith(`${key}:`));
    return index === -1 ? 1 : index + 1;
  };
  findings.push(...lintDescription(manifest.description, lineOf("description")));
  const bytes = new TextEncoder().encode(parsed.body).length;
  const tokens = needsTokenCount(bytes) ? await options.countTokens(parsed.body) : undefined;
  findings.push(...lintBody(parsed.body, parsed.bodyLine, tokens));

  const files = skillFiles(loose.dir).filter((f) =>
    !f.split("/").some((part) => part.startsWith(".") || part === "__pycache__")
  );
  findings.push(
    ...lintMissingFiles(
      mentionedPaths(parsed.body, parsed.bodyLine),
      files,
      besideSkill(loose.dir),
    ),
  );
  const docs = [
    { path: "SKILL.md", text },
    ...files.filter((f) => DOC.test(f) && f !== "SKILL.md")
      .map((path) => ({
        path,
        text: new TextDecoder().decode(
          readPrefixSync(join(loose.dir, ...path.split("/")), MAX_DOC_BYTES).bytes,
        ),
      })),
  ];
  // Helper modules (utils.py) are not commands: not run, not asked to be mentioned. Every
  // code file of scripts/ is read, for what imports what (a package's __init__.py too).
  const sources = new Map(
    files.filter((f) => f.startsWith("scripts/") && CODE.test(f)).map((f) => [
      f.slice("scripts/".length),
      new TextDecoder().decode(
        readPrefixSync(join(loose.dir, ...f.split("/")), MAX_DOC_BYTES).bytes,
      ),
    ]),
  );
  for (const script of record.scripts) {
    if (!sources.has(script.file)) {
      const bytes = readPrefixSync(script.path, MAX_DOC_BYTES).bytes;
      sources.set(script.file, new TextDecoder().decode(bytes));
    }
  }
  const byFile = new Map(record.scripts.map((s) => [s.file, s]));
  const modules = helperModules(
    [...sources].map(([file, text]) => ({ file, text })),
    (file) => byFile.has(file) && scriptMentioned(docs, byFile.get(file)!),
  );
  const commands = record.scripts.filter((s) => !modules.has(s.file));
  // A module is imported, never run on its own: it needs no PEP 723 block of its own.
  const moduleFiles = new Set([...modules.keys()].map((file) => `scripts/${file}`));
  findings.splice(
    0,
    findings.length,
    ...findings.filter((f) => !(moduleFiles.has(f.file) && /PEP 723/.test(f.message))),
  );
  findings.push(...lintUnreferenced(docs, files, commands));
  findings.push(...lintNameFolder(manifest.name, basename(loose.dir), lineOf("name")));
  const scripts = options.runScripts
    ? await scriptFindings({ ...record, scripts: commands }, sources, options)
    : undefined;
  findings.push(...scripts?.findings ?? []);
  findings.sort(byFileAndLine);
  return { dir: loose.dir, name: manifest.name, findings, scriptsRun: scripts?.ran === true };
}

/** How many folders above a skill a path it mentions may be found (plugin, repository). */
const OUTSIDE_LEVELS = 3;

/**
 * Finds a path a skill mentions in a folder above it (`scripts/x.py` of the plugin or
 * repository holding the skill), up to the repository's root; answers where, relative to
 * the skill.
 */
function besideSkill(dir: string): (path: string) => string | undefined {
  return (path) => {
    let folder = dir;
    for (let up = 1; up <= OUTSIDE_LEVELS; up++) {
      if (lstatSyncOrNull(join(folder, ".git")) !== null) return undefined;
      const parent = dirname(folder);
      if (parent === folder) return undefined;
      folder = parent;
      if (lstatSyncOrNull(join(folder, ...path.split("/"))) !== null) {
        return `${"../".repeat(up)}${path}`;
      }
    }
    return undefined;
  };
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

type SkillRecord = Catalog["skills"][number];

/** Runs every script with --help, then with --json alone, through the real runner. */
async function scriptFindings(
  record: SkillRecord,
  sources: ReadonlyMap<string, string>,
  options: LintOptions,
): Promise<{ findings: LintFinding[]; ran: boolean }> {
  const catalog: Catalog = {
    home: options.home,
    skills: [record],
    failures: [],
    notes: [],
    shadowed: [],
    project: undefined,
  };
  const out: LintFinding[] = [];
  const sandbox = await sandboxStatus(options.env, options.home);
  if (sandbox.kind !== "bwrap" && options.policyModeAgreed !== true) {
    const findings = record.scripts.map((script) => ({
      rule: "script-unchecked",
      level: "warning" as const,
      file: `scripts/${script.file}`,
      message: `\`${script.name}\` was not run: no OS sandbox here (${sandbox.reason}), and ` +
        "scripts of a skill under review run outside one only when you agree",
    }));
    return { findings, ran: false };
  }
  const deps = {
    home: options.home,
    env: options.env,
    signal: options.signal,
    timeoutSeconds: options.timeoutSeconds,
    allowUntrusted: true,
    // The skill's own permissions.network is not honoured under review: nobody approved it.
    declaredNetwork: false,
  };
  for (const script of record.scripts) {
    const file = `scripts/${script.file}`;
    const firstLine = (text: string) => text.split("\n")[0]!.slice(0, 200);
    const help = await scriptHelp(catalog, record.canonical, script.name, deps);
    if (!help.success && help.error === "dependency_unavailable") {
      // Nothing to judge: the script cannot start on this machine (no uv for its dependencies).
      out.push({
        rule: "script-unchecked",
        level: "warning",
        file,
        message: `\`${script.name}\` was not run: ${firstLine(help.message)}`,
      });
      continue;
    }
    const missing = help.success ? undefined : missingModule(help.message);
    if (missing !== undefined) {
      // The script never started: its help is not what failed.
      const text = sources.get(script.file) ?? "";
      out.push(missingModuleFinding({ name: script.name, file: script.file, text }, missing));
      continue;
    }
    if (!help.success) {
      out.push({
        rule: "script-help",
        level: "warning",
        file,
        message: `\`${script.name} --help\` failed (${help.error}: ${
          firstLine(help.message)
        }): scripts should explain their options`,
      });
    } else if (help.result.help_text.trim() === "") {
      out.push({
        rule: "script-help",
        level: "warning",
        file,
        message: `\`${script.name} --help\` printed nothing: scripts should explain their options`,
      });
    }
    const run = await scriptRun(catalog, record.canonical, script.name, [], true, deps);
    if (!run.success && (run.error === "parse_error" || run.error === "timeout")) {
      out.push({
        rule: "script-json",
        level: "warning",
        file,
        message: run.error === "timeout"
          ? `\`${script.name} --json\` did not finish within ${options.timeoutSeconds}s`
          : `\`${script.name} --json\` printed something other than one JSON document (${
            firstLine(run.message)
          })`,
      });
    }
  }
  return { findings: out, ran: true };
}
