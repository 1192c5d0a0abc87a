/**
 * Stored skills for the library: a skill directory, or a directory of skill directories,
 * read in validation mode (catalog/loader), so an invalid `SKILL.md` throws at once with
 * its file and line instead of vanishing from a listing. Reading writes nothing anywhere.
 * Such skills are not installed, hence not trusted: their scripts and toolsets run only
 * when the program opts in with `allowUntrusted` (the CLI's `AGENT_SKILLS=all-untrusted`).
 */

import type { Diagnostic } from "../../core/manifest/manifest.ts";
import { SkillError } from "../../core/errors.ts";
import { inspectSkillDir } from "../../runtime/catalog/loader.ts";
import { skillDirsAt } from "../../runtime/catalog/discover.ts";
import type { LoadedSkill } from "../../runtime/catalog/catalog.ts";

/** A stored skill that cannot be used: `file` and `line` say where (`invalid_manifest`). */
export class SkillManifestError extends SkillError {
  /** The file with the problem, usually the skill's SKILL.md. */
  readonly file: string;
  /** 1-based line in `file`, when the problem has one. */
  readonly line: number | undefined;
  /** Every error found in the skill (the message names the first). */
  readonly problems: readonly string[];

  constructor(first: Diagnostic, problems: readonly string[]) {
    const where = first.line === undefined ? first.file : `${first.file}:${first.line}`;
    super("invalid_manifest", `Invalid skill at ${where}: ${first.message}`);
    this.name = "SkillManifestError";
    this.file = first.file;
    this.line = first.line;
    this.problems = problems;
  }
}

/**
 * The skills at `path`: itself when it holds a SKILL.md, else the skill directories
 * directly inside it. Throws {@link SkillManifestError} for the first invalid one.
 */
export async function loadStoredSkills(path: string): Promise<LoadedSkill[]> {
  const records: LoadedSkill[] = [];
  for (const dir of await skillDirsAt(path)) {
    const inspected = await inspectSkillDir(dir);
    const errors = inspected.diagnostics.filter((d) => d.level === "error");
    if (errors.length > 0 || inspected.record === undefined) {
      const first = errors[0] ?? { level: "error", file: dir, message: "cannot be loaded" };
      throw new SkillManifestError(
        first,
        errors.map((d) => `${d.file}${d.line === undefined ? "" : `:${d.line}`}: ${d.message}`),
      );
    }
    records.push(inspected.record);
  }
  return records;
}
