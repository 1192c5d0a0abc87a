/**
 * gitsign commit signatures: a commit whose `gpgsig` header is a CMS (PKCS #7) detached
 * signature, PEM `SIGNED MESSAGE`, made with a short-lived Fulcio certificate. Checked offline,
 * the parsing and cryptography being `@sigstore/core`'s (ASN.1, X.509, the key's signature):
 * the signed attributes' message digest is the sha256 of the commit without its signature, their
 * signature verifies with the certificate's key, the certificate chains to a certificate authority
 * of the trusted root and was valid at the signing time the signature states, and its identity
 * (`issuer|subject`) is one the policy accepts.
 *
 * What it does not prove: gitsign also records the signature in Rekor, and that entry is not in
 * the commit; without it the signing time is the signer's own claim (a Sigstore bundle's is the
 * log's). docs/signatures.md says so.
 */

import { SkillError } from "../../core/errors.ts";
import { globToRegExp } from "../../core/glob.ts";

const OID_SIGNED_DATA = "1.2.840.113549.1.7.2";
const OID_MESSAGE_DIGEST = "1.2.840.113549.1.9.4";
const OID_SIGNING_TIME = "1.2.840.113549.1.9.5";
const OID_ISSUER_V2 = "1.3.6.1.4.1.57264.1.8";
const OID_ISSUER_V1 = "1.3.6.1.4.1.57264.1.1";

/** A raw commit object split into the signature and the bytes it signs. */
export function splitSignedCommit(raw: string): { signature: string; payload: string } | undefined {
  const end = raw.indexOf("\n\n");
  const headers = (end === -1 ? raw : raw.slice(0, end)).split("\n");
  const kept: string[] = [];
  const signature: string[] = [];
  let inSignature = false;
  for (const line of headers) {
    if (line.startsWith("gpgsig ")) {
      inSignature = true;
      signature.push(line.slice(7));
    } else if (inSignature && line.startsWith(" ")) {
      signature.push(line.slice(1));
    } else {
      inSignature = false;
      kept.push(line);
    }
  }
  if (signature.length === 0) return undefined;
  return {
    signature: `${signature.join("\n")}\n`,
    payload: `${kept.join("\n")}${end === -1 ? "" : raw.slice(end)}`,
  };
}

/** Whether a commit signature is a CMS one (gitsign, or any X.509 signer). */
export function isCmsSignature(signature: string): boolean {
  return /^-----BEGIN (SIGNED MESSAGE|CMS|PKCS7)-----/.test(signature.trim());
}

function refused(
  what: string,
  reason: string,
  code: "signature_invalid" | "certificate_expired" | "signer_not_allowed" = "signature_invalid",
) {
  return new SkillError(code, `Cannot accept ${what}: ${reason}`, {
    hint: "Nothing was installed",
  });
}

/**
 * Verifies a CMS commit signature over `payload` against the CAs of `trustedRoot` and the
 * accepted `identities`; returns who signed.
 */
// long because: the CMS structure is walked in its one order (content info, signed data, certificates, signer info, attributes) and each step checks what the next relies on
export async function verifyGitsign(
  signature: string,
  payload: string,
  trustedRoot: unknown,
  identities: readonly string[],
  what: string,
): Promise<{ by: string; issuer: string; format: "gitsign" }> {
  const [core, { Buffer }, nodeCrypto] = await Promise.all([
    import("@sigstore/core"),
    import("node:buffer"),
    import("node:crypto"),
  ]);
  const { ASN1Obj, X509Certificate } = (core as unknown as { ASN1Obj?: unknown }).ASN1Obj
    ? core
    : (core as unknown as { default: typeof core }).default;
  const base64 = signature.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
  let signerInfo;
  let certificates;
  try {
    const info = ASN1Obj.parseBuffer(Buffer.from(base64, "base64"));
    if (info.subs[0]?.toOID() !== OID_SIGNED_DATA) throw new Error("not CMS signed data");
    const signedData = info.subs[1]!.subs[0]!;
    certificates = signedData.subs.find((s) => s.tag.isContextSpecific(0))?.subs ?? [];
    signerInfo = signedData.subs[signedData.subs.length - 1]!.subs[0]!;
  } catch (error) {
    throw refused(what, `its commit signature is not CMS (${(error as Error).message})`);
  }
  const attributes = signerInfo.subs.find((s) => s.tag.isContextSpecific(0));
  const signatureValue = signerInfo.subs.find((s) => s.tag.isOctetString());
  if (attributes === undefined || signatureValue === undefined) {
    throw refused(what, "its commit signature has no signed attributes");
  }
  const attribute = (oid: string) =>
    attributes.subs.find((a) => a.subs[0]?.toOID() === oid)?.subs[1]?.subs[0];
  const digest = attribute(OID_MESSAGE_DIGEST)?.value;
  const signedAt = attribute(OID_SIGNING_TIME)?.toDate();
  const expected = nodeCrypto.createHash("sha256").update(payload).digest();
  if (digest === undefined || !expected.equals(digest)) {
    throw refused(what, "its commit signature is not over this commit (message digest differs)");
  }
  const certs = certificates.map((c) => X509Certificate.parse(Buffer.from(c.toDER())));
  const signed = Buffer.from(attributes.toDER());
  signed[0] = 0x31; // the signature is over the attributes as a SET, not as [0]
  const leaf = certs.find((cert) => {
    const key = nodeCrypto.createPublicKey({ key: cert.publicKey, format: "der", type: "spki" });
    return nodeCrypto.verify("sha256", signed, key, signatureValue.value);
  });
  if (leaf === undefined) throw refused(what, "its commit signature does not verify");
  const roots =
    ((trustedRoot as { certificateAuthorities?: unknown[] }).certificateAuthorities ?? [])
      .flatMap((ca) =>
        ((ca as { certChain?: { certificates?: { rawBytes: string }[] } }).certChain
          ?.certificates ?? [])
          .map((c) => X509Certificate.parse(Buffer.from(c.rawBytes, "base64")))
      );
  const at = signedAt ?? new Date();
  const issuer = [...roots, ...certs].find((ca) => ca !== leaf && leaf.verify(ca));
  if (issuer === undefined || !roots.some((r) => r.equals(issuer) || issuer.verify(r))) {
    throw refused(
      what,
      "its signing certificate does not chain to a trusted certificate authority",
    );
  }
  if (!leaf.validForDate(at) || !issuer.validForDate(at)) {
    throw refused(
      what,
      `its signing certificate was not valid when it signed (${at.toISOString()})`,
      "certificate_expired",
    );
  }
  const subject = leaf.subjectAltName ?? "";
  const v2 = leaf.extension(OID_ISSUER_V2);
  const oidcIssuer = v2
    ? v2.valueObj.subs?.[0]?.value.toString("ascii") ?? ""
    : leaf.extension(OID_ISSUER_V1)?.value.toString("ascii") ?? "";
  const accepted = (identities.length > 0 ? identities : ["*|*"]).some((entry) => {
    const bar = entry.indexOf("|");
    return bar !== -1 && globToRegExp(entry.slice(0, bar)).test(oidcIssuer) &&
      globToRegExp(entry.slice(bar + 1)).test(subject);
  });
  if (!accepted) {
    throw refused(
      what,
      `it was signed by ${oidcIssuer}|${subject}, an identity nobody accepted`,
      "signer_not_allowed",
    );
  }
  return { by: subject, issuer: oidcIssuer, format: "gitsign" };
}
