/**
 * OpenSSF Model Signing (OMS) over a skill folder: a detached `skill.oms.sig` at its root, a
 * Sigstore bundle whose DSSE envelope carries an in-toto statement (predicate type
 * `https://model_signing/signature/v1.0`) listing every file as a resource — its path, `sha256`
 * and digest. The bundle is verified as any Sigstore bundle (bundle.ts: keyless or a key);
 * then its resources are held to our own per-file sha256s: every file of the folder (the
 * signature itself aside) must be listed with the same digest, and every listed file must be
 * there. The statement's root digest is not needed for that and is not relied upon (producers
 * computed it in more than one way).
 */

import { SkillError } from "../../core/errors.ts";
import { fileHashes } from "../trust/file_hashes.ts";
import { join } from "../os/paths.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import { type SigstoreSigner, verifySigstoreBundle } from "./bundle.ts";

/** Where an OMS signature sits in a skill folder. */
export const OMS_SIGNATURE = "skill.oms.sig";
const PREDICATE_TYPE = "https://model_signing/signature/v1.0";
const MAX_SIGNATURE_BYTES = 4 * 1024 * 1024;

/** Whether `dir` carries an OMS signature. */
export function hasOmsSignature(dir: string): boolean {
  return lstatSyncOrNull(join(dir, OMS_SIGNATURE))?.isFile === true;
}

function invalid(what: string, reason: string): SkillError {
  return new SkillError("signature_invalid", `Cannot accept ${what}: ${reason}`, {
    hint: "The skill's files are not the ones its skill.oms.sig lists; nothing was installed",
  });
}

/** The resources an OMS statement lists, by path, or why it is not one. */
function resourcesOf(payload: Uint8Array, what: string): Map<string, string> {
  let statement: Record<string, unknown>;
  try {
    statement = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw invalid(what, "its skill.oms.sig payload is not JSON");
  }
  if (statement.predicateType !== PREDICATE_TYPE) {
    throw invalid(
      what,
      `its skill.oms.sig is not an OMS v1.0 statement (${String(statement.predicateType)})`,
    );
  }
  const predicate = statement.predicate as { resources?: unknown } | undefined;
  const resources = Array.isArray(predicate?.resources) ? predicate.resources : [];
  const out = new Map<string, string>();
  for (const resource of resources as Record<string, unknown>[]) {
    if (resource?.algorithm !== "sha256" || typeof resource.name !== "string") {
      throw invalid(what, "its skill.oms.sig lists a resource that is not a sha256 of a file");
    }
    out.set(resource.name, String(resource.digest));
  }
  return out;
}

/**
 * Verifies `dir/skill.oms.sig` for `what`: the signature (identities and keys as any Sigstore
 * bundle), then its resources against the folder's files. Returns who signed.
 */
export async function verifyOms(
  dir: string,
  trust: Parameters<typeof verifySigstoreBundle>[2],
  what: string,
): Promise<SigstoreSigner> {
  const path = join(dir, OMS_SIGNATURE);
  const info = lstatSyncOrNull(path);
  if (info === null || !info.isFile || info.size > MAX_SIGNATURE_BYTES) {
    throw invalid(what, "its skill.oms.sig is not a readable signature file");
  }
  let bundle: Record<string, unknown>;
  try {
    bundle = JSON.parse(await Deno.readTextFile(path));
  } catch {
    throw invalid(what, "its skill.oms.sig is not JSON");
  }
  const signer = await verifySigstoreBundle(bundle, undefined, trust, what);
  const envelope = bundle.dsseEnvelope as { payload?: unknown } | undefined;
  if (typeof envelope?.payload !== "string") {
    throw invalid(what, "its skill.oms.sig has no DSSE envelope");
  }
  const listed = resourcesOf(Uint8Array.from(atob(envelope.payload), (c) => c.charCodeAt(0)), what);
  const files = await fileHashes(dir);
  files.delete(OMS_SIGNATURE);
  const problems: string[] = [];
  for (const [file, sha] of files) {
    if (!listed.has(file)) problems.push(`${file} is not listed`);
    else if (listed.get(file) !== sha) problems.push(`${file} changed`);
  }
  for (const file of listed.keys()) if (!files.has(file)) problems.push(`${file} is missing`);
  if (problems.length > 0) throw invalid(what, problems.slice(0, 5).join(", "));
  return { ...signer, format: "oms" };
}
