import assert from "node:assert/strict";
import { join } from "node:path";
import { findSecretFiles, mayBeSecret } from "../../../src/runtime/masks/secret_files.ts";
import { isSecretFileName } from "../../../src/core/policy/workspace_rules.ts";
import { tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

Deno.test("findSecretFiles() finds secrets at any depth, past any number of entries, and notes .git", async () => {
  await using dir = await tempDir();
  const deep = "a/b/c/d/e/f/g/h";
  await writeTree(dir.path, {
    [`${deep}/.env`]: "x",
    "svc/.npmrc": "x",
    "svc/.env.example": "template",
    "svc/README.md": "plain",
    "keys/.ssh/config": "x",
    "repo/.git/config": "[core]\n",
    "repo/.git/.env": "git's own folder is not searched",
    "wt/.git": "gitdir: /elsewhere\n",
  });
  const many = join(dir.path, "aaa");
  Deno.mkdirSync(many);
  for (let i = 0; i < 30_000; i++) Deno.writeTextFileSync(join(many, `f${i}`), "");
  const found = findSecretFiles(dir.path);
  const rel = (paths: string[]) => paths.map((p) => p.slice(dir.path.length + 1)).sort();
  assert.deepEqual(rel(found.files), [`${deep}/.env`, "svc/.npmrc"]);
  assert.deepEqual(rel(found.folders), ["keys/.ssh"]);
  assert.deepEqual(rel(found.gitEntries), ["repo/.git", "wt/.git"]);
  assert.ok(found.entries > 30_000);
});

Deno.test("findSecretFiles() refuses the run when the search cannot finish in time", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a/b/.env": "x", "c/d": "x" });
  let now = 0;
  assert.throws(
    () => findSecretFiles(dir.path, { budgetMs: 1, clock: () => (now += 5) }),
    (error: Error & { code?: string }) =>
      error.code === "permission_denied" &&
      /Cannot show the workspace .* took over/.test(error.message),
  );
});

Deno.test("findSecretFiles() leaves folders hidden anyway unsearched and masks a link out by its target", async () => {
  await using dir = await tempDir();
  await using out = await tempDir();
  await writeTree(dir.path, { "skills/other/.env": "x" });
  await writeTree(out.path, { "token.txt": "x", ".netrc": "x" });
  Deno.symlinkSync(join(out.path, "token.txt"), join(dir.path, ".envrc"));
  Deno.symlinkSync(join(out.path, ".netrc"), join(dir.path, "notes"));
  Deno.symlinkSync(join(dir.path, "skills"), join(dir.path, "inside")); // a folder inside: nothing
  const found = findSecretFiles(dir.path, { skip: [join(dir.path, "skills")] });
  const real = (p: string) => Deno.realPathSync(p);
  assert.deepEqual(
    found.files.sort(),
    [real(join(out.path, ".netrc")), real(join(out.path, "token.txt"))].sort(),
  );
});

Deno.test("mayBeSecret() lets every secret name through to the patterns", () => {
  for (
    const name of [
      ".env",
      ".ENV.local",
      ".npmrc",
      "_netrc",
      ".netrc",
      ".git-credentials",
      "id_rsa",
      "ID_ED25519",
      "id_ecdsa_sk",
      "cert.p12",
      "store.PFX",
      ".pgpass",
      ".dockercfg",
    ]
  ) {
    assert.ok(mayBeSecret(name) && isSecretFileName(name), name);
  }
  for (const name of ["README.md", "env", "id_rsa.pub", ".env.example", "main.py"]) {
    assert.ok(!(mayBeSecret(name) && isSecretFileName(name)), name);
  }
});

Deno.test("findSecretFiles() hides a folder it cannot list, whole", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "a/.env": "x", "b/c/.env": "x" });
  // The folder turns into something that cannot be listed between its parent's listing and
  // its own (as root nothing is unreadable, so the search's clock does it at the right time).
  let calls = 0;
  const found = findSecretFiles(dir.path, {
    clock: () => {
      if (++calls === 3) {
        Deno.removeSync(join(dir.path, "b"), { recursive: true });
        Deno.writeTextFileSync(join(dir.path, "b"), "no longer a folder");
      }
      return 0;
    },
  });
  assert.ok(found.folders.includes(join(dir.path, "b")), JSON.stringify(found));
});
