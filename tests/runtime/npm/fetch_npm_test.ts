/**
 * The npm fetch's edges on this machine: a registry over plain HTTP is refused unless it is on
 * a loopback host, before anything is sent (and the credential named for it never appears in
 * the refusal); a package in `node_modules` is read from disk with the archive checks, a link
 * inside a skill folder refusing it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fetchNpmPackage } from "../../../src/runtime/npm/fetch_npm.ts";
import { archiveLimits } from "../../../src/runtime/web/entries.ts";
import { npmSource } from "../../../src/core/sources/npm_source.ts";
import { tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

const LIMITS = archiveLimits({});

Deno.test("a plain-HTTP registry that is not on loopback is refused before a request, its token unsaid", async () => {
  await using tmp = await tempDir();
  const project = join(tmp.path, "app");
  await writeTree(project, {
    ".npmrc":
      "registry=http://registry.example.test/\n//registry.example.test/:_authToken=s3cr3t-token\n",
  });
  await Deno.mkdir(join(project, ".git"));
  const source = { ...npmSource("npm:left-pad"), kind: "npm" as const };
  const error = await fetchNpmPackage(
    source,
    { range: undefined, revision: undefined },
    join(tmp.path, "out"),
    LIMITS,
    { HOME: join(tmp.path, "home") },
    project,
  ).then(() => undefined, (e: Error) => e);
  assert.ok(error);
  assert.match(error.message, /plain http:\/\/ is allowed only for a loopback host/);
  assert.doesNotMatch(error.message + String(error.stack), /s3cr3t-token/);
  await assert.rejects(Deno.stat(join(tmp.path, "out")), "nothing written");
});

Deno.test("a package in node_modules is read from disk: its declared skill only, a link inside it refused", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "node_modules", "tool");
  await writeTree(dir, {
    "package.json": JSON.stringify({
      name: "tool",
      version: "2.1.0",
      agents: { skills: [{ name: "use-tool", path: "skills/use-tool" }] },
    }),
    "skills/use-tool/SKILL.md": "---\nname: use-tool\ndescription: Uses the tool.\n---\nGo.\n",
    "lib/index.js": "module.exports = 1;\n",
  });
  const source = {
    ...npmSource("npm:tool"),
    kind: "npm" as const,
    installedDir: dir,
    installedIntegrity: "sha512-AAAA",
  };
  const out = join(tmp.path, "out");
  const got = await fetchNpmPackage(
    source,
    { range: undefined, revision: undefined },
    out,
    LIMITS,
    {},
    tmp.path,
  );
  assert.equal(got.revision, "2.1.0@sha512-AAAA");
  assert.deepEqual([...Deno.readDirSync(out)].map((e) => e.name), ["skills"]);
  assert.ok(await Deno.stat(join(out, "skills", "use-tool", "SKILL.md")));

  await Deno.symlink("/etc/passwd", join(dir, "skills", "use-tool", "passwd"));
  await assert.rejects(
    fetchNpmPackage(
      source,
      { range: undefined, revision: undefined },
      join(tmp.path, "out2"),
      LIMITS,
      {},
      tmp.path,
    ),
    /'skills\/use-tool\/passwd' is a symbolic link/,
  );
  await assert.rejects(Deno.stat(join(tmp.path, "out2")));
});
