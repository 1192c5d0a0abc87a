import assert from "node:assert/strict";
import { join } from "node:path";
import { findSecretFiles, mayBeSecret } from "../../../src/runtime/masks/secret_files.ts";
import { isSecretFileName } from "../../../src/core/policy/workspace_rules.ts";
import { tempDir } from "../../helpers/cli.ts";
import { tempTree, writeTree } from "../../helpers/tree.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

Deno.test(
  "findSecretFiles() finds secrets at any depth, past any number of entries, and notes .git",
  { ignore: SKIP_SLOW },
  async () => {
    const deep = "a/b/c/d/e/f/g/h";
    await using dir = await tempTree({
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
  },
);

Deno.test("findSecretFiles() refuses the run when the search cannot finish in time", async () => {
  await using dir = await tempTree({ "a/b/.env": "x", "c/d": "x" });
  let now = 0;
  assert.throws(
    () => findSecretFiles(dir.path, { budgetMs: 1, clock: () => (now += 5) }),
    (error: Error & { code?: string }) =>
      error.code === "permission_denied" &&
      /Cannot show the workspace .* took over/.test(error.message),
  );
});

Deno.test("findSecretFiles() leaves folders hidden anyway unsearched and masks a link out by its target", async () => {
  await using dir = await tempTree({ "skills/other/.env": "x" });
  await using out = await tempTree({ "token.txt": "x", ".netrc": "x" });
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
  await using dir = await tempTree({ "a/.env": "x", "b/c/.env": "x" });
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

/** The folders under `root` listed while `body` runs. */
function listedDuring<T>(root: string, body: () => T): [T, string[]] {
  const original = Deno.readDirSync;
  const listed: string[] = [];
  Deno.readDirSync = (path: string | URL) => {
    if (String(path).startsWith(root)) listed.push(String(path).slice(root.length) || "/");
    return original(path);
  };
  try {
    return [body(), listed];
  } finally {
    Deno.readDirSync = original;
  }
}

Deno.test("findSecretFiles() with a store lists again only folders whose entries changed, and still finds a secret planted deep", async () => {
  await using dir = await tempDir();
  await using store = await tempDir();
  const tree: Record<string, string> = {};
  for (let d = 0; d < 20; d++) {
    for (let f = 0; f < 20; f++) tree[`pkg${d}/src/lib/f${f}.ts`] = "export {};\n";
  }
  await writeTree(dir.path, tree);
  const options = { store: store.path, settledMs: 0 };
  await new Promise((resolve) => setTimeout(resolve, 20)); // past the clock's tick
  const [first, listedFirst] = listedDuring(dir.path, () => findSecretFiles(dir.path, options));
  assert.deepEqual(first.files, []);
  assert.equal(listedFirst.length, 61, "every folder read the first time");
  const [again, listedAgain] = listedDuring(dir.path, () => findSecretFiles(dir.path, options));
  assert.deepEqual(listedAgain, [], "nothing changed: no folder read again");
  assert.equal(again.entries, first.entries);
  // A secret planted deep, a file renamed to a secret's name, a link to a secret out there.
  await Deno.writeTextFile(join(dir.path, "pkg13/src/lib/.env"), "TOKEN=x\n");
  await Deno.rename(join(dir.path, "pkg4/src/lib/f3.ts"), join(dir.path, "pkg4/src/lib/id_rsa"));
  const [found, listed] = listedDuring(dir.path, () => findSecretFiles(dir.path, options));
  assert.deepEqual(listed.sort(), ["/pkg13/src/lib", "/pkg4/src/lib"]);
  assert.deepEqual(found.files.map((p) => p.slice(dir.path.length + 1)).sort(), [
    "pkg13/src/lib/.env",
    "pkg4/src/lib/id_rsa",
  ]);
});

Deno.test("findSecretFiles() keeps no listing of a folder changed just before, and ignores a store for another folder or torn", async () => {
  await using dir = await tempTree({ "a/b/plain.txt": "x" });
  await using store = await tempDir();
  findSecretFiles(dir.path, { store: store.path }); // everything just made: nothing kept
  await Deno.writeTextFile(join(dir.path, "a/b/.npmrc"), "x");
  const [found, listed] = listedDuring(
    dir.path,
    () => findSecretFiles(dir.path, { store: store.path }),
  );
  assert.equal(listed.length, 3);
  assert.deepEqual(found.files, [join(dir.path, "a/b/.npmrc")]);
  for (const name of Deno.readDirSync(store.path)) {
    const file = join(store.path, name.name);
    await Deno.writeTextFile(file, '{"version":1,"dir":"/elsewhere","folders":{}}');
    assert.equal(findSecretFiles(dir.path, { store: store.path, settledMs: 0 }).files.length, 1);
    await Deno.writeTextFile(file, '{"version":1,"dir":');
    assert.equal(findSecretFiles(dir.path, { store: store.path, settledMs: 0 }).files.length, 1);
  }
});

Deno.test("findSecretFiles() keeps of each listing only what it acts on, with the folder's count; kept under other secret rules, every folder is read again", async () => {
  await using store = await tempDir();
  await using dir = await tempTree({
    "a/plain.ts": "",
    "a/README.md": "",
    "a/.env": "TOKEN=x\n",
    "a/.git": "gitdir: ../.git/worktrees/a\n",
    "a/sub/x.ts": "",
  });
  await Deno.symlink("plain.ts", join(dir.path, "a/link.ts"));
  const options = { store: store.path, settledMs: 0 };
  await new Promise((resolve) => setTimeout(resolve, 20)); // past the clock's tick
  const first = findSecretFiles(dir.path, options);
  const [file] = [...Deno.readDirSync(store.path)].map((entry) => join(store.path, entry.name));
  const kept = JSON.parse(await Deno.readTextFile(file!));
  assert.deepEqual(kept.folders["/a"].names.sort(), [".env", ".git", "link.ts", "sub"]);
  assert.equal(kept.folders["/a"].count, 6);
  const [again, listedAgain] = listedDuring(dir.path, () => findSecretFiles(dir.path, options));
  assert.deepEqual(listedAgain, [], "nothing changed: no folder read again");
  assert.deepEqual(
    again,
    first,
    "the same finding, and the same count of entries, from kept listings",
  );
  await Deno.writeTextFile(file!, JSON.stringify({ ...kept, rules: "rules of another version" }));
  const [, listed] = listedDuring(dir.path, () => findSecretFiles(dir.path, options));
  assert.deepEqual(listed.sort(), ["/", "/a", "/a/sub"]);
});
