/**
 * Text snapshots: `assertSnapshot(path, actual)` compares `actual` with the committed file;
 * `UPDATE_SNAPSHOTS=1 deno test ...` rewrites the files instead (review the diff, then
 * commit). Written here because jsr's std snapshot module is not reachable offline.
 */

import assert from "node:assert/strict";
import { dirname } from "node:path";

export const UPDATING = Deno.env.get("UPDATE_SNAPSHOTS") === "1";

export async function assertSnapshot(path: string, actual: string): Promise<void> {
  if (UPDATING) {
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, actual);
    return;
  }
  let expected: string;
  try {
    expected = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    assert.fail(`No snapshot ${path}: run UPDATE_SNAPSHOTS=1 deno test -A <this test>`);
  }
  assert.equal(
    actual,
    expected,
    `${path} differs (if the change is deliberate: UPDATE_SNAPSHOTS=1 deno test -A <this test>)`,
  );
}
