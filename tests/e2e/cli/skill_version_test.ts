/**
 * The version `list` and `info` show: `metadata.version` (what the authors' guide recommends
 * and `publish` copies into the OCI version annotation), else the top-level `version`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { okJson, runCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";

Deno.test("list and info show metadata.version, else version", async () => {
  await using tmp = await tempDir("skills-version-");
  const home = join(tmp.path, "home");
  const skill = (name: string, fields: string) =>
    `---\nname: ${name}\ndescription: Shows its version in list and info.\n${fields}---\n\n# ${name}\n`;
  await writeTree(join(tmp.path, "meta-versioned"), {
    "SKILL.md": skill("meta-versioned", 'metadata:\n  version: "2.1.0"\n  author: someone\n'),
  });
  await writeTree(join(tmp.path, "seed-versioned"), {
    "SKILL.md": skill("seed-versioned", "version: 1.4.0\n"),
  });
  await installFixtureSkill(home, join(tmp.path, "meta-versioned"));
  await installFixtureSkill(home, join(tmp.path, "seed-versioned"));
  const env = { SKILLS_HOME: home };

  const listed = okJson(await runCli(["list", "--json"], { env })).skills as {
    canonical: string;
    version: string | null;
  }[];
  const versions = Object.fromEntries(
    listed.filter((s) => s.canonical.endsWith("-versioned")).map((s) => [s.canonical, s.version]),
  );
  assert.deepEqual(versions, { "meta-versioned": "2.1.0", "seed-versioned": "1.4.0" });
  const table = await runCli(["list"], { env });
  assert.match(table.stdout, /^meta-versioned\s+2\.1\.0\s/m);

  assert.equal(
    okJson(await runCli(["info", "meta-versioned", "--json"], { env })).version,
    "2.1.0",
  );
  const info = await runCli(["info", "meta-versioned"], { env });
  assert.match(info.stdout, /2\.1\.0/);
});
