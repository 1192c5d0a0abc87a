import assert from "node:assert/strict";
import { join } from "node:path";
import { emptyRegistry, parseRegistry, upsertEntry } from "../../../src/core/records/registry.ts";
import { SkillError } from "../../../src/core/errors.ts";
import { readRegistry, registryPath, updateRegistry } from "../../../src/runtime/store/registry.ts";
import { tempDir } from "../../helpers/cli.ts";
import { localEntry } from "../../helpers/install_fixture.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

const WRITER = new URL("../../fixtures/registry_writer.ts", import.meta.url).pathname;

function writer(home: string, name: string, count?: number): Deno.ChildProcess {
  const args = [
    "run",
    "--quiet",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-sys",
    WRITER,
    home,
    name,
  ];
  if (count !== undefined) args.push(String(count));
  return new Deno.Command(Deno.execPath(), { args, stdout: "null", stderr: "piped" }).spawn();
}

Deno.test("a missing registry reads as empty", async () => {
  await using home = await tempDir();
  assert.deepEqual(await readRegistry(home.path), emptyRegistry());
});

Deno.test("a corrupt registry is an error naming the file, keeps a backup and is never replaced", async () => {
  await using home = await tempDir();
  const path = registryPath(home.path);
  await Deno.writeTextFile(path, '{"version": 1, "skills": [');
  await assert.rejects(() => readRegistry(home.path), (e: unknown) => {
    assert.ok(e instanceof SkillError);
    assert.equal(e.code, "registry_corrupt");
    assert.ok(e.message.includes(path));
    assert.match(e.hint ?? "", /registry\.json\.corrupt/);
    return true;
  });
  await assert.rejects(() => updateRegistry(home.path, (r) => ({ registry: r, result: 0 })));
  assert.equal(await Deno.readTextFile(path), '{"version": 1, "skills": [');
  assert.equal(await Deno.readTextFile(`${path}.corrupt`), '{"version": 1, "skills": [');
});

Deno.test("updateRegistry() writes nothing when the mutation throws", async () => {
  await using home = await tempDir();
  await updateRegistry(home.path, (r) => ({ registry: r, result: 0 }));
  const before = await Deno.readTextFile(registryPath(home.path));
  await assert.rejects(() =>
    updateRegistry(home.path, () => {
      throw new Error("boom");
    })
  );
  assert.equal(await Deno.readTextFile(registryPath(home.path)), before);
  // The lock was released: another update goes through at once.
  await updateRegistry(home.path, (r) => ({ registry: r, result: 0 }));
});

Deno.test("each write keeps the previous registry as registry.json.bak", async () => {
  await using home = await tempDir();
  const entry = (name: string) =>
    localEntry(name, join(home.path, name), {
      source: { type: "local", url: "/x", subpath: "" },
      trusted: false,
      trusted_digest: null,
    });
  await updateRegistry(home.path, (r) => ({ registry: upsertEntry(r, entry("a")), result: 0 }));
  await updateRegistry(home.path, (r) => ({ registry: upsertEntry(r, entry("b")), result: 0 }));
  const backup = parseRegistry(await Deno.readTextFile(`${registryPath(home.path)}.bak`));
  assert.ok(backup.ok);
  assert.deepEqual(backup.registry.skills.map((e) => e.name), ["a"]);
});

Deno.test("16 processes registering different entries at once lose none of them", {
  ignore: SKIP_SLOW,
}, async () => {
  await using home = await tempDir();
  const children = Array.from({ length: 16 }, (_, i) => writer(home.path, `skill-${i}`));
  const results = await Promise.all(children.map((c) => c.output()));
  for (const r of results) assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  const registry = await readRegistry(home.path);
  assert.deepEqual(
    registry.skills.map((e) => e.name).sort(),
    Array.from({ length: 16 }, (_, i) => `skill-${i}`).sort(),
  );
});

Deno.test("a writer killed at any point leaves the old or the new registry, never a torn one", {
  ignore: SKIP_SLOW,
}, async () => {
  await using home = await tempDir();
  let previousCount = 0;
  for (let round = 0; round < 12; round++) {
    const child = writer(home.path, `round${round}`, 50);
    // Kill at a different moment each round: early (during start-up/lock) to late (mid-writes).
    await new Promise((r) => setTimeout(r, 40 + round * 35));
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    await child.output();
    const text = await Deno.readTextFile(registryPath(home.path)).catch(() => null);
    if (text === null) continue; // killed before the first write
    const parsed = parseRegistry(text);
    assert.ok(parsed.ok, `round ${round}: torn registry: ${parsed.ok ? "" : parsed.reason}`);
    assert.ok(parsed.registry.skills.length >= previousCount, "an entry was lost");
    previousCount = parsed.registry.skills.length;
  }
  // A stale lock from a killed writer never blocks the next one for long.
  const started = Date.now();
  const last = await writer(home.path, "after-crashes").output();
  assert.equal(last.code, 0, new TextDecoder().decode(last.stderr));
  assert.ok(Date.now() - started < 20_000);
  const final = await readRegistry(home.path);
  assert.ok(final.skills.some((e) => e.name === "after-crashes"));
  assert.ok(final.skills.length >= previousCount + 1);
  // No temp files are left behind next to the registry except by a killed writer.
  for await (const item of Deno.readDir(home.path)) {
    assert.ok(!item.name.endsWith(".tmp") || item.name.startsWith("registry.json"), item.name);
  }
});
