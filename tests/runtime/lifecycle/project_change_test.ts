/**
 * A change of a project's scope (lifecycle/change.ts), its crash safety: a command that dies after moving folders into
 * `.agents/skills` but before writing skills-lock.json is rolled back by the next one (a
 * real process, ended with exit() at that moment: no cleanup runs, the OS drops its locks);
 * one that died after writing the lockfile is complete; a failure inside a commit puts every
 * folder back; a journal planted in a repository moves nothing outside its skill folders.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withLockedSkill } from "../../../src/core/records/lockfile.ts";
import { beginChange } from "../../../src/runtime/lifecycle/change.ts";
import { tempDir } from "../../helpers/cli.ts";
import { skillMd } from "../../fixtures/git_repos.ts";

const CHANGE = new URL("../../../src/runtime/lifecycle/change.ts", import.meta.url).href;
const MODEL = new URL("../../../src/core/records/lockfile.ts", import.meta.url).href;
const DIGEST = `sha256:${"d".repeat(64)}`;

async function source(dir: string, text: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "SKILL.md"), text);
  return dir;
}

function lockEntry(name: string, version = "1") {
  return {
    name,
    source: { type: "local" as const, url: "vendor", subpath: "" },
    branch: null,
    tag: null,
    ref: null,
    commit: null,
    digest: DIGEST,
    files: { "SKILL.md": version.repeat(64) },
    permissions: { env: [] },
  };
}

/** Runs a commit of `from` as skill `name` in another process that exits before the lockfile. */
async function dieBeforeLockfile(
  root: string,
  home: string,
  from: string,
  name: string,
  version = "1",
) {
  const script = `
    import { beginChange } from ${JSON.stringify(CHANGE)};
    import { withLockedSkill } from ${JSON.stringify(MODEL)};
    const scope = { kind: "project", root: ${JSON.stringify(root)}, home: ${JSON.stringify(home)} };
    const tx = await beginChange(scope, { env: {} });
    const staged = await tx.stageCopy(${JSON.stringify(from)}, ${
    JSON.stringify(name)
  }, ["SKILL.md"]);
    await tx.commitFolders([{ canonical: ${JSON.stringify(name)}, staged }],
      (lock) => withLockedSkill(lock, ${JSON.stringify(name)}, ${
    JSON.stringify(lockEntry(name, version))
  }),
      { beforeLockfile: () => Deno.exit(9) });
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 9, new TextDecoder().decode(out.stderr));
}

async function workspace() {
  const tmp = await tempDir();
  const root = join(tmp.path, "app");
  const home = join(tmp.path, "home");
  await Deno.mkdir(join(root, ".git"), { recursive: true });
  return {
    tmp,
    root,
    home,
    skill: (name: string) => join(root, ".agents", "skills", name),
    begin: () => beginChange({ kind: "project", root, home }, { env: {} }),
  };
}

Deno.test("an install interrupted between the folder moves and the lockfile is rolled back by the next change", async () => {
  const ws = await workspace();
  await using _ = ws.tmp;
  const from = await source(join(ws.tmp.path, "vendor", "alpha"), skillMd("alpha"));
  await dieBeforeLockfile(ws.root, ws.home, from, "alpha");
  assert.ok(await Deno.stat(join(ws.skill("alpha"), "SKILL.md")), "moved in before the crash");
  assert.equal(await Deno.stat(join(ws.root, "skills-lock.json")).catch(() => null), null);

  await using tx = await ws.begin();
  assert.deepEqual(tx.recovered, ["rolled back the interrupted change of project skill 'alpha'"]);
  assert.equal(await Deno.stat(ws.skill("alpha")).catch(() => null), null, "folder and lock agree");
  assert.deepEqual([...Deno.readDirSync(join(ws.root, ".agents"))].map((e) => e.name), ["skills"]);
});

Deno.test("an interrupted update puts the previous folder back", async () => {
  const ws = await workspace();
  await using _ = ws.tmp;
  const v1 = await source(join(ws.tmp.path, "v1"), skillMd("alpha", "Version one."));
  {
    await using tx = await ws.begin();
    const staged = await tx.stageCopy(v1, "alpha", ["SKILL.md"]);
    await tx.commitFolders(
      [{ canonical: "alpha", staged }],
      (l) => withLockedSkill(l, "alpha", lockEntry("alpha")),
    );
  }
  const lockText = await Deno.readTextFile(join(ws.root, "skills-lock.json"));
  const v2 = await source(join(ws.tmp.path, "v2"), skillMd("alpha", "Version two."));
  await dieBeforeLockfile(ws.root, ws.home, v2, "alpha", "2");
  assert.match(await Deno.readTextFile(join(ws.skill("alpha"), "SKILL.md")), /Version two/);

  await using tx = await ws.begin();
  assert.equal(tx.recovered.length, 1);
  assert.match(await Deno.readTextFile(join(ws.skill("alpha"), "SKILL.md")), /Version one/);
  assert.equal(await Deno.readTextFile(join(ws.root, "skills-lock.json")), lockText);
});

Deno.test("a commit that fails before the lockfile puts every folder back in place", async () => {
  const ws = await workspace();
  await using _ = ws.tmp;
  const a = await source(join(ws.tmp.path, "a"), skillMd("alpha"));
  const b = await source(join(ws.tmp.path, "b"), skillMd("beta"));
  await using tx = await ws.begin();
  const moves = [
    { canonical: "alpha", staged: await tx.stageCopy(a, "alpha", ["SKILL.md"]) },
    { canonical: "beta", staged: await tx.stageCopy(b, "beta", ["SKILL.md"]) },
  ];
  await assert.rejects(
    tx.commitFolders(moves, (l) => l, {
      beforeLockfile: () => {
        throw new Error("disk full");
      },
    }),
    /disk full/,
  );
  assert.equal(await Deno.stat(ws.skill("alpha")).catch(() => null), null);
  assert.equal(await Deno.stat(ws.skill("beta")).catch(() => null), null);
  assert.equal(await Deno.stat(join(ws.root, "skills-lock.json")).catch(() => null), null);
});

Deno.test("a journal planted in the repository moves nothing outside .agents/skills", async () => {
  const ws = await workspace();
  await using _ = ws.tmp;
  const precious = join(ws.tmp.path, "precious");
  await Deno.mkdir(precious);
  await Deno.writeTextFile(join(precious, "keep.txt"), "mine\n");
  const planted = join(ws.root, ".agents", ".staging", "1-deadbeef");
  await Deno.mkdir(planted, { recursive: true });
  await Deno.writeTextFile(
    join(planted, "project-intent.json"),
    JSON.stringify({
      version: 1,
      lockfile: "never",
      items: [
        { canonical: "x", target: precious, aside: null, staged: "s", hadOld: false },
        {
          canonical: "y",
          target: ws.skill("y"),
          aside: precious,
          staged: null,
          hadOld: true,
        },
      ],
    }),
  );
  // An ownerless staging folder counts as stale once it is older than the grace period.
  const old = new Date(Date.now() - 60_000);
  await Deno.utime(planted, old, old);
  await using tx = await ws.begin();
  assert.deepEqual(tx.recovered, []);
  assert.equal(await Deno.readTextFile(join(precious, "keep.txt")), "mine\n");
  assert.equal(await Deno.stat(ws.skill("y")).catch(() => null), null);
  assert.equal(await Deno.stat(planted).catch(() => null), null, "the planted folder is cleared");
});
