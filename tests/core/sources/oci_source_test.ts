/** The OCI source kind in core: `oci://` sources parsed and checked, OCI lock entries. */

import assert from "node:assert/strict";
import { parseLockfileText } from "../../../src/core/records/lockfile.ts";
import { describeSource, parseSource, shortRevision } from "../../../src/core/sources/sources.ts";

const DIGEST = `sha256:${"c".repeat(64)}`;

Deno.test("parseSource() reads oci://registry/repository with a tag, a digest or neither", () => {
  assert.deepEqual(parseSource("oci://ghcr.io/acme/skills/pdf:1.2.0"), {
    type: "oci",
    url: "oci://ghcr.io/acme/skills/pdf",
    registry: "ghcr.io",
    repository: "acme/skills/pdf",
    subpath: "",
    skill: undefined,
    ref: "1.2.0",
  });
  const pinned = parseSource(`oci://127.0.0.1:5000/pdf@${DIGEST}`);
  assert.equal(pinned.type === "oci" && pinned.registry, "127.0.0.1:5000");
  assert.equal(pinned.ref, DIGEST);
  assert.equal(describeSource(pinned), `oci://127.0.0.1:5000/pdf@${DIGEST}`);
  assert.equal(parseSource("oci://ghcr.io/acme/pdf").ref, undefined);
});

Deno.test("parseSource() refuses a malformed oci:// reference with the form to write", () => {
  for (
    const bad of ["oci://ghcr.io", "oci://ghcr.io/Acme/pdf", "oci://-x/pdf", "oci://h/p@sha256:1"]
  ) {
    assert.throws(() => parseSource(bad), (error: Error & { hint?: string }) => {
      assert.match(error.message, /Cannot read OCI reference/);
      assert.match(error.hint ?? "", /oci:\/\/registry\/repository/);
      return true;
    }, bad);
  }
});

Deno.test("shortRevision() shortens commits and manifest digests alike", () => {
  assert.equal(shortRevision("0123456789abcdef0123"), "0123456789ab");
  assert.equal(shortRevision(DIGEST), `sha256:${"c".repeat(12)}`);
});

Deno.test("parseLockfileText() takes an OCI entry pinned to a manifest digest, and refuses one pinned to a git commit", () => {
  const entry = (commit: string) =>
    JSON.stringify({
      lockfileVersion: 1,
      skills: {
        pdf: {
          name: "pdf",
          source: { type: "oci", url: "oci://ghcr.io/acme/pdf", subpath: "" },
          branch: null,
          tag: "1.2.0",
          ref: null,
          commit,
          digest: `sha256:${"b".repeat(64)}`,
          files: { "SKILL.md": "a".repeat(64) },
          permissions: { env: [] },
        },
      },
    });
  assert.equal(parseLockfileText(entry(DIGEST)).ok, true);
  const wrong = parseLockfileText(entry("0123456789abcdef0123456789abcdef01234567"));
  assert.equal(wrong.ok, false);
  assert.match(!wrong.ok ? wrong.reason : "", /an OCI source needs the manifest digest/);
});
