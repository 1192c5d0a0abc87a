/**
 * One Sigstore bundle checked offline against a trusted root. The cryptography is the
 * maintained verifier's (`@sigstore/verify`); this module decides what is asked of it and
 * turns its answer into ours:
 *
 * - keyless: the certificate must chain to a certificate authority of the trusted root at the
 *   time the transparency log (or a timestamp authority) says the signature was made, with an
 *   SCT when the root lists CT logs, a verified log entry when it lists logs, and its identity
 *   (`issuer|subject`) must match one the caller accepts;
 * - key-based: the signature must verify with one of the given public keys (cosign's PEM);
 *   any log entry the bundle carries is verified too.
 *
 * Refusals carry their own codes: `signature_invalid` (the artifact or the bundle changed),
 * `certificate_expired` (the certificate was not valid when it signed), `signer_not_allowed`
 * (a valid signature by an identity or key nobody accepted).
 */

import { SkillError } from "../../core/errors.ts";
import { globToRegExp } from "../../core/glob.ts";

/** What the caller accepts. */
interface SigstoreTrust {
  /** The trusted root (protobuf-specs JSON): Fulcio CAs, Rekor logs, CT logs, TSAs. */
  trustedRoot: unknown;
  /** Accepted certificate identities: `issuer|subject`, `*` matching anything in either. */
  identities: readonly string[];
  /** Accepted public keys (PEM, as `cosign generate-key-pair` writes `cosign.pub`). */
  keys: readonly string[];
}

/** Who signed, as records keep it. */
export interface SigstoreSigner {
  by: string;
  issuer?: string;
  key?: string;
  format: "sigstore" | "oms";
}

function invalid(what: string, reason: string): SkillError {
  return new SkillError("signature_invalid", `Cannot accept ${what}: ${reason}`, {
    hint:
      "The artifact or its signature was changed, or signed for something else; nothing was installed",
  });
}

/** Our error for the verifier's. */
function refusal(what: string, error: unknown): SkillError {
  const e = error as { code?: string; message?: string; cause?: { message?: string } };
  const detail = [e.message, e.cause?.message].filter(Boolean).join(": ");
  if (/not valid or expired/.test(detail)) {
    return new SkillError(
      "certificate_expired",
      `Cannot accept ${what}: its signing certificate was not valid when it signed (${detail})`,
      { hint: "A signature must be made while its certificate is valid; nothing was installed" },
    );
  }
  return invalid(what, `its Sigstore signature does not verify (${detail || String(error)})`);
}

function identityAccepted(entry: string, issuer: string | undefined, subject: string | undefined) {
  const bar = entry.indexOf("|");
  if (bar === -1 || issuer === undefined || subject === undefined) return false;
  return globToRegExp(entry.slice(0, bar)).test(issuer) &&
    globToRegExp(entry.slice(bar + 1)).test(subject);
}

/** `SHA256:<base64>` of a key's DER SubjectPublicKeyInfo, as `ssh-keygen -l` spells them. */
async function fingerprint(der: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", der as Uint8Array<ArrayBuffer>),
  );
  return `SHA256:${btoa(String.fromCharCode(...digest)).replace(/=+$/, "")}`;
}

type NodeCrypto = typeof import("node:crypto");

/**
 * A CommonJS package's exports: named on the module under `deno run`, only on its default
 * export once bundled (scripts/bundle.ts), so both are looked at.
 */
function commonJs<T extends object>(module: T, name: keyof T): T {
  if (module[name] !== undefined) return module;
  return (module as unknown as { default: T }).default;
}
let digestDefaulted = false;

/**
 * Node's `crypto.verify(undefined, …)` picks the key's default digest (SHA-256 for EC and RSA
 * keys, as OpenSSL does); Deno's node:crypto throws "no default digest" instead, and the
 * verifier relies on Node's behaviour for log signatures. Once per process, `verify` is given
 * that default when it is asked without a digest for such a key, as Node would; any other call
 * goes through unchanged.
 */
function defaultDigestLikeNode(nodeCrypto: NodeCrypto): void {
  if (digestDefaulted) return;
  digestDefaulted = true;
  const target = ((nodeCrypto as unknown as { default?: NodeCrypto }).default ?? nodeCrypto) as {
    verify: (...args: unknown[]) => unknown;
  };
  const original = target.verify.bind(target);
  target.verify = (algorithm: unknown, data: unknown, key: unknown, ...rest: unknown[]) => {
    const type = (key as { asymmetricKeyType?: string } | undefined)?.asymmetricKeyType;
    const digest = algorithm ?? (type === "ec" || type === "rsa" ? "sha256" : algorithm);
    return original(digest, data, key, ...rest);
  };
}

