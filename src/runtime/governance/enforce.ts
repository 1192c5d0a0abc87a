/**
 * The organisation's policy where a skill's code starts — a script of `skills run`, `chat`,
 * `mcp` or the library, a toolset host — asked by the sandbox request every launch goes
 * through (exec/spawn/sandbox_request.ts): where the skill came from and who signed it (its registry
 * record), the network it and the user grant, the environment it asks for, and whether the OS
 * sandbox is there. Without a policy file this is three `lstat`s and a walk to the project's
 * root; nothing else is loaded.
 */

import type { SourceType } from "../../core/records/registry.ts";
import type { NetPolicy } from "../../core/policy/net_grants.ts";
import { formatNetGrant } from "../../core/policy/grant_syntax.ts";
import type { OrgPolicy } from "../../core/governance/org_policy.ts";
import { loadOrgPolicy, projectRootOf } from "./policy_files.ts";

/** What a launch knows of the skill it starts. */
interface LaunchedSkill {
  canonical: string;
  manifest: { envPatterns: readonly string[]; network?: NetPolicy | undefined };
  /** The registry entry of an installed skill: its source and who signed it. */
  entry?: SourceRecord | undefined;
  /** A project skill's lockfile entry, when the lockfile records it. */
  project?: { locked?: SourceRecord | undefined } | undefined;
}

interface SourceRecord {
  source: { type: SourceType; url: string };
  [extra: string]: unknown;
}

interface LaunchFacts {
  env: Readonly<Record<string, string>>;
  home: string;
  /** The caller's folder: the project whose policy applies is seen from there. */
  callerDir: string | undefined;
  sandboxed: boolean;
  /** Whether the manifest's own `permissions.network` is honoured. */
  declaredNetwork: boolean;
  /** `--allow-net` grants. */
  allowNet: readonly string[];
}

/** Every grant a launch would give, as text (`*` for any public host). */
function launchGrants(skill: LaunchedSkill, facts: LaunchFacts): string[] {
  const declared = facts.declaredNetwork ? skill.manifest.network : undefined;
  return [
    ...declared?.any ? ["*"] : [],
    ...(declared?.grants ?? []).map(formatNetGrant),
    ...(facts.env.SKILLS_ALLOW_NET ?? "").split(","),
    ...facts.allowNet.flatMap((value) => value.split(",")),
  ].map((g) => g.trim()).filter((g) => g !== "");
}

/** Throws the policy's refusal of this launch (`policy_denied`, `unsigned`, …), if any. */
export async function enforceLaunchPolicy(skill: LaunchedSkill, facts: LaunchFacts): Promise<void> {
  const root = facts.callerDir === undefined ? undefined : projectRootOf(facts.callerDir);
  const policy = await loadOrgPolicy(facts.env, facts.home, root);
  if (policy === null) return;
  await checkLaunch(policy, skill, facts);
}

async function checkLaunch(policy: OrgPolicy, skill: LaunchedSkill, facts: LaunchFacts) {
  const checks = await import("../../core/governance/policy_checks.ts");
  const what = `run skill '${skill.canonical}'`;
  checks.checkSandbox(policy, facts.sandboxed, what);
  const entry = skill.entry ?? skill.project?.locked;
  if (entry !== undefined) {
    checks.checkSource(policy, entry.source, what);
    checks.checkSigner(policy, signerOf(entry.signed), what, acceptedUnsigned(entry.signed));
  }
  checks.checkNetwork(policy, launchGrants(skill, facts), what);
  checks.checkEnv(policy, skill.manifest.envPatterns, what);
}

/** Whether a record keeps the user's `--allow-unsigned` acceptance (`signed.format: "none"`). */
export function acceptedUnsigned(signed: unknown): boolean {
  const record = signed as { format?: unknown; accepted?: unknown } | undefined;
  return record?.format === "none" && record.accepted === "--allow-unsigned";
}

/** The signer a record keeps (`signed`), in the form the policy matches, if it is one. */
export function signerOf(
  signed: unknown,
): { by: string; issuer?: string | undefined; key?: string | undefined } | undefined {
  if (typeof signed !== "object" || signed === null) return undefined;
  const record = signed as Record<string, unknown>;
  if (typeof record.by !== "string" || record.by === "" || record.format === "none") {
    return undefined;
  }
  return {
    by: record.by,
    issuer: typeof record.issuer === "string" ? record.issuer : undefined,
    key: typeof record.key === "string" ? record.key : undefined,
  };
}
