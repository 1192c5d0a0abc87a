/**
 * Who signed an OCI artifact with Sigstore, as the organisation's policy asks it: every
 * signature attached the ways cosign and ToolHive attach them (oci_discovery.ts) verified
 * offline (bundle.ts) against the trusted root — the file SKILLS_TRUSTED_ROOT names (a
 * private Sigstore), else Sigstore's public-good root shipped with the binary — with the
 * identities the policy's signers name (any, when it names none) and its public keys.
 */

import { SkillError } from "../../core/errors.ts";
import { RegistryClient } from "../oci/client.ts";
import { findSigstoreSignatures } from "./oci_discovery.ts";
import { type SigstoreSigner, verifySigstoreBundle } from "./bundle.ts";

/** What to trust: the identities and key files the policy names, and the environment. */
interface SigstoreAsk {
  identities: readonly string[];
  keyFiles: readonly string[];
  env: Readonly<Record<string, string>>;
}

async function trustedRoot(env: Readonly<Record<string, string>>): Promise<unknown> {
  const named = env.SKILLS_TRUSTED_ROOT;
  if (named) {
    try {
      return JSON.parse(await Deno.readTextFile(named));
    } catch (error) {
      throw new SkillError(
        "parse_error",
        `Cannot read the trusted root ${named}: ${(error as Error).message}`,
      );
    }
  }
  return (await import("./public_good_trusted_root.json", { with: { type: "json" } })).default;
}

/** What a Sigstore signature is checked against: the root, the identities, the keys read. */
export async function sigstoreTrust(ask: SigstoreAsk) {
  const keys = [];
  for (const file of ask.keyFiles) {
    try {
      keys.push(await Deno.readTextFile(file));
    } catch (error) {
      throw new SkillError(
        "policy_denied",
        `Cannot read the public key ${file}: ${(error as Error).message}`,
      );
    }
  }
  return {
    trustedRoot: await trustedRoot(ask.env),
    identities: ask.identities.length > 0 ? ask.identities : ["*|*"],
    keys,
  };
}

/**
 * The Sigstore signer of `registry/repository@digest`, undefined when nothing is attached;
 * throws the refusal of the first signature when none verifies.
 */
export async function sigstoreSignerOf(
  registry: string,
  repository: string,
  digest: string,
  ask: SigstoreAsk,
  what: string,
): Promise<SigstoreSigner | undefined> {
  const client = new RegistryClient({ registry });
  const found = await findSigstoreSignatures(client, repository, digest);
  if (found.length === 0) return undefined;
  const trust = await sigstoreTrust(ask);
  let first: unknown;
  for (const signature of found) {
    try {
      const signer = await verifySigstoreBundle(signature.bundle, signature.artifact!, trust, what);
      if (signature.payloadDigest !== undefined && signature.payloadDigest !== digest) {
        throw new SkillError(
          "signature_invalid",
          `Cannot accept ${what}: its signature is for ${
            signature.payloadDigest || "another artifact"
          }`,
          { hint: "Nothing was installed" },
        );
      }
      return signer;
    } catch (error) {
      first ??= error;
    }
  }
  throw first;
}
