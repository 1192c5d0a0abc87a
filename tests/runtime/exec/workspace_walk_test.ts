import assert from "node:assert/strict";
import { join } from "node:path";
import {
  quarantineCreated,
  scanWorkspace,
  snapshotWorkspace,
  workspaceChanges,
} from "../../../src/runtime/exec/workspace_walk.ts";
import { tempDir } from "../../helpers/cli.ts";

Deno.test("guarded names made at the workspace's top after the walk are quarantined, whether the walk listed the top or the disk is asked", async () => {
  for (const listed of [true, false]) {
    await using work = await tempDir();
    await using quarantine = await tempDir();
    await Deno.writeTextFile(join(work.path, "notes.txt"), "mine\n");
    const before = scanWorkspace(work.path);
    assert.ok(before.absent.includes(".envrc") && before.absent.includes(".github/workflows"));
    assert.ok(!before.absent.includes("notes.txt"));
    if (!listed) before.top = undefined; // a top the walk could not list in full
    const since = Date.now() - 50;
    await Deno.writeTextFile(join(work.path, ".envrc"), "export X=1\n");
    await Deno.mkdir(join(work.path, ".github", "workflows"), { recursive: true });
    await Deno.writeTextFile(join(work.path, ".github", "workflows", "ci.yml"), "on: push\n");
    await Deno.writeTextFile(join(work.path, "made.txt"), "new\n");
    const changes = workspaceChanges(before, since, join(quarantine.path, "q"));
    assert.deepEqual(changes.quarantined, [".envrc", ".github/workflows"], `listed: ${listed}`);
    assert.deepEqual(changes.created, ["made.txt"], `listed: ${listed}`);
    await assert.rejects(Deno.lstat(join(work.path, ".envrc")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(quarantine.path, "q", ".envrc")), "export X=1\n");
  }
});

Deno.test("a guarded name that was there before is not absent, in any case the walk saw it", async () => {
  await using work = await tempDir();
  await Deno.writeTextFile(join(work.path, ".envrc"), "");
  await Deno.mkdir(join(work.path, ".git", "hooks"), { recursive: true });
  const scan = scanWorkspace(work.path);
  assert.ok(!scan.absent.includes(".envrc"));
  assert.ok(!scan.absent.includes(".git/hooks"));
  assert.ok(scan.absent.includes(".vscode"));
  await Deno.remove(join(work.path, ".git", "hooks"));
  assert.ok(scanWorkspace(work.path).absent.includes(".git/hooks"));
});

/**
 * Waits into the next second: the walk after counts a change from 50 ms before the run, and a
 * ctime (given to the second) from that second's start; the fixtures made before are older.
 */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1_060 - (Date.now() % 1_000)));
}

/** A project of `folders` packages, each `pkgN/src/` with two files, settled for a moment. */
async function project(root: string, folders = 3): Promise<void> {
  for (let d = 0; d < folders; d++) {
    const src = join(root, `pkg${d}`, "src");
    await Deno.mkdir(src, { recursive: true });
    await Deno.writeTextFile(join(src, "a.ts"), "export const a = 1;\n");
    await Deno.writeTextFile(join(src, `only${d}.ts`), "export {};\n");
  }
  await settle();
}

/** The folders under `root` listed while `body` runs. */
function listedDuring<T>(root: string, body: () => T): [T, string[]] {
  const original = Deno.readDirSync;
  const listed: string[] = [];
  Deno.readDirSync = (path: string | URL) => {
    if (String(path).startsWith(root)) listed.push(String(path).slice(root.length));
    return original(path);
  };
  try {
    return [body(), listed];
  } finally {
    Deno.readDirSync = original;
  }
}

Deno.test("a file whose content changed is listed though its folder, unchanged, is not read again", async () => {
  await using work = await tempDir();
  await project(work.path);
  const before = snapshotWorkspace(work.path, { settledMs: 0 });
  const since = Date.now() - 50;
  // Same length: the folder's stamps, size and links are exactly as they were.
  await Deno.writeTextFile(join(work.path, "pkg1/src/a.ts"), "export const a = 2;\n");
  const [changes, listed] = listedDuring(work.path, () => workspaceChanges(before, since));
  assert.deepEqual(listed, [], "no folder changed: none is listed again");
  assert.deepEqual(changes.changed, ["pkg1/src/a.ts"]);
  assert.deepEqual([changes.created, changes.deleted], [[], []]);
});

