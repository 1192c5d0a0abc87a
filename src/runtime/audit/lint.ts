/**
 * `skills lint <dir>`: the author's checks (core/lint.ts) on one skill directory, plus
 * what only running it shows: each script is run with `--help`, and with `--json` alone,
 * through the real runner (exec/script_service: the same launcher, environment allowlist,
 * sandbox and timeout as `skills run`). The skill is the author's own and not installed,
 * so the trust gate is passed explicitly; `runScripts: false` runs nothing.
 */

import { basename, join, relative } from "../os/paths.ts";
import type { Diagnostic } from "../../core/manifest.ts";
import {
  lintBody,
  lintDescription,
  type LintFinding,
  lintMissingFiles,
  lintNameFolder,
  lintUnreferenced,
  mentionedPaths,
  needsTokenCount,
} from "../../core/lint.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { scriptHelp, scriptRun } from "../exec/script_service.ts";
import { readPrefixSync } from "../os/fs.ts";
import { skillFiles } from "./scan.ts";

export interface LintOptions {
  home: string;
  env: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
  /** Run each script with --help and with --json (default: yes). */
  runScripts: boolean;
  /** Per script run. */
  timeoutSeconds: number;
  /** Counts tokens (the tokenizer loads only for a body that could exceed the limit). */
  countTokens: (text: string) => Promise<number>;
}

export interface LintReport {
  dir: string;
  name: string | null;
  findings: LintFinding[];
  /** How many scripts the skill ships (run or not). */
  scripts: number;
}

const DOC = /\.(?:md|markdown|txt)$/i;
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
    return { dir: loose.dir, name: manifest?.name ?? null, findings, scripts: 0 };
  }
  findings.push(...await portability(dir, loose.diagnostics, rel));

  const text = new TextDecoder().decode(Deno.readFileSync(record.skillMdPath));
  const { parseSkillMd } = await import("../../core/manifest.ts");
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
  findings.push(...lintMissingFiles(mentionedPaths(parsed.body, parsed.bodyLine), files));
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
  findings.push(...lintUnreferenced(docs, files, record.scripts));
  findings.push(...lintNameFolder(manifest.name, basename(loose.dir), lineOf("name")));
  if (options.runScripts) findings.push(...await scriptFindings(record, options));
  findings.sort(byFileAndLine);
  return { dir: loose.dir, name: manifest.name, findings, scripts: record.scripts.length };
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
    if (seen.has(d.message) || loose.some((x) => x.level === "error" && x.message === d.message)) {
      continue;
    }
    seen.add(d.message);
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
async function scriptFindings(record: SkillRecord, options: LintOptions): Promise<LintFinding[]> {
  // Nobody granted this directory its declared hosts: its scripts run with no network.
  const offline = { ...record, manifest: { ...record.manifest, network: undefined } };
  const catalog: Catalog = {
    home: options.home,
    skills: [offline],
    failures: [],
    notes: [],
    shadowed: [],
    project: undefined,
  };
  const deps = {
    home: options.home,
    env: options.env,
    signal: options.signal,
    timeoutSeconds: options.timeoutSeconds,
    allowUntrusted: true,
  };
  const out: LintFinding[] = [];
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
  return out;
}
