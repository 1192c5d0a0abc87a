import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import { MAX_SKILL_FILE_BYTES } from "../../../src/core/manifest/limits.ts";
import {
  isSafeTreePath,
  MAX_TREE_ENTRIES,
  parseTreeObject,
  readRemoteRepository,
} from "../../../src/runtime/git/local_read.ts";
import { localRepositoryPath } from "../../../src/runtime/lifecycle/resolve_source.ts";
import { tempDir } from "../../helpers/cli.ts";
import {
  commitTreeBomb,
  commitZeroFile,
  createRepo,
  fixtureGitEnv,
  git,
  mktree,
  skillFiles,
  submoduleRepo,
} from "../../fixtures/git_repos.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { GIT_ENV, QUICK_FETCH, readInPlace } from "../../helpers/git_read.ts";

/** Every path under `root` (but .git) with what a checkout would show: mode and content. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string, rel: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name === ".git") continue;
      const path = join(dir, entry.name);
      const key = rel ? `${rel}/${entry.name}` : entry.name;
      const info = await Deno.lstat(path);
      if (info.isSymlink) out[key] = `link -> ${await Deno.readLink(path)}`;
      else if (info.isDirectory) {
        out[key] = "dir";
        await walk(path, key);
      } else {
        const bytes = await Deno.readFile(path);
        const digest = await crypto.subtle.digest("SHA-256", bytes);
        const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0"));
        out[key] = `${(info.mode! & 0o111) ? "exec" : "file"} ${bytes.length} ${hex.join("")}`;
      }
    }
  };
  await walk(root, "");
  return out;
}

Deno.test("the local read and our clone give exactly the files git's own checkout gives", {
  ignore: SKIP_SLOW,
}, async () => {
  await using tmp = await tempDir();
  const repo = await submoduleRepo(tmp.path, "wide");
  // Executable bits, symlinks (inside and out), binary content larger than a pipe chunk,
  // the same blob at two paths, an empty file and deep directories.
  const big = new Uint8Array(300_000);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 256;
  await Deno.writeFile(join(repo.work, "assets.bin"), big);
  await Deno.mkdir(join(repo.work, "a", "b", "c"), { recursive: true });
  await Deno.writeTextFile(join(repo.work, "a", "b", "c", "deep.txt"), "deep\n");
  await Deno.writeTextFile(join(repo.work, "a", "copy.txt"), "deep\n");
  await Deno.writeTextFile(join(repo.work, "empty"), "");
  await Deno.writeTextFile(join(repo.work, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
  await Deno.symlink("a/b/c/deep.txt", join(repo.work, "inside-link"));
  await Deno.symlink("/etc/passwd", join(repo.work, "outside-link"));
  await repo.commit({}, "many kinds of entries");

  // The oracle is git's own clone and checkout; our clone fetches objects only and writes
  // the files with the same reader as the local read.
  const viaGit = join(tmp.path, "git");
  await git(tmp.path, ["clone", "--quiet", repo.url, viaGit], fixtureGitEnv(tmp.path));
  const viaClone = join(tmp.path, "clone");
  const viaRead = join(tmp.path, "read");
  const cloned = await readRemoteRepository(
    repo.url,
    "file",
    { kind: "default" },
    viaClone,
    QUICK_FETCH,
  );
  const read = await readInPlace(repo.url, "file", { kind: "default" }, viaRead, QUICK_FETCH);
  assert.deepEqual(read, cloned);
  const expected = await snapshot(viaGit);
  assert.equal(expected["vendor/inner"], "dir", "the submodule is an empty directory");
  assert.match(expected["run.sh"]!, /^exec /);
  assert.deepEqual(await snapshot(viaRead), expected);
  assert.deepEqual(await snapshot(viaClone), expected);
  assert.equal(await Deno.lstat(join(viaRead, ".git")).catch(() => null), null);
});

Deno.test("reading a local repository runs none of its filters or hooks", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "filtered", {
    ...skillFiles("filtered"),
    ".gitattributes": "* filter=evil\n",
  });
  const marker = join(tmp.path, "ran");
  const evil = `sh -c 'echo ran >> ${marker}; cat'`;
  // The repository's own config asks for a smudge filter and every hook git knows.
  await git(repo.bare, ["config", "filter.evil.smudge", evil]);
  await git(repo.bare, ["config", "filter.evil.process", evil]);
  await git(repo.bare, ["config", "core.fsmonitor", evil]);
  await git(repo.bare, ["config", "core.hooksPath", join(tmp.path, "hooks")]);
  await Deno.mkdir(join(tmp.path, "hooks"));
  for (const hook of ["post-checkout", "reference-transaction", "pre-auto-gc"]) {
    await Deno.writeTextFile(join(tmp.path, "hooks", hook), `#!/bin/sh\necho ran >> ${marker}\n`, {
      mode: 0o755,
    });
  }
  const dest = join(tmp.path, "dest");
  await readInPlace(repo.url, "file", { kind: "default" }, dest, QUICK_FETCH);
  assert.ok(await Deno.stat(join(dest, "SKILL.md")));
  assert.equal(await Deno.readTextFile(marker).catch(() => null), null, "nothing ran");
});

Deno.test("a work tree repository is read from its .git directory, not its parent", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "worktree", skillFiles("worktree"));
  const dest = join(tmp.path, "dest");
  const read = await readInPlace(
    `file://${repo.work}`,
    "file",
    { kind: "default" },
    dest,
    QUICK_FETCH,
  );
  assert.equal(read.sha, await repo.head());
  assert.ok(await Deno.stat(join(dest, "SKILL.md")));
  // A plain directory inside that work tree is not a repository of its own.
  await Deno.mkdir(join(repo.work, "plain"));
  await assert.rejects(
    () =>
      readInPlace(
        `file://${repo.work}/plain`,
        "file",
        { kind: "default" },
        join(tmp.path, "x"),
        QUICK_FETCH,
      ),
    (e: unknown) => e instanceof SkillError,
  );
  assert.equal(await Deno.lstat(join(tmp.path, "x", "SKILL.md")).catch(() => null), null);
});

Deno.test("a tree path that a checkout would refuse stops the read before any write", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "hostile", skillFiles("hostile"));
  const env = fixtureGitEnv(tmp.path);
  const blob = await git(repo.bare, ["hash-object", "-w", "--stdin"], env).catch(() => "");
  assert.equal(blob, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"); // the empty blob
  // A tree with a '..' entry, made with plumbing (porcelain would never write one).
  const tree = await mktree(repo.bare, `100644 blob ${blob}\t..\n100644 blob ${blob}\tok\n`);
  const commit = await git(repo.bare, ["commit-tree", tree, "-m", "hostile"], env);
  await git(repo.bare, ["update-ref", "refs/heads/main", commit], env);
  const dest = join(tmp.path, "area", "dest");
  await assert.rejects(
    () => readInPlace(repo.url, "file", { kind: "default" }, dest, QUICK_FETCH),
    (e: unknown) => e instanceof SkillError && /unsafe path: "\.\."/.test(e.message),
  );
  assert.equal(await Deno.lstat(join(tmp.path, "area")).catch(() => null), null);
});

for (
  const [label, fetch] of [["local read", readInPlace], ["clone", readRemoteRepository]] as const
) {
  Deno.test(`${label}: a tree that reuses subtrees to multiply its paths is refused`, {
    ignore: SKIP_SLOW,
  }, async () => {
    await using tmp = await tempDir();
    const repo = await createRepo(tmp.path, "bomb", skillFiles("bomb"));
    await commitTreeBomb(repo, tmp.path);
    const dest = join(tmp.path, "area", "dest");
    await assert.rejects(
      () => fetch(repo.url, "file", { kind: "default" }, dest, QUICK_FETCH),
      (e: unknown) =>
        e instanceof SkillError && e.message.includes(`more than ${MAX_TREE_ENTRIES} files`),
    );
    // Nothing but the clone's own .git was written.
    const left = await Array.fromAsync(Deno.readDir(dest)).catch(() => []);
    assert.deepEqual(left.map((e) => e.name), label === "clone" ? [".git"] : []);
  });

  Deno.test(`${label}: a file over the size limit is refused before it is read`, {
    ignore: SKIP_SLOW,
  }, async () => {
    await using tmp = await tempDir();
    const repo = await createRepo(tmp.path, "heavy", skillFiles("heavy"));
    await commitZeroFile(repo, "huge.bin", MAX_SKILL_FILE_BYTES + 1, "a huge file");
    await assert.rejects(
      () => fetch(repo.url, "file", { kind: "default" }, join(tmp.path, "dest"), QUICK_FETCH),
      (e: unknown) =>
        e instanceof SkillError && /huge\.bin is 104857601 bytes; files over/.test(e.message),
    );
  });
}

Deno.test("a clone never downloads a file over the size limit from a server that filters", {
  ignore: SKIP_SLOW,
}, async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "heavy", skillFiles("heavy"));
  const sha = await commitZeroFile(
    repo,
    "assets/huge.bin",
    MAX_SKILL_FILE_BYTES + 1,
    "a huge file",
  );
  await git(repo.bare, ["config", "uploadpack.allowFilter", "true"], fixtureGitEnv(tmp.path));
  const refused = (e: unknown) =>
    e instanceof SkillError &&
    e.message.includes("assets/huge.bin is over 104857600 bytes (100 MiB) and was not downloaded");
  for (const [n, request] of [[1, { kind: "default" }], [2, { kind: "ref", name: sha }]] as const) {
    const dest = join(tmp.path, `dest${n}`);
    await assert.rejects(
      () => readRemoteRepository(repo.url, "file", request, dest, QUICK_FETCH),
      refused,
    );
    // The pack holds the commits and trees, not 100 MiB of blob (even compressed, the
    // unfiltered clone's pack is over 100 KiB).
    const packed = await git(dest, ["count-objects", "-v"], GIT_ENV);
    const kib = Number(/size-pack: (\d+)/.exec(packed)![1]) +
      Number(/^size: (\d+)/m.exec(packed)![1]);
    assert.ok(kib < 64, packed);
  }
});

Deno.test("a local partial clone without a blob is refused, naming the file", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "partial", skillFiles("partial"));
  await git(repo.bare, ["config", "uploadpack.allowFilter", "true"], fixtureGitEnv(tmp.path));
  const partial = join(tmp.path, "partial-clone");
  await git(
    tmp.path,
    ["clone", "--quiet", "--bare", "--filter=blob:none", repo.url, partial],
    GIT_ENV,
  );
  await assert.rejects(
    () =>
      readInPlace(
        `file://${partial}`,
        "file",
        { kind: "default" },
        join(tmp.path, "d"),
        QUICK_FETCH,
      ),
    (e: unknown) =>
      e instanceof SkillError &&
      /file \S+ is missing \(a partial clone without it\)/.test(e.message),
  );
});

Deno.test("HEAD is followed in every form a repository keeps it", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "heads", skillFiles("heads"));
  const first = await repo.head();
  await repo.checkout("dev", true);
  const second = await repo.commit({ "dev.txt": "dev\n" }, "on dev");
  const env = fixtureGitEnv(tmp.path);
  const read = (n: number) =>
    readInPlace(repo.url, "file", { kind: "default" }, join(tmp.path, `r${n}`), QUICK_FETCH);
  const clone = (n: number) =>
    readRemoteRepository(
      repo.url,
      "file",
      { kind: "default" },
      join(tmp.path, `c${n}`),
      QUICK_FETCH,
    );

  // A branch in packed-refs only.
  await git(repo.bare, ["symbolic-ref", "HEAD", "refs/heads/dev"], env);
  await git(repo.bare, ["pack-refs", "--all"], env);
  assert.deepEqual(await read(1), { sha: second, branch: "dev", tag: null, ref: null });
  assert.deepEqual(await clone(1), await read(1.5));
  // A detached HEAD: no branch to follow (a clone would guess one at the same commit).
  await Deno.writeTextFile(join(repo.bare, "HEAD"), `${first}\n`);
  assert.deepEqual(await read(2), { sha: first, branch: null, tag: null, ref: null });
  // A symbolic ref outside refs/heads (git itself is asked): not a branch either.
  await git(repo.bare, ["update-ref", "refs/remotes/origin/x", first], env);
  await git(repo.bare, ["symbolic-ref", "HEAD", "refs/remotes/origin/x"], env);
  assert.deepEqual(await read(3), { sha: first, branch: null, tag: null, ref: null });
  // An unborn branch: nothing to install.
  await git(repo.bare, ["symbolic-ref", "HEAD", "refs/heads/unborn"], env);
  await assert.rejects(() => read(4), /no commits/);
});

Deno.test("a HEAD no one pushed names the branches there are, read in place or cloned", async () => {
  await using tmp = await tempDir();
  // `git init --bare` points HEAD at master; the team pushed main.
  const repo = await createRepo(tmp.path, "pushed", skillFiles("pushed"));
  await git(repo.bare, ["symbolic-ref", "HEAD", "refs/heads/master"], fixtureGitEnv(tmp.path));
  const empty = join(tmp.path, "empty.git");
  await git(tmp.path, ["init", "--quiet", "--bare", empty], fixtureGitEnv(tmp.path));
  const ways = {
    read: (url: string, n: number) =>
      readInPlace(url, "file", { kind: "default" }, join(tmp.path, `r${n}`), QUICK_FETCH),
    clone: (url: string, n: number) =>
      readRemoteRepository(url, "file", { kind: "default" }, join(tmp.path, `c${n}`), QUICK_FETCH),
  };
  for (const [way, fetch] of Object.entries(ways)) {
    await assert.rejects(() => fetch(repo.url, 1), (error: unknown) => {
      assert.ok(error instanceof SkillError, way);
      assert.equal(
        error.message,
        "its HEAD names the branch 'master', which has no commits; its branches: main",
        way,
      );
      assert.equal(error.hint, "Name the branch to install: --branch main", way);
      return true;
    });
    await assert.rejects(() => fetch(`file://${empty}`, 2), (error: unknown) => {
      assert.ok(error instanceof SkillError, way);
      assert.equal(error.message, "the repository has no commits", way);
      assert.equal(error.hint, undefined, way);
      return true;
    });
  }
  // The branch named in the hint installs.
  const main = await readInPlace(
    repo.url,
    "file",
    { kind: "branch", name: "main" },
    join(tmp.path, "r3"),
    QUICK_FETCH,
  );
  assert.equal(main.branch, "main");
});

Deno.test("isSafeTreePath() and parseTreeObject() refuse traversal, .git and control characters", () => {
  for (const path of ["a", "a/b.txt", "skills/x/SKILL.md", ".github/x", "a..b", "...", "é"]) {
    assert.ok(isSafeTreePath(path), path);
  }
  for (
    const path of [
      "..",
      "a/../b",
      ".",
      "a/./b",
      ".git",
      "x/.GIT/config",
      "a//b",
      "/abs",
      "a\nb",
      "a\u0001",
    ]
  ) {
    assert.ok(!isSafeTreePath(path), JSON.stringify(path));
  }
  const oid = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
  const raw = (hex: string) => Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16));
  const tree = (...records: [string, string][]) => {
    const parts = records.flatMap(([mode, name]) => [
      new TextEncoder().encode(`${mode} ${name}\0`),
      raw(oid),
    ]);
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  // Modes come out as ls-tree prints them: any regular file is 100644 or 100755.
  assert.deepEqual(
    parseTreeObject(
      tree(["100755", "run.sh"], ["160000", "sub"], ["40000", "dir"], ["100664", "old"]),
      "skills/x",
      20,
    ),
    [
      { mode: "100755", oid, path: "skills/x/run.sh" },
      { mode: "160000", oid, path: "skills/x/sub" },
      { mode: "040000", oid, path: "skills/x/dir" },
      { mode: "100644", oid, path: "skills/x/old" },
    ],
  );
  for (const name of ["..", ".git", ".Git", "a/b", "", "x\u0007"]) {
    assert.throws(() => parseTreeObject(tree(["100644", name]), "", 20), /unsafe path/, name);
  }
  assert.throws(() => parseTreeObject(tree(["170000", "odd"]), "", 20), /unsupported file mode/);
  assert.throws(
    () => parseTreeObject(tree(["100644", "cut"]).subarray(0, 20), "", 20),
    /malformed/,
  );
});

Deno.test("localRepositoryPath() takes plain file:/// URLs and leaves the rest to a clone", () => {
  assert.equal(localRepositoryPath("file:///srv/repos/skills.git"), "/srv/repos/skills.git");
  assert.equal(localRepositoryPath("file:///srv/with%20space.git"), null);
  assert.equal(localRepositoryPath("file://host/srv/r.git"), null);
  assert.equal(localRepositoryPath("https://example.com/r.git"), null);
});
