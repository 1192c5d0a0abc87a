/**
 * The OS sandbox request for a launch of a skill's code: the mode in force (or policy
 * mode), the organisation's launch policy, the network the skill declares and the user
 * grants, the limits and the notices, as runtime/sandbox takes them.
 */

import { UsageError } from "../../../core/errors.ts";
import type { NetPolicy } from "../../../core/policy/net_grants.ts";
import type { SandboxRequest } from "../../sandbox/launch.ts";
import type { SandboxLimits } from "../../sandbox/sandbox_init.ts";
import { assertSandbox, resolveSandbox } from "../../sandbox/mode.ts";
import type { LoadedSkill } from "../../catalog/catalog.ts";
import { enforceLaunchPolicy } from "../../governance/enforce.ts";
import { skillCacheIdOf } from "./skill_identity.ts";

function warnOnStderr(message: string): void {
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(`warning: ${message}\n`));
  } catch { /* no stderr: nothing to tell */ }
}

/** What a sandboxed launch of one skill needs besides the skill (see {@link sandboxRequestFor}). */
interface SandboxScope {
  /** `$SKILLS_HOME`. */
  home: string;
  /** The caller's effective environment (SKILLS_SANDBOX, SKILLS_ALLOW_NET, HOME, PATH). */
  env: Readonly<Record<string, string>>;
  /** Where the launcher starts. */
  cwd: string;
  /** The caller's directory: the workspace. */
  callerDir?: string | undefined;
  /** Whether scripts may write the workspace, and what to guard inside it. */
  workspace?: SandboxRequest["workspace"];
  /** `--write` folders with their guards. */
  grants?: SandboxRequest["grants"];
  /** False: the manifest's `permissions.network` is not honoured (lint of unreviewed code). */
  declaredNetwork?: boolean | undefined;
  /** Who the skill is, and which install of it (see SandboxRequest). */
  skillKey: string;
  /** {@link skillCacheIdOf} the key, when the caller has it already (a run plan). */
  skillCacheId?: string | undefined;
  skillGeneration: string;
  /** Connections the proxy let through (the run's receipt). */
  onAllowed?: ((target: string) => void) | undefined;
  /** Connections the proxy refused (the run's receipt), besides the user's notice. */
  onDenied?: ((target: string, reason: string) => void) | undefined;
  otherSkills?: readonly string[] | undefined;
  readOnly?: readonly string[] | undefined;
  /** `--allow-net` grants (already checked by the command's parser). */
  allowNet?: readonly string[] | undefined;
  limits: SandboxLimits;
  /**
   * Notices for the user: the sandbox missing in auto mode (once per process), refused
   * connections. Default: `warning: …` lines on stderr (chat, MCP, library users).
   */
  warn?: ((message: string) => void) | undefined;
  log?: ((message: string) => void) | undefined;
}

/** The sandbox mode in force here (bubblewrap, or policy mode and why), said to nobody. */
export function sandboxStatus(
  env: Readonly<Record<string, string>>,
  home: string,
): Promise<{ kind: "bwrap" | "policy"; reason: string }> {
  return resolveSandbox(env, home, () => {});
}

/**
 * The OS sandbox for a launch of `skill`, or undefined in policy mode (SKILLS_SANDBOX=off,
 * or auto without a working bubblewrap). Throws `dependency_unavailable` under
 * SKILLS_SANDBOX=required without one, and `usage` for a malformed SKILLS_ALLOW_NET.
 */
