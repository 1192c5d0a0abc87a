/** Which sandbox scripts run in here, and why (runtime/sandbox/mode), for the doctor. */

import { missingProtections } from "../../core/policy/protections.ts";

export interface SandboxReport {
  mode: "bwrap" | "policy";
  setting: string;
  reason: string;
  hint?: string;
  /** False when SKILLS_SANDBOX=required cannot be met (scripts would be refused). */
  usable: boolean;
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
  return report;
}

/** The sandbox check's fields of the `--json` report. */
export function sandboxJson(sandbox: SandboxReport): Record<string, unknown> {
  return {
    sandbox: {
      mode: sandbox.mode,
      setting: sandbox.setting,
      reason: sandbox.reason,
      // What this machine's mode does not enforce (docs/security.md).
      missing: missingProtections(sandbox.mode).map((p) => ({
        id: p.id,
        protection: p.label,
        instead: typeof p.policy === "string" ? p.policy : null,
      })),
    },
  };
}
