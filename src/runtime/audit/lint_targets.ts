/**
 * `skills lint <dir>...`'s one workflow: every skill under the folders given, linted
 * (lint.ts), with its scripts run when the command says so — always (`--run-scripts`),
 * never (`--no-scripts`), or for the skills this user trusted (installed or project ones,
 * found by their real folders). Without an OS sandbox, the user is asked once, through
 * `agreeUnconfined`, before any script runs as them.
 */

import { skillDirsAt } from "../catalog/discover.ts";
import { resolve } from "../os/paths.ts";
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

/** The real folders of the skills this user trusted (installed and project ones). */
async function trustedDirs(options: LintTargetsOptions): Promise<Set<string>> {
  const { loadCatalog } = await import("../catalog/catalog.ts");
  const catalog = await loadCatalog(options.home, { cwd: options.cwd, env: options.env });
  return new Set(
    catalog.skills.filter((s) => s.trusted && s.origin !== "core").map((s) => s.dir),
  );
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
  const { sandboxStatus } = await import("../exec/sandbox.ts");
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
  const trusted = options.scripts === "trusted" ? await trustedDirs(options) : new Set();
  let policyModeAgreed: boolean | undefined;
  for (const dir of dirs) {
    for (const target of await skillDirsAt(resolve(options.cwd, dir))) {
      const runScripts = options.scripts === "yes" ||
        (options.scripts === "trusted" && trusted.has(realDir(target)));
      if (runScripts && policyModeAgreed === undefined) {
        policyModeAgreed = await agreeToPolicyMode(options);
      }
      reports.push(
        await lintSkillDir(target, {
          home: options.home,
          env: options.env,
          signal: options.signal,
          runScripts,
          policyModeAgreed,
          timeoutSeconds: options.timeoutSeconds,
          countTokens: options.countTokens,
        }),
      );
    }
  }
  return reports;
}
