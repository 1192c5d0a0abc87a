/**
 * A private Sigstore made by the test, with real keys and certificates: a certificate
 * authority standing in for Fulcio (openssl: a CA, and leaf certificates carrying an e-mail or
 * URI identity and Fulcio's issuer extension), a log key standing in for Rekor (node:crypto:
 * the signed entry timestamp over the entry, and a checkpoint over a one-entry tree), the
 * trusted root JSON naming both, bundles (v0.3, hashedrekord) signed over real bytes, and the
 * environment a CLI run needs to trust it under a signature policy. Nothing here verifies
 * anything: the product's verifier does.
 */

import { Buffer } from "node:buffer";
import crypto from "node:crypto";
import { join } from "node:path";

async function openssl(args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
}

/** JSON with keys sorted at every level (what Rekor signs). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : 1
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const b64 = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64");

export interface Identity {
  /** `email:alice@example.com` or `URI:https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main`. */
  san: string;
  issuer: string;
}

export interface PrivateSigstore {
  /** The trusted root JSON (protobuf-specs). */
  trustedRoot: Record<string, unknown>;
  /**
   * A keyless bundle over `artifact` by `identity`; `signedAt` is the log's integrated time
   * (default now): a time after the certificate's end makes it expired at signing.
   */
  sign(artifact: Uint8Array, identity: Identity, signedAt?: Date): Promise<Record<string, unknown>>;
  /** A leaf certificate for `identity` and its key, as files (what gitsign signs with). */
  issue(identity: Identity): Promise<{ cert: string; key: string }>;
}

