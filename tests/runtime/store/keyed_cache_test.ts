import assert from "node:assert/strict";
import { join } from "node:path";
import { cacheKey, readKeyed, writeKeyed } from "../../../src/runtime/store/keyed_cache.ts";
import { tempDir } from "../../helpers/cli.ts";

Deno.test("cacheKey() is the SHA-256 of the material's JSON: another input, another key", () => {
  const key = cacheKey(["a", 1, { b: [2] }]);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(cacheKey(["a", 1, { b: [2] }]), key);
  assert.notEqual(cacheKey(["a", 1, { b: [3] }]), key);
});

Deno.test("readKeyed() returns a value only under the key it was kept with, and within its size", async () => {
  await using home = await tempDir();
  const key = cacheKey(["one"]);
  const other = cacheKey(["two"]);
  assert.equal(readKeyed(home.path, "things", key, 1000), undefined);
  writeKeyed(home.path, "things", key, { counted: 42 }, 8);
  assert.deepEqual(readKeyed(home.path, "things", key, 1000), { counted: 42 });
  assert.equal(readKeyed(home.path, "things", key, 10), undefined, "larger than allowed");
  const dir = join(home.path, ".cache", "things");
  await Deno.copyFile(join(dir, `${key}.json`), join(dir, `${other}.json`));
  assert.equal(readKeyed(home.path, "things", other, 1000), undefined, "copied under another key");
  await Deno.writeTextFile(join(dir, `${key}.json`), "{torn");
  assert.equal(readKeyed(home.path, "things", key, 1000), undefined);
});

Deno.test("writeKeyed() keeps the most recently written entries of a folder and removes the rest", async () => {
  await using home = await tempDir();
  const keys = [0, 1, 2, 3].map((i) => cacheKey([i]));
  for (const [i, key] of keys.entries()) {
    writeKeyed(home.path, "few", key, i, 2);
    // Distinct modification times, oldest first.
    const path = join(home.path, ".cache", "few", `${key}.json`);
    Deno.utimeSync(path, 1_000 + i, 1_000 + i);
  }
  assert.deepEqual(keys.map((key) => readKeyed(home.path, "few", key, 1000)), [
    undefined,
    undefined,
    2,
    3,
  ]);
});
