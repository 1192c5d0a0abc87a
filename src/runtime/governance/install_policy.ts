/**
 * The organisation's policy where skills come in — `add`, `update`, `install` (a project's
 * lockfile), the library's installs — asked by the lifecycle's change (one per command) and
 * the project restore: the source before anything is fetched, who signed it once it is, and
 * each planned skill's audit findings, network grants and environment patterns before
 * anything is written. The checks themselves (core/governance/policy_checks.ts) are loaded
 * only when a policy file exists.
 */

import type { SourceType } from "../../core/records/registry.ts";
import type { OrgPolicy } from "../../core/governance/org_policy.ts";
import type { SkillError } from "../../core/errors.ts";
import type { Severity } from "../../core/audit/audit_rules.ts";
import type { Lockfile } from "../../core/records/lockfile.ts";
import { acceptedUnsigned, signerOf } from "./enforce.ts";
import { dirname, join, resolve } from "../os/paths.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import { gitConfigArgs, runGit } from "../git/command.ts";
import type { Transport } from "../../core/sources/sources.ts";

export { loadOrgPolicy } from "./policy_files.ts";

type SourceLike = { type: SourceType; url: string };

function checks() {
  return import("../../core/governance/policy_checks.ts");
}

/** Throws the policy's refusal of installing from `source`, if any. */
export async function refuseSource(policy: OrgPolicy, source: SourceLike, what: string) {
  (await checks()).checkSource(policy, source, what);
}

/** Throws the policy's refusal of what a fetch's signature check found (`signed`), if any. */
async function refuseSigner(
  policy: OrgPolicy,
  signed: unknown,
  what: string,
  allowUnsigned: boolean,
) {
  (await checks()).checkSigner(policy, signerOf(signed), what, allowUnsigned);
}

/** What of a fetch the signature checks need: its source and the digest or commit pinned. */
interface FetchedLike {
  root: string;
  source: {
    kind: string;
    registry?: string;
    repository?: string;
    path?: string;
    transport?: Transport;
  };
  commit: { sha: string } | null;
  signed?: unknown;
}

/**
 * Who signed a fetch, as the policy accepts it: what the SSH signer policy found already, or
 * else, for an OCI artifact where the policy asks about signatures, its Sigstore signatures
 * (runtime/sigstore, loaded only then); then the policy's refusal, if any. Returns the signer
 * to record.
 */
export async function admitSigned(
  policy: OrgPolicy,
  fetched: FetchedLike,
  env: Readonly<Record<string, string>>,
  what: string,
  allowUnsigned = false,
): Promise<unknown> {
  let signed = fetched.signed;
  const asks = policy.layers.some((l) =>
    l.signaturesRequired?.value === true || (l.signers?.value.length ?? 0) > 0 ||
    (l.signingKeys?.value.length ?? 0) > 0
  );
  const { source, commit } = fetched;
  if (signed === undefined && asks && source.kind === "oci" && commit !== null) {
    const { sigstoreSignerOf } = await import("../sigstore/oci_signer.ts");
    signed = await sigstoreSignerOf(
      source.registry!,
      source.repository!,
      commit.sha,
      sigstoreAsk(policy, env),
      what,
    );
  }
  if (signed === undefined && asks && commit !== null) {
    signed = await gitsignOf(fetched, policy, env, what);
  }
  // Skills signed one by one (OMS, skill.oms.sig) are checked as each is planned.
  if (signed === undefined && asks && await carriesOms(fetched.root)) return undefined;
  await refuseSigner(policy, signed, what, allowUnsigned);
  // Accepted unsigned where the policy asks for signatures: said so in the record.
  if (signed === undefined && allowUnsigned && asks) {
    return { by: "", format: "none", accepted: "--allow-unsigned", at: new Date().toISOString() };
  }
  return signed;
}

/**
 * The gitsign (CMS) signature of a fetched git commit, verified (runtime/sigstore/gitsign.ts),
 * or undefined when its commit carries none. The repository is read in place or in the
 * fetch's clone, with the hardened git of runtime/git.
 */
async function gitsignOf(
  fetched: FetchedLike,
  policy: OrgPolicy,
  env: Readonly<Record<string, string>>,
  what: string,
): Promise<Record<string, unknown> | undefined> {
  const { source, commit } = fetched;
  if (source.kind !== "local-repository" && source.kind !== "remote-git") return undefined;
  const repository = source.kind === "local-repository"
    ? source.path
    : lstatSyncOrNull(join(fetched.root, ".git")) !== null
    ? fetched.root
    : undefined;
  if (repository === undefined || commit === null || source.transport === undefined) {
    return undefined;
  }
  const out = await runGit(
    [...gitConfigArgs(source.transport), "cat-file", "commit", "--", commit.sha],
    source.transport,
    { env },
    repository,
  );
  if (out.code !== 0) return undefined;
  const gitsign = await import("../sigstore/gitsign.ts");
  const split = gitsign.splitSignedCommit(out.stdout);
  if (split === undefined || !gitsign.isCmsSignature(split.signature)) return undefined;
  const { sigstoreTrust } = await import("../sigstore/oci_signer.ts");
  const trust = await sigstoreTrust(sigstoreAsk(policy, env));
  return {
    ...await gitsign.verifyGitsign(
      split.signature,
      split.payload,
      trust.trustedRoot,
      trust.identities,
      what,
    ),
  };
}