/** Creates the CA and the log key in `dir`. */
export async function privateSigstore(dir: string): Promise<PrivateSigstore> {
  await openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"], dir);
  await openssl([
    "req",
    "-x509",
    "-new",
    "-key",
    "ca.key",
    "-sha256",
    "-days",
    "30",
    "-subj",
    "/O=skills-test/CN=fulcio.test.local",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
    "-out",
    "ca.pem",
  ], dir);
  const caDer = new crypto.X509Certificate(await Deno.readFile(join(dir, "ca.pem"))).raw;
  const log = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const logDer = log.publicKey.export({ type: "spki", format: "der" });
  const logId = crypto.createHash("sha256").update(logDer).digest();
  const start = new Date(Date.now() - 86_400_000).toISOString();
  const trustedRoot = {
    mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
    tlogs: [{
      baseUrl: "https://rekor.test.local",
      hashAlgorithm: "SHA2_256",
      publicKey: {
        rawBytes: b64(logDer),
        keyDetails: "PKIX_ECDSA_P256_SHA_256",
        validFor: { start },
      },
      logId: { keyId: b64(logId) },
    }],
    certificateAuthorities: [{
      subject: { organization: "skills-test", commonName: "fulcio.test.local" },
      uri: "https://fulcio.test.local",
      certChain: { certificates: [{ rawBytes: b64(caDer) }] },
      validFor: { start },
    }],
    ctlogs: [],
    timestampAuthorities: [],
  };
  let serial = 0;

  /** A leaf certificate for `identity`, valid from yesterday for two days, and its key. */
  async function leaf(identity: Identity) {
    const name = `leaf${++serial}`;
    await openssl(
      ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`],
      dir,
    );
    await openssl(["req", "-new", "-key", `${name}.key`, "-subj", "/", "-out", `${name}.csr`], dir);
    await Deno.writeTextFile(
      join(dir, `${name}.ext`),
      [
        "keyUsage=critical,digitalSignature",
        "extendedKeyUsage=codeSigning",
        `subjectAltName=critical,${identity.san}`,
        `1.3.6.1.4.1.57264.1.8=ASN1:UTF8String:${identity.issuer}`,
        "",
      ].join("\n"),
    );
    await openssl([
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "1",
      "-sha256",
      "-extfile",
      `${name}.ext`,
      "-out",
      `${name}.pem`,
    ], dir);
    return {
      pem: await Deno.readTextFile(join(dir, `${name}.pem`)),
      key: crypto.createPrivateKey(await Deno.readTextFile(join(dir, `${name}.key`))),
    };
  }

  return {
    trustedRoot,
    async issue(identity) {
      await leaf(identity);
      return { cert: join(dir, `leaf${serial}.pem`), key: join(dir, `leaf${serial}.key`) };
    },
    // The log integrates an entry a moment after the certificate is issued (whole seconds).
    async sign(artifact, identity, signedAt = new Date(Date.now() + 2000)) {
      const cert = await leaf(identity);
      const signature = crypto.sign("sha256", artifact, cert.key);
      const digest = crypto.createHash("sha256").update(artifact).digest();
      const body = Buffer.from(canonical({
        apiVersion: "0.0.1",
        kind: "hashedrekord",
        spec: {
          data: { hash: { algorithm: "sha256", value: digest.toString("hex") } },
          signature: {
            content: b64(signature),
            publicKey: { content: b64(Buffer.from(cert.pem)) },
          },
        },
      }));
      const integratedTime = Math.floor(signedAt.getTime() / 1000);
      const set = crypto.sign(
        "sha256",
        Buffer.from(canonical({
          body: b64(body),
          integratedTime,
          logID: logId.toString("hex"),
          logIndex: 0,
        })),
        log.privateKey,
      );
      const rootHash = crypto.createHash("sha256").update(Buffer.concat([Buffer.from([0]), body]))
        .digest();
      const note = `rekor.test.local - 1\n1\n${b64(rootHash)}\n`;
      const noteSig = crypto.sign("sha256", Buffer.from(note), log.privateKey);
      const checkpoint = `${note}\n\u2014 rekor.test.local ${
        b64(Buffer.concat([logId.subarray(0, 4), noteSig]))
      }\n`;
      return {
        mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
        verificationMaterial: {
          certificate: { rawBytes: b64(new crypto.X509Certificate(cert.pem).raw) },
          tlogEntries: [{
            logIndex: "0",
            logId: { keyId: b64(logId) },
            kindVersion: { kind: "hashedrekord", version: "0.0.1" },
            integratedTime: String(integratedTime),
            inclusionPromise: { signedEntryTimestamp: b64(set) },
            inclusionProof: {
              logIndex: "0",
              rootHash: b64(rootHash),
              treeSize: "1",
              hashes: [],
              checkpoint: { envelope: checkpoint },
            },
            canonicalizedBody: b64(body),
          }],
        },
        messageSignature: {
          messageDigest: { algorithm: "SHA2_256", digest: b64(digest) },
          signature: b64(signature),
        },
      };
    },
  };
}

/**
 * The environment of CLI runs that trust `sigstore` under `policy` (a policy.yaml's text): its
 * trusted root and the policy written into `dir` and named by SKILLS_TRUSTED_ROOT and
 * SKILLS_SYSTEM_POLICY, with HOME `dir` and the skills home `dir/home` (returned, to look into).
 */
export async function trustingEnv(
  dir: string,
  sigstore: PrivateSigstore,
  policy: string,
): Promise<{ home: string; env: Record<string, string> }> {
  const root = join(dir, "trusted_root.json");
  await Deno.writeTextFile(root, JSON.stringify(sigstore.trustedRoot));
  const policyFile = join(dir, "policy.yaml");
  await Deno.writeTextFile(policyFile, policy);
  const home = join(dir, "home");
  return {
    home,
    env: {
      SKILLS_HOME: home,
      HOME: dir,
      SKILLS_SYSTEM_POLICY: policyFile,
      SKILLS_TRUSTED_ROOT: root,
    },
  };
}

/**
 * A cosign-format key pair (`cosign generate-key-pair` writes an ECDSA P-256 key; its
 * `cosign.pub` is the PKIX public key in PEM) and a key-based bundle over `artifact`, without
 * a log entry (`cosign sign-blob --key … --tlog-upload=false --new-bundle-format`).
 */
export function cosignKeyPair() {
  const pair = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pub = pair.publicKey.export({ type: "spki", format: "pem" }) as string;
  const hint = b64(
    crypto.createHash("sha256").update(pair.publicKey.export({ type: "spki", format: "der" }))
      .digest(),
  );
  return {
    pub,
    /** A key-based bundle whose DSSE envelope carries `payload` (an in-toto statement). */
    signDsse(payload: Uint8Array): Record<string, unknown> {
      const type = "application/vnd.in-toto+json";
      const pae = Buffer.concat([
        Buffer.from(`DSSEv1 ${type.length} ${type} ${payload.length} `),
        Buffer.from(payload),
      ]);
      return {
        mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
        verificationMaterial: { publicKey: { hint }, tlogEntries: [] },
        dsseEnvelope: {
          payload: b64(payload),
          payloadType: type,
          signatures: [{ sig: b64(crypto.sign("sha256", pae, pair.privateKey)), keyid: "" }],
        },
      };
    },
    sign(artifact: Uint8Array): Record<string, unknown> {
      const signature = crypto.sign("sha256", artifact, pair.privateKey);
      const digest = crypto.createHash("sha256").update(artifact).digest();
      return {
        mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
        verificationMaterial: { publicKey: { hint }, tlogEntries: [] },
        messageSignature: {
          messageDigest: { algorithm: "SHA2_256", digest: b64(digest) },
          signature: b64(signature),
        },
      };
    },
  };
}
