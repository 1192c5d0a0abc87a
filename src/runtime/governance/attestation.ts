/**
 * What a project proves about its skills: its lockfile as a bill of materials (CycloneDX or
 * SPDX), the digest of the whole set it pins, an attestation of that set — an in-toto
 * statement in a DSSE envelope, signed with an SSH key — and the check that what is installed
 * in `.agents/skills` is the attested set, so that a CI job or a pod can refuse to start.
 *
 * The installed set is read from disk, every file hashed: a folder the lockfile does not name
 * counts, a missing one is missing, an edited file changes its skill's digest.
 */

import { SkillError } from "../../core/errors.ts";
import type { Lockfile } from "../../core/records/lockfile.ts";
import { PROJECT_SKILLS_DIR } from "../../core/records/scope.ts";
import { VERSION } from "../../core/version.ts";
import { memberDigests, setDigest, type SetMember } from "../../core/governance/set_digest.ts";
import { cycloneDx, spdx } from "../../core/governance/sbom.ts";
import { readProjectLock } from "../store/lockfile.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { basename, join } from "../os/paths.ts";
import { lstatSyncOrNull, writeFileAtomic } from "../os/fs.ts";
import { preAuthEncoding, sshSignBytes, sshVerifyBytes } from "../signing/dsse_ssh.ts";
import { signerPolicy } from "../signing/signer_policy.ts";
import { loadOrgPolicy, projectRootOf } from "./policy_files.ts";

const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
const PREDICATE_TYPE = "https://agentskills.io/attestations/skill-set/v1";
const PAYLOAD_TYPE = "application/vnd.in-toto+json";
const TOOL = { name: "skills", version: VERSION };

/** The project seen from `cwd` and its lockfile; throws when there is none or it is invalid. */
function projectLock(cwd: string): { root: string; lock: Lockfile } {
  const root = projectRootOf(cwd);
  const read = readProjectLock(root);
  if (read.state === "absent") {
    throw new SkillError("not_found", `No skills-lock.json in ${root}`, {
      hint: "Record project skills with `skills add <source> --project`",
    });
  }
  if (read.state !== "ok") {
    const reason = read.state === "invalid"
      ? `it ${read.reason}`
      : "it was written by another tool";
    throw new SkillError("parse_error", `Cannot read ${read.path}: ${reason}`, {
      hint: "Run `skills install` to rewrite it in this tool's form, or restore it from git",
    });
  }
  return { root, lock: read.lock };
}

function lockMembers(lock: Lockfile): SetMember[] {
  return Object.entries(lock.skills).map(([name, entry]) => ({ name, files: entry.files }));
}

/** Writes `text` to `output` (atomically) when given; returns the text either way. */
async function emit(text: string, output: string | undefined): Promise<string> {
  if (output !== undefined) await writeFileAtomic(output, text);
  return text;
}

/** `skills lock export`: the lockfile seen from `cwd` as a CycloneDX or SPDX document. */
export async function exportSbom(
  cwd: string,
  format: "cyclonedx" | "spdx",
  output: string | undefined,
  now = new Date(),
): Promise<string> {
  const { root, lock } = projectLock(cwd);
  const input = {
    project: basename(root),
    skills: lock.skills,
    setDigest: await setDigest(lockMembers(lock)),
    tool: TOOL,
  };
  const document = format === "cyclonedx" ? cycloneDx(input) : spdx(input, now);
  return await emit(`${JSON.stringify(document, null, 2)}\n`, output);
}

/** Every skill folder in the project's `.agents/skills`, each file hashed. */
async function installedMembers(root: string): Promise<SetMember[]> {
  const dir = join(root, ...PROJECT_SKILLS_DIR);
  if (lstatSyncOrNull(dir) === null) return [];
  const members: SetMember[] = [];
  for (const entry of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (!entry.isDirectory || entry.name.startsWith(".")) continue;
    const hashes = await fileHashes(join(dir, entry.name));
    members.push({ name: entry.name, files: Object.fromEntries(hashes) });
  }
  return members;
}

/** `skills lock digest`: the set digest of the lockfile, or of what is installed. */
export async function setDigestOf(
  cwd: string,
  installed: boolean,
): Promise<{ digest: string; skills: { name: string; digest: string }[] }> {
  const { root, lock } = projectLock(cwd);
  const members = installed ? await installedMembers(root) : lockMembers(lock);
  return { digest: await setDigest(members), skills: await memberDigests(members) };
}

/** `skills lock attest`: the lockfile's set as a signed in-toto statement (DSSE envelope). */
export async function attestSet(
  cwd: string,
  key: string,
  output: string | undefined,
): Promise<{ text: string; digest: string }> {
  const { lock } = projectLock(cwd);
  const members = lockMembers(lock);
  const digest = await setDigest(members);
  const skills = await memberDigests(members);
  const statement = {
    _type: STATEMENT_TYPE,
    subject: [
      { name: "skill-set", digest: { sha256: digest.slice(7) } },
      ...skills.map((s) => ({ name: s.name, digest: { sha256: s.digest.slice(7) } })),
    ],
    predicateType: PREDICATE_TYPE,
    predicate: {
      setDigest: digest,
      skills: skills.map((s) => ({
        ...s,
        source: lock.skills[s.name]!.source.url,
        commit: lock.skills[s.name]!.commit,
      })),
      tool: TOOL,
    },
  };
  const payload = new TextEncoder().encode(JSON.stringify(statement));
  const signature = await sshSignBytes(key, preAuthEncoding(PAYLOAD_TYPE, payload));
  const envelope = {
    payloadType: PAYLOAD_TYPE,
    payload: btoa(String.fromCharCode(...payload)),
    signatures: [{ keyid: "", sig: btoa(signature) }],
  };
  return { text: await emit(`${JSON.stringify(envelope, null, 2)}\n`, output), digest };
}