/** The identities and key files a policy names for Sigstore signatures. */
function sigstoreAsk(policy: OrgPolicy, env: Readonly<Record<string, string>>) {
  return {
    identities: policy.layers.flatMap((l) => l.signers?.value ?? []).filter((e) => e.includes("|")),
    keyFiles: policy.layers.flatMap((l) =>
      (l.signingKeys?.value ?? []).map((key) => resolve(dirname(l.file), key))
    ),
    env,
  };
}

/** Whether a fetch holds a `skill.oms.sig` in any folder (a few levels down, as skills sit). */
async function carriesOms(root: string, depth = 4): Promise<boolean> {
  const { hasOmsSignature } = await import("../sigstore/oms.ts");
  if (hasOmsSignature(root)) return true;
  if (depth === 0) return false;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(root)];
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (!entry.isDirectory || entry.name === ".git") continue;
    if (await carriesOms(join(root, entry.name), depth - 1)) return true;
  }
  return false;
}

/**
 * Who signed one planned skill of a fetch nobody signed as a whole, as the policy accepts it:
 * its `skill.oms.sig` (runtime/sigstore/oms.ts), or unsigned — refused unless the user's
 * --allow-unsigned may waive the rule, which is then recorded. Undefined when the policy asks
 * nothing about signatures.
 */
export async function admitSkillSigned(
  policy: OrgPolicy,
  dir: string,
  env: Readonly<Record<string, string>>,
  what: string,
  allowUnsigned = false,
): Promise<Record<string, unknown> | undefined> {
  const asks = policy.layers.some((l) =>
    l.signaturesRequired?.value === true || (l.signers?.value.length ?? 0) > 0 ||
    (l.signingKeys?.value.length ?? 0) > 0
  );
  if (!asks) return undefined;
  const oms = await import("../sigstore/oms.ts");
  let signed: Record<string, unknown> | undefined;
  if (oms.hasOmsSignature(dir)) {
    const { sigstoreTrust } = await import("../sigstore/oci_signer.ts");
    signed = { ...await oms.verifyOms(dir, await sigstoreTrust(sigstoreAsk(policy, env)), what) };
  }
  await refuseSigner(policy, signed, what, allowUnsigned);
  if (signed === undefined && allowUnsigned) {
    return { by: "", format: "none", accepted: "--allow-unsigned", at: new Date().toISOString() };
  }
  return signed;
}

/** What the policy looks at in a planned skill. */
interface PlannedFacts {
  canonical: string;
  findings: readonly { rule: string; severity: Severity; file: string }[];
  /** Its network grants as records keep them (`*`: any public host). */
  network: readonly string[];
  env: readonly string[];
}

/** The policy's refusal of one planned skill, or undefined. */
export async function planRefusal(
  policy: OrgPolicy,
  facts: PlannedFacts,
  allowRisky: boolean,
  action: "install" | "update",
): Promise<SkillError | undefined> {
  const c = await checks();
  const what = `${action} skill '${facts.canonical}'`;
  try {
    c.checkNetwork(policy, facts.network, what);
    c.checkEnv(policy, facts.env, what);
  } catch (error) {
    return error as SkillError;
  }
  return c.checkFindings(policy, facts.findings, allowRisky, what);
}

/**
 * Throws the policy's refusal of the first entry of a project's lockfile it refuses: its
 * source, its recorded signer, its approved network and environment — before `install`
 * fetches or writes anything.
 */
export async function refuseLocked(policy: OrgPolicy, lock: Lockfile): Promise<void> {
  const c = await checks();
  for (const [name, entry] of Object.entries(lock.skills).sort(([a], [b]) => a.localeCompare(b))) {
    const what = `install skill '${name}' from the lockfile`;
    c.checkSource(policy, entry.source, what);
    c.checkSigner(policy, signerOf(entry.signed), what, acceptedUnsigned(entry.signed));
    c.checkNetwork(policy, entry.permissions.network ?? [], what);
    c.checkEnv(policy, entry.permissions.env, what);
  }
}

/** Who signed, as one comparable label (`issuer|subject`, a principal, `key:…`), if anyone. */
function signerLabel(signed: unknown): string | undefined {
  const record = signed as { by?: unknown; issuer?: unknown; format?: unknown } | undefined;
  if (typeof record?.by !== "string" || record.by === "" || record.format === "none") {
    return undefined;
  }
  return typeof record.issuer === "string" ? `${record.issuer}|${record.by}` : record.by;
}

/** A change of signer between two records, both signed: trust on first use refuses it. */
export function signerChange(
  before: unknown,
  after: unknown,
): { from: string; to: string } | undefined {
  const from = signerLabel(before);
  const to = signerLabel(after);
  return from !== undefined && to !== undefined && from !== to ? { from, to } : undefined;
}
