/**
 * docs/performance.md's table is made from bench/results.json (bench/table.ts), so the figures
 * it states are the last measured ones, each with its date: compared cell by cell (deno fmt pads
 * the cells).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { END, performanceTable, START } from "../../bench/table.ts";
import { REPO_ROOT } from "../helpers/cli.ts";

const cells = (text: string) =>
  text.split("\n").map((line) => line.trim()).filter((line) => line !== "")
    .filter((line) => !/^\|[\s|:-]+\|$/.test(line)) // the separator row, however padded
    .map((line) => line.startsWith("|") ? line.split("|").map((c) => c.trim()).join("|") : line);

Deno.test("docs/performance.md's table is bench/results.json's, as bench/table.ts makes it", async () => {
  const results = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "bench", "results.json")));
  const readme = await Deno.readTextFile(join(REPO_ROOT, "docs", "performance.md"));
  const shown = readme.slice(readme.indexOf(START) + START.length, readme.indexOf(END));
  assert.ok(readme.includes(START) && readme.includes(END), "the markers are in the document");
  assert.deepEqual(cells(shown), cells(performanceTable(results)));
});