Deno.test("files made, removed and renamed in a kept folder are listed: its stamps moved", async () => {
  await using work = await tempDir();
  await project(work.path);
  const before = snapshotWorkspace(work.path, { settledMs: 0 });
  const since = Date.now() - 50;
  await Deno.writeTextFile(join(work.path, "pkg2/src/new.ts"), "export {};\n");
  await Deno.remove(join(work.path, "pkg0/src/a.ts"));
  await Deno.rename(join(work.path, "pkg1/src/a.ts"), join(work.path, "pkg1/src/b.ts"));
  await Deno.remove(join(work.path, "pkg1/src/only1.ts"));
  await Deno.mkdir(join(work.path, "pkg1/src/only1.ts")); // a folder where a file was
  const [changes, listed] = listedDuring(work.path, () => workspaceChanges(before, since));
  assert.deepEqual(listed.sort(), ["/pkg0/src", "/pkg1/src", "/pkg1/src/only1.ts", "/pkg2/src"]);
  assert.deepEqual(changes.created, ["pkg1/src/b.ts", "pkg2/src/new.ts"]);
  assert.deepEqual(changes.changed, []);
  assert.deepEqual(changes.deleted, ["pkg0/src/a.ts", "pkg1/src/a.ts", "pkg1/src/only1.ts"]);
});

Deno.test("two folders swapped keep neither's listing: a folder is known by its inode too", async () => {
  await using work = await tempDir();
  await project(work.path);
  const before = snapshotWorkspace(work.path, { settledMs: 0 });
  const since = Date.now() - 50;
  // The swapped src/ folders are not touched: only their parents' entries move.
  await Deno.rename(join(work.path, "pkg0/src"), join(work.path, "swap"));
  await Deno.rename(join(work.path, "pkg1/src"), join(work.path, "pkg0/src"));
  await Deno.rename(join(work.path, "swap"), join(work.path, "pkg1/src"));
  const changes = workspaceChanges(before, since);
  assert.deepEqual(changes.created, ["pkg0/src/only1.ts", "pkg1/src/only0.ts"]);
  assert.deepEqual(changes.deleted, ["pkg0/src/only0.ts", "pkg1/src/only1.ts"]);
});

Deno.test("a folder changed just before the walk is listed again after it, whatever its stamps", async () => {
  await using work = await tempDir();
  await project(work.path);
  await Deno.writeTextFile(join(work.path, "pkg0/src/fresh.ts"), "");
  const before = snapshotWorkspace(work.path); // pkg0/src changed within the settle window
  const [, listed] = listedDuring(work.path, () => workspaceChanges(before, Date.now() - 50));
  assert.ok(listed.includes("/pkg0/src"), listed.join(", "));
});

Deno.test("in policy mode a guarded folder's files that were there are changed, not created", async () => {
  await using work = await tempDir();
  await Deno.mkdir(join(work.path, ".vscode"));
  await Deno.writeTextFile(join(work.path, ".vscode/settings.json"), "{}\n");
  await Deno.writeTextFile(join(work.path, "main.ts"), "export {};\n");
  await settle();
  const before = snapshotWorkspace(work.path, { settledMs: 0 });
  const since = Date.now() - 50;
  await Deno.writeTextFile(join(work.path, ".vscode/settings.json"), '{"x": 1}\n');
  await Deno.remove(join(work.path, "main.ts"));
  await Deno.symlink("/etc/hostname", join(work.path, "main.ts")); // a file become a link
  const changes = workspaceChanges(before, since);
  assert.deepEqual(changes.changed, [".vscode/settings.json", "main.ts"]);
  assert.deepEqual([changes.created, changes.deleted], [[], []]);
});

Deno.test("a file written just before the run, in the second it began, is not changed by it", async () => {
  await using work = await tempDir();
  await project(work.path);
  const before = snapshotWorkspace(work.path, { settledMs: 0 });
  const file = join(work.path, "pkg0/src/a.ts");
  let since: number;
  do { // the write and the run's start in one second of the clock (Deno's ctime has no finer grain)
    await Deno.writeTextFile(file, "export const a = 9;\n");
    since = Date.now() + 1;
  } while (Math.floor(Deno.lstatSync(file).mtime!.getTime() / 1000) !== Math.floor(since / 1000));
  assert.deepEqual(workspaceChanges(before, since).changed, []);
});

Deno.test("a file changed with its mtime set back is still changed: its ctime cannot be", async () => {
  await using work = await tempDir();
  await project(work.path);
  const before = snapshotWorkspace(work.path, { settledMs: 0 });
  const since = Date.now() - 50;
  await Deno.writeTextFile(join(work.path, "pkg0/src/a.ts"), "export const a = 9;\n");
  await Deno.utime(join(work.path, "pkg0/src/a.ts"), new Date(0), new Date(0));
  assert.deepEqual(workspaceChanges(before, since).changed, ["pkg0/src/a.ts"]);
});

