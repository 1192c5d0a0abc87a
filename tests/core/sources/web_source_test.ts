/**
 * Website sources, pure: which URLs are websites (a site's root, a SKILL.md, an archive, plain
 * HTTP to loopback only), and a well-known index read as untrusted input — both formats, bad
 * entries left out with the reason, URLs resolved against the index and held to the rules.
 */

import assert from "node:assert/strict";
import { parseSource } from "../../../src/core/sources/sources.ts";
import {
  DISCOVERY_SCHEMA,
  parseWellKnownIndex,
  webTargetOf,
} from "../../../src/core/sources/web_source.ts";

const DIGEST = `sha256:${"a".repeat(64)}`;

Deno.test("parseSource() reads website URLs: a site's root, direct files, and plain HTTP only on loopback", () => {
  assert.deepEqual(parseSource("https://example.com"), {
    type: "web",
    url: "https://example.com",
    subpath: "",
    skill: undefined,
    ref: undefined,
  });
  assert.equal(parseSource("https://example.com/skills/pdf/SKILL.md").type, "web");
  assert.equal(parseSource("https://example.com/dl/pdf.tar.gz").type, "web");
  assert.equal(parseSource("http://127.0.0.1:8080/docs").type, "web");
  assert.equal(parseSource("http://localhost:8080/pdf.zip").type, "web");
  // Repositories stay git sources.
  assert.equal(parseSource("https://github.com/o/r/blob/main/pdf/SKILL.md").type, "git");
  assert.equal(parseSource("https://git.example.com/team/repo").type, "git");
  assert.throws(() => parseSource("http://example.com/pdf.zip"), /loopback/);
  assert.throws(() => parseSource("https://user:secret@example.com/pdf.zip"), (error: Error) => {
    assert.match(error.message, /credentials/);
    assert.doesNotMatch(error.message, /secret/);
    return true;
  });
  assert.equal(webTargetOf("https://example.com/a/SKILL.md"), "skill-md");
  assert.equal(webTargetOf("https://example.com/a.tgz"), "archive");
  assert.equal(webTargetOf("https://example.com/a"), "site");
});

Deno.test("parseWellKnownIndex() reads 0.2.0 entries, resolves their URLs and leaves out bad ones with a reason", () => {
  const index = parseWellKnownIndex({
    $schema: DISCOVERY_SCHEMA,
    skills: [
      { name: "pdf", description: "PDFs.", type: "archive", url: "pdf.tar.gz", digest: DIGEST },
      { name: "Bad_Name", description: "x", type: "skill-md", url: "a.md", digest: DIGEST },
      { name: "nodigest", description: "x", type: "skill-md", url: "a.md", digest: "md5:1" },
      {
        name: "plain",
        description: "x",
        type: "skill-md",
        url: "http://evil.example/a.md",
        digest: DIGEST,
      },
      { name: "other", description: "x", type: "mcp", url: "a", digest: DIGEST },
      { name: "pdf", description: "again", type: "skill-md", url: "b.md", digest: DIGEST },
    ],
  }, "https://example.com/.well-known/agent-skills/index.json");
  assert.deepEqual(index.entries, [{
    format: "artifact",
    name: "pdf",
    description: "PDFs.",
    type: "archive",
    url: "https://example.com/.well-known/agent-skills/pdf.tar.gz",
    digest: DIGEST,
  }]);
  assert.equal(index.skipped.length, 5);
  assert.match(index.skipped.join("\n"), /skills\[3\]: its url: plain http/);
  assert.match(index.skipped.join("\n"), /'pdf' is listed twice/);
});

Deno.test("parseWellKnownIndex() reads the older index's files and refuses paths outside the skill", () => {
  const url = "https://example.com/.well-known/skills/index.json";
  const index = parseWellKnownIndex({
    skills: [
      { name: "pdf", description: "PDFs.", files: ["SKILL.md", "scripts/x.py"] },
      { name: "evil", description: "x", files: ["SKILL.md", "../../etc/passwd"] },
      { name: "nomd", description: "x", files: ["README.md"] },
    ],
  }, url);
  assert.deepEqual(index.entries, [{
    format: "files",
    name: "pdf",
    description: "PDFs.",
    base: "https://example.com/.well-known/skills/pdf",
    files: ["SKILL.md", "scripts/x.py"],
  }]);
  assert.equal(index.skipped.length, 2);
  assert.throws(() => parseWellKnownIndex({ nope: 1 }, url), /no `skills` list/);
  assert.throws(
    () => parseWellKnownIndex({ $schema: "https://x/9.json", skills: [] }, url),
    /schema/,
  );
});
