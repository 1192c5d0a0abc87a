/** Which sandbox scripts run in here, and why (runtime/sandbox/mode), for the doctor. */

import { missingProtections } from "../../core/policy/protections.ts";

export interface SandboxReport {
  mode: "bwrap" | "policy";
  setting: string;
  reason: string;
  hint?: string;
  /** False when SKILLS_SANDBOX=required cannot be met (scripts would be refused). */
  usable: boolean;
  /**
   * The OS sandbox's copy-on-write workspace (runtime/sandbox/overlay.ts): the engine in
   * force, or why there is none (the workspace is then read-only for scripts).
   */
  overlay?: { engine: string | null; reason: string };
}

export async function sandboxReport(
  env: Record<string, string>,
  home: string,
): Promise<SandboxReport> {
  const { resolveSandbox } = await import("../sandbox/mode.ts");
  let status;
  try {
    status = await resolveSandbox(env, home);
  } catch (error) {
    return { mode: "policy", setting: "invalid", reason: (error as Error).message, usable: false };
  }
  const report: SandboxReport = {
    mode: status.kind,
    setting: status.setting,
    reason: status.reason,
    usable: status.kind === "bwrap" || status.setting !== "required",
  };
  if (status.kind === "policy" && status.hint !== undefined) report.hint = status.hint;
  if (status.kind === "bwrap") {
    const { overlayEngine } = await import("../sandbox/overlay.ts");
    const choice = overlayEngine(status.bwrap.root);
    report.overlay = choice.engine === undefined
      ? { engine: null, reason: `none: the workspace is read-only for scripts (${choice.reason})` }
      : {
        engine: choice.engine,
        reason: choice.engine === "overlay"
          ? "the kernel's overlayfs (a root CLI), mounted by the sandbox's init helper"
          : `fuse-overlayfs (${choice.fuse}), through /dev/fuse in the sandbox's user namespace`,
      };
  }
  return report;
}

/** The sandbox check's fields of the `--json` report. */
export function sandboxJson(sandbox: SandboxReport): Record<string, unknown> {
  return {
    sandbox: {
      mode: sandbox.mode,
      setting: sandbox.setting,
      reason: sandbox.reason,
      ...(sandbox.overlay === undefined ? {} : { overlay: sandbox.overlay }),
      // What this machine's mode does not enforce (docs/security.md).
      missing: missingProtections(sandbox.mode).map((p) => ({
        id: p.id,
        protection: p.label,
        instead: typeof p.policy === "string" ? p.policy : null,
      })),
    },
  };
}
