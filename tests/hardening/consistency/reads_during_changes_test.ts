/**
 * Read-only commands and runs racing `add`, `update` and `remove` of the same skill never
 * crash: they see the old or the new skill, or a clear error (not found, being changed),
 * never "Unexpected error" with a stack trace.
 */

import assert from "node:assert/strict";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { createRepo, pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

const ROUNDS = 6;

Deno.test("list, info and run racing add, update and remove never crash", {
  ignore: SKIP_SLOW,
}, async () => {
  await using root = await tempDir();
  const home = `${root.path}/home`;
  const env = { SKILLS_HOME: home, GIT_CONFIG_GLOBAL: "/dev/null" };
  const files = (version: number) => ({
    "SKILL.md": skillMd("flux", `Version ${version} of the flux skill.`),
    "scripts/hello.py": pyScript(`print('{"version": ${version}}')`),
    "references/notes.md": `# Notes ${version}\n`.repeat(version + 1),
  });
  const repo = await createRepo(root.path, "repo", files(0));

  let changing = true;
  const changes = (async () => {
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const add = await runCli(["add", repo.url, "--yes"], { env, cwd: root.path });
        assert.equal(add.code, 0, add.stderr);
        await repo.commit(files(round));
        const update = await runCli(["update", "flux", "--yes"], { env, cwd: root.path });
        assert.equal(update.code, 0, update.stderr);
        const remove = await runCli(["remove", "flux", "--yes"], { env, cwd: root.path });
        assert.equal(remove.code, 0, remove.stderr);
      }
    } finally {
      changing = false;
    }
  })();

  const readers = [
    ["list", "--json"],
    ["info", "flux", "--json"],
    ["run", "flux", "hello", "--json"],
    ["scripts", "flux", "--json"],
  ];
  const seen: string[] = [];
  const read = async (args: string[]) => {
    while (changing) {
      const result = await runCli(args, { env, cwd: root.path });
      const text = result.stdout + result.stderr;
      seen.push(`${args[0]}:${result.code}`);
      assert.doesNotMatch(text, /Unexpected error|^\s+at /m, `${args.join(" ")}: ${text}`);
      if (result.code !== 0) {
        const envelope = JSON.parse(result.stdout);
        assert.match(
          envelope.error,
          /^(not_found|conflict|integrity_mismatch|untrusted)$/,
          `${args.join(" ")}: ${text}`,
        );
      }
    }
  };
  await Promise.all([changes, ...readers.map(read)]);
  assert.ok(seen.length > readers.length, "the readers ran during the changes");
});
