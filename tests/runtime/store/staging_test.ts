import assert from "node:assert/strict";
import { join } from "node:path";
import {
  emptyRegistry,
  type Registry,
  type RegistryEntry,
  upsertEntry,
} from "../../../src/core/records/registry.ts";
import { inspectHome, isConsistent, repairHome } from "../../../src/runtime/store/consistency.ts";
import { readRegistry, writeRegistryUnlocked } from "../../../src/runtime/store/registry.ts";
import { createStaging, disposeStaging, listStale } from "../../../src/runtime/store/staging.ts";
import { type Intent, parseIntent } from "../../../src/core/records/journal.ts";
import { cleanStale as cleanScope, recoverUnderLock } from "../../../src/runtime/store/recovery.ts";
import { tempDir } from "../../helpers/cli.ts";
import { skillMd } from "../../fixtures/git_repos.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { deadPid } from "../../helpers/processes.ts";

/**
 * These dead commands write `intent.json` by hand, exactly as version 1 of `Change` wrote
 * it: recovery still reads that format (store/journal.ts) and rolls it back as it did.
 */
const cleanStale = (home: string) => cleanScope({ kind: "user", home });

/** A staging directory as a killed command leaves it: its owner file is no longer locked. */
async function deadStagingDir(home: string, id: string): Promise<string> {
  const path = join(home, ".staging", id);
  await Deno.mkdir(path, { recursive: true });
  await Deno.writeTextFile(join(path, ".owner"), "");
  return path;
}

function entry(home: string, name: string, updatedAt = "2024-01-01T00:00:00.000Z"): RegistryEntry {
  return {
    name,
    name_canonical: name,
    source: { type: "git", url: "file:///r.git", subpath: "" },
    commit_sha: "a".repeat(40),
    branch: "main",
    tag: null,
    ref: null,
    installed_path: join(home, name),
    trusted: true,
    trusted_digest: "sha256:x",
    installed_at: updatedAt,
    updated_at: updatedAt,
  };
}

async function skillDir(path: string, marker: string) {
  await Deno.mkdir(path, { recursive: true });
  await Deno.writeTextFile(join(path, "SKILL.md"), skillMd("s", marker));
}

/** A staging (and trash) directory of a dead command with the intent it wrote. */
async function deadCommand(home: string, intent: (trash: string) => Intent) {
  const id = `${await deadPid()}-0badc0de`;
  const staging = await deadStagingDir(home, id);
  const trash = join(home, ".trash", id);
  await Deno.writeTextFile(join(staging, "intent.json"), JSON.stringify(intent(trash)));
  return { staging, trash };
}

async function withRegistry(home: string, registry: Registry) {
  await Deno.mkdir(home, { recursive: true });
  writeRegistryUnlocked(home, registry);
}

Deno.test("recovery rolls back an install that moved files but never wrote its entry", async () => {
  await using tmp = await tempDir();
  const home = tmp.path;
  await withRegistry(home, emptyRegistry());
  await deadCommand(home, () => ({
    version: 1,
    op: "install",
    items: [{ canonical: "alpha", target: join(home, "alpha"), aside: null, updatedAt: "t1" }],
  }));
  await skillDir(join(home, "alpha"), "moved in before the crash");
  assert.equal(isConsistent(await inspectHome(home)), false, "an orphan before recovery");
  const notes = await cleanStale(home);
  assert.deepEqual(notes, ["rolled back the interrupted install of 'alpha'"]);
  const report = await inspectHome(home);
  assert.deepEqual(report, { missing: [], orphans: [], leftovers: [] });
  assert.equal(await Deno.stat(join(home, "alpha")).catch(() => null), null);
});

Deno.test("recovery keeps an install whose entry was written", async () => {
  await using tmp = await tempDir();
  const home = tmp.path;
  await withRegistry(home, upsertEntry(emptyRegistry(), entry(home, "alpha", "t1")));
  await deadCommand(home, () => ({
    version: 1,
    op: "install",
    items: [{ canonical: "alpha", target: join(home, "alpha"), aside: null, updatedAt: "t1" }],
  }));
  await skillDir(join(home, "alpha"), "installed");
  assert.deepEqual(await cleanStale(home), []);
  assert.ok(await Deno.stat(join(home, "alpha", "SKILL.md")));
  assert.deepEqual(await inspectHome(home), { missing: [], orphans: [], leftovers: [] });
});

Deno.test("recovery puts the old version back after an update died between the renames", async () => {
  await using tmp = await tempDir();
  const home = tmp.path;
  await withRegistry(home, upsertEntry(emptyRegistry(), entry(home, "alpha", "old")));
  const { trash } = await deadCommand(home, (trash) => ({
    version: 1,
    op: "update",
    items: [{
      canonical: "alpha",
      target: join(home, "alpha"),
      aside: join(trash, "alpha"),
      updatedAt: "new",
    }],
  }));
  await skillDir(join(trash, "alpha"), "old version");
  await skillDir(join(home, "alpha"), "new version, entry not yet written");

  const notes = await cleanStale(home);
  assert.deepEqual(notes, ["rolled back the interrupted update of 'alpha'"]);
  assert.match(await Deno.readTextFile(join(home, "alpha", "SKILL.md")), /old version/);
  assert.deepEqual(await inspectHome(home), { missing: [], orphans: [], leftovers: [] });
});