/**
 * Verifies `bundleJson` over `artifact` (the signed bytes) for `what`; returns who signed, or
 * throws one of the refusals above.
 */
// long because: one verification in its order — parse, trust material, keyless or each key, the identity — whose steps share the verifier's objects
export async function verifySigstoreBundle(
  bundleJson: unknown,
  /** The signed bytes of a message signature; a DSSE envelope carries its own payload. */
  artifact: Uint8Array | undefined,
  trust: SigstoreTrust,
  what: string,
): Promise<SigstoreSigner> {
  const [bundleModule, verifyModule, specsModule, nodeCrypto, { Buffer }] = await Promise.all([
    import("@sigstore/bundle"),
    import("@sigstore/verify"),
    import("@sigstore/protobuf-specs"),
    import("node:crypto"),
    import("node:buffer"),
  ]);
  const { bundleFromJSON } = commonJs(bundleModule, "bundleFromJSON");
  const verify = commonJs(verifyModule, "Verifier");
  const { TrustedRoot } = commonJs(specsModule, "TrustedRoot");
  defaultDigestLikeNode(nodeCrypto);
  let bundle;
  let root;
  try {
    bundle = bundleFromJSON(bundleJson);
  } catch (error) {
    throw invalid(what, `its Sigstore bundle is malformed (${(error as Error).message})`);
  }
  try {
    root = TrustedRoot.fromJSON(trust.trustedRoot);
  } catch (error) {
    throw new SkillError(
      "parse_error",
      `Cannot read the trusted root: ${(error as Error).message}`,
    );
  }
  const data = artifact === undefined ? undefined : Buffer.from(artifact);
  const material = bundle.verificationMaterial.content;
  if (material.$case === "publicKey") {
    if (trust.keys.length === 0) {
      throw new SkillError(
        "signer_not_allowed",
        `Cannot accept ${what}: it is signed with a key, and no public key is trusted`,
        {
          hint:
            "Name the signer's public key (cosign.pub) in the policy's signatures.keys; nothing was installed",
        },
      );
    }
    let last: unknown;
    for (const pem of trust.keys) {
      const key = nodeCrypto.createPublicKey(pem);
      const finder = () => ({ publicKey: key, validFor: () => true });
      const verifier = new verify.Verifier(verify.toTrustMaterial(root, finder), {
        tlogThreshold: 0,
        ctlogThreshold: 0,
        timestampThreshold: 0,
      });
      try {
        verifier.verify(verify.toSignedEntity(bundle, data));
        const der = key.export({ type: "spki", format: "der" });
        const id = await fingerprint(new Uint8Array(der));
        return { by: `key:${id}`, key: id, format: "sigstore" };
      } catch (error) {
        last = error;
      }
    }
    const detail = (last as { message?: string })?.message ?? "";
    if (/signature verification failed/.test(detail)) {
      throw new SkillError(
        "signer_not_allowed",
        `Cannot accept ${what}: it was not signed by a trusted key`,
        {
          hint: "Nothing was installed",
        },
      );
    }
    throw refusal(what, last);
  }
  const verifier = new verify.Verifier(verify.toTrustMaterial(root), {
    tlogThreshold: root.tlogs.length > 0 ? 1 : 0,
    ctlogThreshold: root.ctlogs.length > 0 ? 1 : 0,
    timestampThreshold: 1,
  });
  let signer;
  try {
    signer = verifier.verify(verify.toSignedEntity(bundle, data));
  } catch (error) {
    throw refusal(what, error);
  }
  const subject = signer.identity?.subjectAlternativeName;
  const issuer = signer.identity?.extensions?.issuer;
  if (!trust.identities.some((entry) => identityAccepted(entry, issuer, subject))) {
    throw new SkillError(
      "signer_not_allowed",
      `Cannot accept ${what}: it was signed by ${issuer ?? "?"}|${
        subject ?? "?"
      }, an identity nobody accepted`,
      {
        hint:
          "Name the identity in the policy's signatures.signers (issuer|subject); nothing was installed",
      },
    );
  }
  return { by: subject!, issuer: issuer!, format: "sigstore" };
}
