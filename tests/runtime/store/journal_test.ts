/**
 * The one journal format and the two before it: each is read into the same shape, a journal
 * is acted on only in its own scope's staging, and a project change that left its lockfile
 * alone (a restore, written by version 1 as `"lockfile": "unchanged"`) completes folder by
 * folder — only a folder moved aside without its replacement goes back.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readJournal } from "../../../src/runtime/store/journal.ts";
import { cleanStale } from "../../../src/runtime/store/recovery.ts";
import { tempDir } from "../../helpers/cli.ts";

async function write(dir: string, file: string, data: unknown) {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, file), JSON.stringify(data));
}

Deno.test("readJournal() reads version 2 and both version 1 formats into one shape", async () => {
  await using tmp = await tempDir();
  const user = join(tmp.path, "user");
  await write(user, "intent.json", {
    version: 1,
    op: "remove",
    items: [{ canonical: "a", target: "/h/a", aside: "/h/.trash/1/a", updatedAt: null }],
  });
  assert.deepEqual(await readJournal(user, "user"), {
    version: 2,
    scope: "user",
    lockfile: null,
    items: [{
      canonical: "a",
      target: "/h/a",
      aside: "/h/.trash/1/a",
      movesIn: false,
      updatedAt: null,
    }],
  });
  assert.equal(await readJournal(user, "project"), undefined, "intent.json is the user's");

  const project = join(tmp.path, "project");
  await write(project, "project-intent.json", {
    version: 1,
    lockfile: "abc",
    items: [{ canonical: "b", target: "/r/b", aside: null, staged: "/s/b", hadOld: false }],
  });
  assert.deepEqual(await readJournal(project, "project"), {
    version: 2,
    scope: "project",
    lockfile: "abc",
    items: [{ canonical: "b", target: "/r/b", aside: null, movesIn: true, updatedAt: null }],
  });
  assert.equal(await readJournal(project, "user"), undefined);

  const current = join(tmp.path, "current");
  const journal = {
    version: 2,
    scope: "project",
    lockfile: "unchanged",
    items: [{ canonical: "c", target: "/r/c", aside: "/t/c", movesIn: true, updatedAt: null }],
  };
  await write(current, "journal.json", journal);
  assert.deepEqual(await readJournal(current, "project"), journal);
  assert.equal(await readJournal(current, "user"), undefined, "acted on in its own scope only");
  await write(current, "journal.json", { ...journal, version: 3 });
  assert.equal(await readJournal(current, "project"), undefined, "a journal that does not check");
});

Deno.test("a version 1 restore that left the lockfile alone completes folder by folder", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "app");
  const home = join(tmp.path, "home");
  const skills = join(root, ".agents", "skills");
  const child = new Deno.Command("true").spawn();
  await child.status;
  const id = `${child.pid}-0badc0de`;
  const staging = join(root, ".agents", ".staging", id);
  const trash = join(root, ".agents", ".trash", id);
  // `done` was swapped (old aside, new in); `half` only had its old folder moved aside.
  for (
    const [dir, text] of [
      [join(skills, "done"), "new"],
      [join(trash, "done"), "old"],
      [join(trash, "half"), "old"],
    ]
  ) {
    await Deno.mkdir(dir!, { recursive: true });
    await Deno.writeTextFile(join(dir!, "SKILL.md"), text!);
  }
  await write(staging, "project-intent.json", {
    version: 1,
    lockfile: "unchanged",
    items: ["done", "half"].map((name) => ({
      canonical: name,
      target: join(skills, name),
      aside: join(trash, name),
      staged: join(staging, "new", name),
      hadOld: true,
    })),
  });
  await Deno.writeTextFile(join(staging, ".owner"), "");
  const notes = await cleanStale({ kind: "project", home, root });
  assert.deepEqual(notes, ["rolled back the interrupted change of project skill 'half'"]);
  assert.equal(await Deno.readTextFile(join(skills, "done", "SKILL.md")), "new", "kept");
  assert.equal(await Deno.readTextFile(join(skills, "half", "SKILL.md")), "old", "put back");
  assert.deepEqual([...Deno.readDirSync(join(root, ".agents"))].map((e) => e.name), ["skills"]);
});