Deno.test("recovery restores a directory whose removal died before the entry was dropped", async () => {
  await using tmp = await tempDir();
  const home = tmp.path;
  await withRegistry(home, upsertEntry(emptyRegistry(), entry(home, "alpha")));
  const { trash } = await deadCommand(home, (trash) => ({
    version: 1,
    op: "remove",
    items: [{
      canonical: "alpha",
      target: join(home, "alpha"),
      aside: join(trash, "alpha"),
      updatedAt: null,
    }],
  }));
  await skillDir(join(trash, "alpha"), "moved aside");
  assert.deepEqual((await inspectHome(home)).missing, ["alpha"]);
  await cleanStale(home);
  assert.deepEqual(await inspectHome(home), { missing: [], orphans: [], leftovers: [] });
});

Deno.test("recovery never touches the staging directory of a running command", async () => {
  await using tmp = await tempDir();
  const home = tmp.path;
  await withRegistry(home, emptyRegistry());
  const mine = createStaging(home); // this process is alive and holds the owner lock
  try {
    await Deno.writeTextFile(join(mine.path, "clone-in-progress"), "x");
    // A name with a pid that is gone proves nothing: only the owner lock counts.
    const renamed = join(home, ".staging", `${await deadPid()}-feedface`);
    await Deno.rename(mine.path, renamed);
    const crashed = await deadStagingDir(home, `${await deadPid()}-deadbeef`);
    await Deno.mkdir(join(crashed, "src"));
    const justCreated = join(home, ".staging", `${await deadPid()}-0000aaaa`);
    await Deno.mkdir(justCreated); // no owner file yet: a command between mkdir and lock
    assert.deepEqual((await listStale(home)).map((e) => e.path), [crashed]);
    const { cleaned } = await recoverUnderLock({ kind: "user", home }, await readRegistry(home));
    assert.deepEqual(cleaned, [crashed]);
    assert.ok(await Deno.stat(join(renamed, "clone-in-progress")));
    assert.ok(await Deno.stat(justCreated));
    await Deno.remove(justCreated);
    await Deno.rename(renamed, mine.path);
  } finally {
    disposeStaging(mine);
  }
  assert.deepEqual((await inspectHome(home)).leftovers, []);
});

Deno.test("repairHome() also clears leftovers it did not create, and drops entries without files", async () => {
  await using tmp = await tempDir();
  const home = tmp.path;
  await withRegistry(home, upsertEntry(emptyRegistry(), entry(home, "ghost")));
  await Deno.mkdir(join(home, ".trash", "old-orphan-123"), { recursive: true });
  const before = await inspectHome(home);
  assert.deepEqual(before.missing, ["ghost"]);
  assert.deepEqual(before.leftovers, [join(home, ".trash", "old-orphan-123")]);
  await repairHome(home);
  assert.deepEqual(await inspectHome(home), { missing: [], orphans: [], leftovers: [] });
  assert.deepEqual((await readRegistry(home)).skills, []);
});

Deno.test(
  "commands creating and probing staging directories at once never judge a live one stale",
  { ignore: SKIP_SLOW },
  async () => {
    await using tmp = await tempDir();
    const home = join(tmp.path, "home");
    const staging = new URL("../../../src/runtime/store/staging.ts", import.meta.url).href;
    // Each worker creates, lists (probing every other worker's owner lock) and disposes its
    // staging directories in a tight loop; all workers are alive, so nothing may be stale.
    const worker = join(tmp.path, "worker.ts");
    await Deno.writeTextFile(
      worker,
      `import { createStaging, disposeStaging, listStale } from ${JSON.stringify(staging)};
const home = Deno.args[0];
for (let i = 0; i < 150; i++) {
  const mine = createStaging(home);
  const stale = await listStale(home);
  if (stale.length > 0) throw new Error("judged stale: " + stale.map((s) => s.name).join(" "));
  disposeStaging(mine);
}
`,
    );
    const runs = Array.from({ length: 4 }, () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "--quiet", "--allow-read", "--allow-write", worker, home],
        stdout: "piped",
        stderr: "piped",
      }).output());
    for (const out of await Promise.all(runs)) {
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
    }
    assert.deepEqual(await listStale(home), []);
  },
);

Deno.test("parseIntent() refuses a malformed intent with the path of the bad field", () => {
  const item = { canonical: "alpha", target: "/h/alpha", aside: null, updatedAt: "t1" };
  const good = { version: 1, op: "update", items: [item] };
  assert.deepEqual(parseIntent(JSON.stringify(good)), { ok: true, intent: good });
  const table: [unknown, string][] = [
    [[], "intent.json: expected object, got array"],
    [{ ...good, version: 2 }, "intent.json at version: expected 1, got 2"],
    [
      { ...good, op: "erase" },
      'intent.json at op: expected "install", "update" or "remove", got "erase"',
    ],
    [
      { ...good, items: [item, { ...item, target: 7 }] },
      "intent.json at items.1.target: expected string, got number",
    ],
    [
      { ...good, items: [{ canonical: "a", target: "/h/a", updatedAt: null }] },
      "intent.json at items.0.aside: expected string or null, got nothing",
    ],
  ];
  for (const [value, reason] of table) {
    assert.deepEqual(parseIntent(JSON.stringify(value)), { ok: false, reason });
  }
  const broken = parseIntent('{"version": 1,');
  assert.ok(!broken.ok);
  assert.match(broken.reason, /^intent\.json is not valid JSON/);
});

Deno.test("recovery ignores a malformed intent: it moves nothing, and still cleans up", async () => {
  await using tmp = await tempDir();
  const home = tmp.path;
  await withRegistry(home, emptyRegistry());
  const { staging } = await deadCommand(home, () => ({
    version: 1,
    op: "install",
    // A target that is not a string: the intent is not trusted for any move.
    items: [{ canonical: "alpha", target: 7, aside: null, updatedAt: "t1" }],
  } as unknown as Intent));
  const notes = await cleanStale(home);
  assert.deepEqual(notes, []);
  assert.equal(await Deno.stat(staging).catch(() => null), null);
});
