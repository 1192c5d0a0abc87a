import assert from "node:assert/strict";
import { payloadMismatch, signaturePayload } from "../../../src/runtime/oci/signature.ts";

const DIGEST = `sha256:${"a".repeat(64)}`;
const AT = { registry: "ghcr.io", repository: "acme/pdf", tag: "1.0.0" };

Deno.test("payloadMismatch() accepts the payload of this repository and tag, or any tag when pulled by digest", () => {
  const payload = signaturePayload(AT, DIGEST);
  assert.equal(payloadMismatch({ signature: "", payload }, AT, DIGEST), undefined);
  assert.equal(
    payloadMismatch({ signature: "", payload }, { ...AT, tag: null }, DIGEST),
    undefined,
  );
});

Deno.test("payloadMismatch() refuses another repository, registry, tag or digest, and a signature without a payload", () => {
  const payload = signaturePayload(AT, DIGEST);
  const found = { signature: "", payload };
  assert.match(
    payloadMismatch(found, { ...AT, repository: "evil/pdf" }, DIGEST)!,
    /signed for ghcr\.io\/acme\/pdf, not ghcr\.io\/evil\/pdf/,
  );
  assert.match(
    payloadMismatch(found, { ...AT, registry: "mirror.example" }, DIGEST)!,
    /signed for ghcr\.io\/acme\/pdf, not mirror\.example\/acme\/pdf/,
  );
  assert.match(
    payloadMismatch(found, { ...AT, tag: "2.0.0" }, DIGEST)!,
    /tag 1\.0\.0, not 2\.0\.0/,
  );
  assert.match(
    payloadMismatch(found, AT, `sha256:${"b".repeat(64)}`)!,
    /made for other content/,
  );
  // What `publish --sign` made before payloads: the digest alone, valid for any copy.
  assert.match(
    payloadMismatch({ signature: "", payload: undefined }, AT, DIGEST)!,
    /binds no repository or tag.*sign it again/,
  );
  assert.match(payloadMismatch({ signature: "", payload: "{" }, AT, DIGEST)!, /not JSON/);
});
