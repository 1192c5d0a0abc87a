import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "../../../src/core/errors.ts";
import { parseSource } from "../../../src/core/sources/sources.ts";
import { resolveParsed, resolveRequest } from "../../../src/runtime/lifecycle/resolve_source.ts";
import { tempDir } from "../../helpers/cli.ts";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";
import { writeTree } from "../../helpers/tree.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

Deno.test("resolveParsed() gives every parsed source its kind, and keeps what was parsed", () => {
  const remote = resolveParsed(parseSource("owner/repo/skills/pdf#v1"));
  assert.equal(remote.kind, "remote-git");
  assert.equal(remote.type, "git");
  assert.equal(remote.subpath, "skills/pdf");
  assert.equal(remote.ref, "v1");
  assert.equal(resolveParsed(parseSource("oci://ghcr.io/acme/pdf:1.0")).kind, "oci");
  const folder = resolveParsed(parseSource("./pdf", { localDirectory: "/w/pdf" }));
  assert.equal(folder.kind, "local-folder");
  assert.equal(folder.type, "local");
});

Deno.test("resolveParsed() reads a plain file:/// repository in place and clones the rest", {
  ignore: Deno.build.os === "windows",
}, () => {
  const local = resolveParsed(parseSource("file:///srv/repos/skills.git"));
  assert.equal(local.kind, "local-repository");
  assert.equal(local.kind === "local-repository" && local.path, "/srv/repos/skills.git");
  assert.equal(local.url, "file:///srv/repos/skills.git");
  // A URL that still holds a '%' after parsing is left to git's own parsing: cloned.
  const encoded = {
    type: "git",
    url: "file:///srv/with%2520percent.git",
    transport: "file",
    subpath: "",
    skill: undefined,
    ref: undefined,
  } as const;
  assert.equal(resolveParsed(encoded).kind, "remote-git");
});

Deno.test("resolveRequest() asks the filesystem once: a bare repository, a folder, a name", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "skills", skillFiles("pdf"));
  const where = { cwd: tmp.path, env: ENV, home: join(tmp.path, "home") };

  const bare = await resolveRequest(repo.bare, {}, [], where);
  assert.equal(bare.source.kind, "local-repository");
  assert.equal(bare.source.url, `file://${repo.bare}`);

  const folder = join(tmp.path, "pdf");
  await writeTree(folder, skillFiles("pdf"));
  const copied = await resolveRequest("./pdf", {}, ["pdf"], where);
  assert.equal(copied.source.kind, "local-folder");
  assert.deepEqual(copied.selectors, ["pdf"]);
  await assert.rejects(
    () => resolveRequest("./pdf", { branch: "main" }, [], where),
    (e: unknown) => e instanceof UsageError && /not to directories/.test(e.message),
  );

  const named = await resolveRequest("owner/repo@pdf#main", { ref: "main" }, [], where);
  assert.equal(named.source.kind, "remote-git");
  assert.deepEqual(named.request, { kind: "ref", name: "main" });
  assert.deepEqual(named.selectors, ["pdf"]);
});