/** What `skills lock verify` found. */
interface SetVerification {
  signer: string;
  attested: string;
  installed: string;
  /** Skills whose digest differs, or that only one side has. */
  differences: { name: string; attested: string | null; installed: string | null }[];
}

function decodeBase64(text: unknown, what: string): Uint8Array {
  try {
    if (typeof text !== "string") throw new Error();
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    throw new SkillError("signature_invalid", `Cannot read the attestation: ${what} is not base64`);
  }
}

/** The statement an envelope carries, once one of its signatures verifies; else throws. */
async function verifiedStatement(
  envelope: Record<string, unknown>,
  signers: string[],
): Promise<{ statement: Record<string, unknown>; signer: string }> {
  if (envelope.payloadType !== PAYLOAD_TYPE || !Array.isArray(envelope.signatures)) {
    throw new SkillError("signature_invalid", "Cannot read the attestation: not a DSSE envelope");
  }
  const payload = decodeBase64(envelope.payload, "its payload");
  const signed = preAuthEncoding(PAYLOAD_TYPE, payload);
  let reason = "it carries no signature";
  let tampered = false;
  for (const entry of envelope.signatures as { sig?: unknown }[]) {
    const signature = new TextDecoder().decode(decodeBase64(entry?.sig, "a signature"));
    let by: string | undefined;
    for (const file of signers) {
      const result = await sshVerifyBytes(file, signature, signed);
      if ("refused" in result) {
        reason = `${result.refused} (${file})`;
        tampered ||= result.tampered === true;
        by = undefined;
        break;
      }
      by ??= result.principal;
    }
    if (by !== undefined) {
      return { statement: JSON.parse(new TextDecoder().decode(payload)), signer: by };
    }
  }
  throw new SkillError(
    tampered ? "signature_invalid" : "signer_not_allowed",
    `Cannot verify the attestation: ${reason}`,
    { hint: "Nothing was changed; attest the set again with a key the allowed signers list" },
  );
}

/**
 * `skills lock verify --attestation FILE`: the attestation's signature against the allowed
 * signers (the files given, else `$SKILLS_HOME/allowed_signers` and the project's), the signer
 * against the organisation's policy, then the installed set against the attested one; throws
 * `attestation_mismatch` listing what differs.
 */
export async function verifySetAttestation(
  env: Readonly<Record<string, string>>,
  home: string,
  cwd: string,
  attestation: string,
  allowedSigners: readonly string[],
): Promise<SetVerification> {
  const root = projectRootOf(cwd);
  const signers = allowedSigners.length > 0
    ? [...allowedSigners]
    : signerPolicy(home, root)?.files ?? [];
  if (signers.length === 0) {
    throw new SkillError(
      "untrusted",
      "Cannot verify the attestation: no allowed signers to check it against",
      {
        hint: "Pass --allowed-signers FILE, or keep one in $SKILLS_HOME/allowed_signers",
      },
    );
  }
  let envelope: Record<string, unknown>;
  try {
    envelope = JSON.parse(await Deno.readTextFile(attestation));
  } catch (error) {
    throw new SkillError(
      "signature_invalid",
      `Cannot read the attestation ${attestation}: ${(error as Error).message}`,
    );
  }
  const { statement, signer } = await verifiedStatement(envelope, signers);
  const policy = await loadOrgPolicy(env, home, root);
  if (policy !== null) {
    const { checkSigner } = await import("../../core/governance/policy_checks.ts");
    checkSigner(policy, { by: signer }, "accept the attestation");
  }
  const predicate = statement.predicate as { setDigest?: unknown; skills?: unknown } | undefined;
  if (statement.predicateType !== PREDICATE_TYPE || typeof predicate?.setDigest !== "string") {
    throw new SkillError(
      "signature_invalid",
      "Cannot read the attestation: not a skill-set statement",
    );
  }
  const attestedSkills = Array.isArray(predicate.skills)
    ? predicate.skills as { name: string; digest: string }[]
    : [];
  const members = await installedMembers(root);
  const installed = await setDigest(members);
  const digests = await memberDigests(members);
  const result: SetVerification = {
    signer,
    attested: predicate.setDigest,
    installed,
    differences: differences(attestedSkills, digests),
  };
  if (installed !== predicate.setDigest) {
    const listed = result.differences.map((d) =>
      d.installed === null
        ? `${d.name} missing`
        : d.attested === null
        ? `${d.name} not attested`
        : `${d.name} changed`
    );
    throw new SkillError(
      "attestation_mismatch",
      `The installed skills are not the attested set (${installed} against ${predicate.setDigest}): ${
        listed.join(", ") || "they differ"
      }`,
      { hint: "Run `skills install --frozen` to restore the locked set, or attest the new one" },
    );
  }
  return result;
}

function differences(
  attested: readonly { name: string; digest: string }[],
  installed: readonly { name: string; digest: string }[],
): SetVerification["differences"] {
  const names = new Set([...attested.map((a) => a.name), ...installed.map((i) => i.name)]);
  return [...names].sort().flatMap((name) => {
    const a = attested.find((x) => x.name === name)?.digest ?? null;
    const i = installed.find((x) => x.name === name)?.digest ?? null;
    return a === i ? [] : [{ name, attested: a, installed: i }];
  });
}