Deno.test("policy mode's walk before a run reads again only the folders changed since the last one's", async () => {
  await using work = await tempDir();
  await using home = await tempDir();
  await project(work.path);
  const store = join(home.path, "listings");
  const walk = () => snapshotWorkspace(work.path, { store, settledMs: 0 });
  const [, first] = listedDuring(work.path, walk);
  assert.equal(first.length, 7, first.join(", ")); // the top, three packages, three src/
  const [, second] = listedDuring(work.path, walk);
  assert.deepEqual(second, [], "nothing changed: every listing is the kept one");
  // A file made since: its folder is read again, and the run's changes are told from it.
  await Deno.writeTextFile(join(work.path, "pkg1/src/later.ts"), "export {};\n");
  const [before, third] = listedDuring(work.path, walk);
  assert.deepEqual(third, ["/pkg1/src"]);
  // File times move by the kernel's clock tick (a few ms): a folder changed twice within one
  // tick keeps its key. A real run keys only folders settled for SETTLED_MS; this walk keys
  // them all (settledMs: 0), so the run's changes start a tick after the walk.
  await new Promise((resolve) => setTimeout(resolve, 25));
  const since = Date.now() - 50;
  await Deno.remove(join(work.path, "pkg1/src/later.ts"));
  await Deno.writeTextFile(join(work.path, "pkg2/src/new.ts"), "export {};\n");
  const changes = workspaceChanges(before, since);
  assert.deepEqual([changes.created, changes.deleted], [["pkg2/src/new.ts"], [
    "pkg1/src/later.ts",
  ]]);
});

Deno.test("a --write grant's walk finds guarded paths at any depth, or refuses the grant past its budget", async () => {
  await using work = await tempDir();
  const deep = "a/b/c/d/e/f/g/h/i/j";
  await Deno.mkdir(join(work.path, deep, ".git/hooks"), { recursive: true });
  await Deno.mkdir(join(work.path, deep, ".vscode"));
  const scan = scanWorkspace(work.path);
  assert.ok(scan.readOnly.includes(join(work.path, deep, ".vscode")), scan.readOnly.join(", "));
  assert.ok(scan.readOnly.includes(join(work.path, deep, ".git/hooks")));
  assert.ok(scan.pins.includes(join(work.path, deep, ".git")));
  assert.equal(scan.cut, false);
  let now = 0;
  assert.throws(
    () => scanWorkspace(work.path, { budgetMs: 5, clock: () => (now += 2) }),
    (error: Error & { code?: string }) =>
      error.code === "permission_denied" &&
      /Cannot grant --write .*guarded paths/.test(error.message),
  );
});

Deno.test("policy mode's receipt lists a change ten folders down, complete", async () => {
  await using work = await tempDir();
  const deep = "a/b/c/d/e/f/g/h/i/j";
  await Deno.mkdir(join(work.path, deep), { recursive: true });
  await Deno.writeTextFile(join(work.path, deep, "kept.txt"), "1\n");
  await settle();
  const before = snapshotWorkspace(work.path, { settledMs: 0 });
  const since = Date.now() - 50;
  await Deno.writeTextFile(join(work.path, deep, "made.txt"), "new\n");
  await Deno.writeTextFile(join(work.path, deep, "kept.txt"), "2\n");
  const changes = workspaceChanges(before, since);
  assert.deepEqual([changes.created, changes.changed], [[`${deep}/made.txt`], [
    `${deep}/kept.txt`,
  ]]);
  assert.equal(changes.incomplete, false);
});

Deno.test("after a --write run, only the folders whose entries changed are listed again, and what it made guarded is moved", async () => {
  await using work = await tempDir();
  await using quarantine = await tempDir();
  await project(work.path);
  const before = scanWorkspace(work.path, { settledMs: 0 });
  await Deno.mkdir(join(work.path, "pkg1/src/.vscode"));
  await Deno.writeTextFile(join(work.path, "pkg1/src/.vscode/tasks.json"), "{}\n");
  await Deno.writeTextFile(join(work.path, "pkg2/src/a.ts"), "export const a = 3;\n");
  const [moved, listed] = listedDuring(
    work.path,
    () => quarantineCreated(before, join(quarantine.path, "q")),
  );
  assert.deepEqual(moved, ["pkg1/src/.vscode"]);
  assert.deepEqual([...new Set(listed)], ["/pkg1/src"], "the other folders' listings are kept");
  assert.equal(
    await Deno.readTextFile(join(quarantine.path, "q/pkg1/src/.vscode/tasks.json")),
    "{}\n",
  );
});

Deno.test("a submodule's hooks are guarded however deeply submodules nest", async () => {
  await using work = await tempDir();
  const nested = ".git/" + Array.from({ length: 6 }, (_, i) => `modules/m${i}`).join("/");
  await Deno.mkdir(join(work.path, nested, "hooks"), { recursive: true });
  assert.ok(scanWorkspace(work.path).readOnly.includes(join(work.path, nested, "hooks")));
});
