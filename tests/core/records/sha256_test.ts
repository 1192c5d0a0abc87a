import assert from "node:assert/strict";
import { sha256HexSync } from "../../../src/core/records/sha256.ts";
import { sha256Hex } from "../../../src/core/records/digest.ts";

async function webCrypto(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let at = 0; at < length; at += 65536) {
    crypto.getRandomValues(bytes.subarray(at, Math.min(length, at + 65536)));
  }
  return bytes;
}

Deno.test("sha256HexSync: the published vectors", () => {
  const text = (s: string) => new TextEncoder().encode(s);
  assert.equal(
    sha256HexSync(text("")),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    sha256HexSync(text("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    sha256HexSync(text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256HexSync: WebCrypto's digest for every length across the padding boundaries", async () => {
  for (let length = 0; length <= 200; length++) {
    const bytes = randomBytes(length);
    assert.equal(sha256HexSync(bytes), await webCrypto(bytes), `length ${length}`);
  }
  for (const length of [4095, 4096, 65535, 65536, 65537, 1 << 20]) {
    const bytes = randomBytes(length);
    assert.equal(sha256HexSync(bytes), await webCrypto(bytes), `length ${length}`);
  }
});

Deno.test("sha256Hex: the same digest on both sides of the in-thread limit", async () => {
  for (const length of [64 * 1024, 64 * 1024 + 1]) {
    const bytes = randomBytes(length);
    assert.equal(await sha256Hex(bytes), await webCrypto(bytes), `length ${length}`);
  }
  assert.equal(await sha256Hex("abc"), await webCrypto(new TextEncoder().encode("abc")));
});
