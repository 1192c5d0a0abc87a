/**
 * The MCP servers a skill says its instructions call (`requires: {mcp: [rube]}`, as
 * ComposioHQ's 832 skills write it): `add` shows them before the question, `info` lists them,
 * and the field is no longer an "unknown field" on every install.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { okJson, runCli, tempDir } from "../../helpers/cli.ts";
import { writeTree } from "../../helpers/tree.ts";

Deno.test("add and info say which MCP servers a skill's instructions call", async () => {
  await using tmp = await tempDir("skills-mcp-servers-");
  await writeTree(join(tmp.path, "brex-automation"), {
    "SKILL.md":
      "---\nname: brex-automation\ndescription: Automates Brex tasks through the Rube MCP server.\nrequires:\n  mcp: [rube]\n---\n\n# Brex\n",
  });
  const opts = { env: { SKILLS_HOME: join(tmp.path, "home") }, cwd: tmp.path };
  const add = await runCli(["add", "./brex-automation", "--yes"], opts);
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout + add.stderr, /MCP servers: rube \(its instructions call them/);
  assert.doesNotMatch(add.stderr, /unknown field 'requires'/);
  const info = okJson(await runCli(["info", "brex-automation", "--json"], opts));
  assert.deepEqual(info.mcp_servers, ["rube"]);
});