export async function sandboxRequestFor(
  skill:
    & Pick<LoadedSkill, "dir" | "manifest" | "canonical">
    & Partial<Pick<LoadedSkill, "entry" | "project">>,
  scope: SandboxScope,
): Promise<SandboxRequest | undefined> {
  const warn = scope.warn ?? warnOnStderr;
  const status = await resolveSandbox(scope.env, scope.home, warn);
  assertSandbox(status);
  // The organisation's policy (runtime/governance): every launch of a skill's code comes here.
  await enforceLaunchPolicy(skill, {
    env: scope.env,
    home: scope.home,
    callerDir: scope.callerDir,
    sandboxed: status.kind === "bwrap",
    declaredNetwork: scope.declaredNetwork !== false,
    allowNet: scope.allowNet ?? [],
  });
  if (status.kind !== "bwrap") return undefined;
  const network = await networkPolicy(skill, scope, warn);
  return {
    bwrap: status.bwrap,
    skillDir: skill.dir,
    cwd: scope.cwd,
    skillsHome: scope.home,
    skillName: skill.canonical,
    skillKey: scope.skillKey,
    skillCacheId: scope.skillCacheId ?? await skillCacheIdOf(scope.skillKey),
    skillGeneration: scope.skillGeneration,
    callerDir: scope.callerDir,
    workspace: scope.workspace,
    grants: scope.grants,
    otherSkills: scope.otherSkills ?? [],
    readOnly: scope.readOnly ?? [],
    network,
    limits: scope.limits,
    callerEnv: scope.env,
    onDenied: (target, reason) => {
      scope.onDenied?.(target, reason);
      warn?.(`The sandbox refused a connection to ${target}: ${reason}`);
    },
    onAllowed: scope.onAllowed,
    notice: warn,
    log: scope.log,
  };
}

/**
 * The network of a launch: the manifest's hosts (`permissions.network`, unless not honoured)
 * and the user's grants (SKILLS_ALLOW_NET, `--allow-net`); a skill's own grant of an address
 * that is not public is dropped with a warning. Throws `usage` for a malformed
 * SKILLS_ALLOW_NET.
 */
async function networkPolicy(
  skill: Pick<LoadedSkill, "manifest" | "canonical">,
  scope: SandboxScope,
  warn: (message: string) => void,
): Promise<NetPolicy> {
  const declared = scope.declaredNetwork === false ? undefined : skill.manifest.network;
  const blank = (values: readonly string[]) =>
    values.every((value) => value.split(",").every((entry) => entry.trim() === ""));
  if (
    (declared === undefined || declared.grants.length === 0) &&
    blank([scope.env.SKILLS_ALLOW_NET ?? "", ...scope.allowNet ?? []])
  ) {
    // No host named anywhere: nothing to parse or check. The policies and the address ranges
    // (three modules, ~0.3 ms) are loaded only for a sandbox that names hosts: policy mode
    // has no proxy, and most scripts no network.
    return { any: declared?.any === true, grants: [] };
  }
  const { formatNetGrant, mergeNetPolicies, namesNonPublicAddress, parseNetGrants } = await import(
    "../../../core/policy/net_grants.ts"
  );
  const fromEnv = parseNetGrants([scope.env.SKILLS_ALLOW_NET ?? ""]);
  if (fromEnv.errors.length > 0) {
    throw new UsageError(
      `Invalid SKILLS_ALLOW_NET: ${fromEnv.errors.join("; ")}`,
      "Use a comma-separated list of host or host:port, e.g. SKILLS_ALLOW_NET=api.example.com,127.0.0.1:8080",
    );
  }
  const fromFlags = parseNetGrants(scope.allowNet ?? []);
  // The user's own: a name granted so may reach a private address (net_grants.grantFor).
  const userGrants = [...fromEnv.grants, ...fromFlags.grants].map((grant) => ({
    ...grant,
    byUser: true,
  }));
  // A skill may not grant itself a local, private or metadata address: only the user may.
  const own = (declared?.grants ?? []).filter((grant) => {
    if (!namesNonPublicAddress(grant)) return true;
    const granted = userGrants.some((g) => g.host === grant.host);
    if (!granted) {
      warn(
        `${skill.canonical} declares ${formatNetGrant(grant)}, which is not a public address: ` +
          `it is reached only when you grant it (--allow-net ${formatNetGrant(grant)})`,
      );
    }
    return false;
  });
  return mergeNetPolicies(
    { any: declared?.any === true, grants: own },
    { any: false, grants: userGrants },
  );
}
