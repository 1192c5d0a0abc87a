/**
 * `skills lint <dir>...`'s one workflow: every skill under the folders given, linted
 * (lint.ts), with its scripts run when the command says so — always (`--run-scripts`),
 * never (`--no-scripts`), or for the skills this user trusted (installed or project ones,
 * found by their real folders). A trusted skill's files are first compared with the digest
 * the user trusted, as `run` does: unchanged, its scripts run from the verified copy; changed
 * (a pull, a checkout, a hostile commit), it is a skill under review again — its scripts run
 * only with `--run-scripts`, and a finding says why. Without an OS sandbox, the user is asked
 * once, through `agreeUnconfined`, before any script runs as them.
 */

import { isSkillError } from "../../core/errors.ts";
import type { LintFinding } from "../../core/audit/lint_checks.ts";
import type { LoadedSkill } from "../catalog/loader.ts";
import { linkedFolderName, skillDirsAt } from "../catalog/discover.ts";
import { resolve } from "../os/paths.ts";
import { assertRunnable } from "../trust/gate.ts";
import { type LintOptions, type LintReport, lintSkillDir } from "./lint.ts";

interface LintTargetsOptions
  extends Pick<LintOptions, "home" | "env" | "signal" | "timeoutSeconds" | "countTokens"> {
  /** Where relative folders are read from. */
  cwd: string;
  /** Whose scripts run: every skill's, none, or the trusted skills'. */
  scripts: "yes" | "no" | "trusted";
  /**
   * Asked (once, when a script is first to run) when there is no OS sandbox here: may the
   * scripts run as the user, unconfined? `reason` says why there is no sandbox.
   */
  agreeUnconfined: (reason: string) => Promise<boolean>;
}

/** The skills this user trusted (installed and project ones), by their real folders. */
async function trustedSkills(options: LintTargetsOptions): Promise<Map<string, LoadedSkill>> {
  const { loadCatalog } = await import("../catalog/catalog.ts");
  const catalog = await loadCatalog(options.home, { cwd: options.cwd, env: options.env });
  return new Map(
    catalog.skills.filter((s) => s.trusted && s.origin !== "core").map((s) => [s.dir, s]),
  );
}

/**
 * A trusted skill as lint may run it: its record when its files still match the digest the
 * user trusted (`run`'s check), or why it is under review again.
 */
async function trustedNow(
  skill: LoadedSkill,
  home: string,
): Promise<{ record: LoadedSkill } | { changed: string }> {
  try {
    await assertRunnable(skill, home, { explain: false });
    return { record: skill };
  } catch (error) {
    if (!isSkillError(error) || error.code !== "integrity_mismatch") throw error;
    return { changed: error.message };
  }
}

/** The finding a trusted skill that changed gets: whether its scripts ran, and how. */
function changedFinding(changed: string, scripts: LintTargetsOptions["scripts"]): LintFinding {
  return {
    rule: "script-unchecked",
    level: "warning",
    file: "SKILL.md",
    message: scripts === "yes"
      ? `${changed}: its scripts ran under review, as an untrusted skill's`
      : `${changed}: its scripts were not run (lint with --run-scripts to run them under review)`,
  };
}

/** The folder a path names, links resolved; the path itself when it cannot be resolved. */
function realDir(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/** True when there is an OS sandbox (nothing to agree to), else what the user answers. */
async function agreeToPolicyMode(options: LintTargetsOptions): Promise<boolean> {
  const { sandboxStatus } = await import("../exec/spawn/sandbox_request.ts");
  const status = await sandboxStatus(options.env, options.home);
  if (status.kind === "bwrap") return true;
  return await options.agreeUnconfined(status.reason);
}

/** Lints every skill under each of `dirs`, in order. */
export async function lintTargets(
  dirs: readonly string[],
  options: LintTargetsOptions,
): Promise<LintReport[]> {
  const reports: LintReport[] = [];
  const trusted = options.scripts === "no" ? new Map() : await trustedSkills(options);
  let policyModeAgreed: boolean | undefined;
  for (const dir of dirs) {
    const named = resolve(options.cwd, dir);
    for (const target of await skillDirsAt(named)) {
      const skill = trusted.get(realDir(target));
      const now = skill === undefined ? undefined : await trustedNow(skill, options.home);
      const verified = now !== undefined && "record" in now ? now.record : undefined;
      const runScripts = options.scripts === "yes" || verified !== undefined;
      if (runScripts && policyModeAgreed === undefined) {
        policyModeAgreed = await agreeToPolicyMode(options);
      }
      const report = await lintSkillDir(target, {
        home: options.home,
        env: options.env,
        signal: options.signal,
        runScripts,
        trusted: verified,
        policyModeAgreed,
        timeoutSeconds: options.timeoutSeconds,
        countTokens: options.countTokens,
        folderName: linkedFolderName(named, target),
      });
      if (now !== undefined && "changed" in now) {
        report.findings.unshift(changedFinding(now.changed, options.scripts));
      }
      reports.push(report);
    }
  }
  return reports;
}
