/**
 * A recorded signature (`signed` in the registry or lockfile) said for people: who signed and
 * how it was verified, what was accepted and when. `skills info` and `add` show it.
 */

/** `sigstore keyless: https://issuer|subject`, `ssh: alice@example.com (allowed_signers)`, … */
export function describeSignature(signed: unknown): string | null {
  if (typeof signed !== "object" || signed === null) return null;
  const r = signed as Record<string, unknown>;
  const text = (key: string) => typeof r[key] === "string" ? r[key] as string : undefined;
  let line: string;
  if (r.format === "none") {
    line = `unsigned, accepted with ${text("accepted") ?? "--allow-unsigned"}${
      text("at") ? ` on ${text("at")!.slice(0, 10)}` : ""
    }`;
    return line;
  }
  const by = text("by");
  if (by === undefined) return null;
  if (r.format === "gitsign") {
    line = `gitsign, ${text("issuer") ?? "?"}|${by} (commit CMS signature, certificate chain)`;
  } else if (r.format === "oms") {
    line = `OpenSSF model signing (skill.oms.sig), ${
      text("key") !== undefined ? `key ${text("key")}` : `${text("issuer") ?? "?"}|${by}`
    }, every file's digest matched`;
  } else if (r.format === "sigstore") {
    line = text("key") !== undefined
      ? `sigstore, key ${text("key")}`
      : `sigstore keyless, ${text("issuer") ?? "?"}|${by} (certificate chain, log entry)`;
  } else {
    line = `ssh, ${by} (allowed_signers)`;
  }
  if (text("previous") !== undefined) {
    line += `; signer changed from ${text("previous")}, accepted ${
      text("at")?.slice(0, 10) ?? ""
    } with ${text("accepted")}`;
  }
  return line;
}
