import assert from "node:assert/strict";
import { join } from "node:path";
import { ListingCache } from "../../../src/runtime/masks/listing_cache.ts";
import { tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

Deno.test("a kept listing is used while its folder's key holds, and read again once an entry moves", async () => {
  await using dir = await tempDir();
  await using store = await tempDir();
  await writeTree(dir.path, { "src/a.ts": "", "src/lib/b.ts": "" });
  await new Promise((resolve) => setTimeout(resolve, 20)); // past the clock's tick
  const first = ListingCache.open(store.path, dir.path, 0);
  const listed = first.list(join(dir.path, "src"));
  const named = listed.names.map((name, i) => `${name}:${listed.kinds[i]}`);
  assert.deepEqual(named.sort(), ["a.ts:f", "lib:d"]);
  first.save();
  const readDir = Deno.readDirSync;
  let reads = 0;
  Deno.readDirSync = (path: string | URL) => (reads++, readDir(path));
  try {
    const again = ListingCache.open(store.path, dir.path, 0);
    assert.deepEqual(again.list(join(dir.path, "src")).names.sort(), ["a.ts", "lib"]);
    assert.equal(reads, 0, "kept: not read");
    await Deno.writeTextFile(join(dir.path, "src/.env"), "x");
    assert.deepEqual(again.list(join(dir.path, "src")).names.sort(), [".env", "a.ts", "lib"]);
    assert.equal(reads, 1, "an entry was added: read again");
  } finally {
    Deno.readDirSync = readDir;
  }
});

Deno.test("kept listings for another folder or version, torn, or with kinds that are none are ignored", async () => {
  await using dir = await tempDir();
  await using store = await tempDir();
  await writeTree(dir.path, { "src/a.ts": "" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const cache = ListingCache.open(store.path, dir.path, 0);
  const real = cache.list(join(dir.path, "src"));
  cache.save();
  const [file] = [...Deno.readDirSync(store.path)].map((entry) => join(store.path, entry.name));
  const kept = JSON.parse(await Deno.readTextFile(file!));
  const forged = { ...real, names: ["other.ts"] }; // under the right key, in a file to ignore
  for (
    const text of [
      JSON.stringify({ ...kept, dir: "/elsewhere", folders: { "/src": forged } }),
      JSON.stringify({ ...kept, version: 0, folders: { "/src": forged } }),
      JSON.stringify({ ...kept, folders: { "/src": { ...forged, kinds: "fx" } } }),
      JSON.stringify(kept).slice(0, 40),
    ]
  ) {
    await Deno.writeTextFile(file!, text);
    const names = ListingCache.open(store.path, dir.path, 0).list(join(dir.path, "src")).names;
    assert.deepEqual(names, ["a.ts"], text);
  }
});
