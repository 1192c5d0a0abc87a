/** `skills context --agent`: the active skills' listing against an agent's budget. */

import assert from "node:assert/strict";
import { runCli, tempDir } from "../../helpers/cli.ts";

Deno.test("skills context --agent says whether the listing fits, and which skills a small window leaves out", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const skills = ["--skills", "kalshi-markets,hello-extended"];
  const fits = await runCli(["context", ...skills, "--agent", "claude-code"], { env });
  assert.equal(fits.code, 0, fits.stderr);
  assert.match(
    fits.stdout,
    /Claude Code listing: \d+ of 8000 characters \(its fallback.*\) — fits/,
  );
  const small = await runCli(
    ["context", ...skills, "--agent", "codex", "--context-window", "2000", "--json"],
    { env },
  );
  assert.equal(small.code, 0, small.stderr);
  const listing = JSON.parse(small.stdout).listing;
  assert.equal(listing.budget_chars, 160);
  assert.equal(listing.fits, false);
  assert.deepEqual(listing.omitted, ["kalshi-markets"]);
  const usage = await runCli(["context", "--context-window", "2000"], { env });
  assert.equal(usage.code, 2);
});
