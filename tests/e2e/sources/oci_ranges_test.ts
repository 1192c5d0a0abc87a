/**
 * A dependency on an OCI artifact with a semver range (`oci://registry/repo ^1.2` in
 * `metadata.requires`), end to end against a real registry (Debian's docker-registry on a
 * loopback port): `add` installs the highest tag of the repository's tag list in the range,
 * `update` moves it to a newer tag in the range and never past it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { startRegistry } from "../../helpers/oci_registry.ts";
import { writeTree } from "../../helpers/tree.ts";

const versioned = (name: string, version: string, requires?: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill at ${version}, for OCI range tests.\n${
    requires === undefined ? "" : `metadata:\n  requires: "${requires}"\n`
  }---\nThis is ${name} ${version}.\n`;

Deno.test("an OCI dependency's range picks the highest tag in range, and update stays in it", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const env = { SKILLS_HOME: join(tmp.path, "home"), HOME: tmp.path };
    const publish = async (version: string, tag = version) => {
      const dir = join(tmp.path, `base-${version}`);
      await writeTree(dir, { "SKILL.md": versioned("base", version) });
      const out = await runCli(["publish", dir, `oci://${registry.host}/team/base:${tag}`]);
      assert.equal(out.code, 0, out.stderr);
    };
    for (const version of ["1.0.0", "1.2.0", "1.3.0", "2.0.0"]) await publish(version);
    await publish("2.0.0", "latest");
    const app = join(tmp.path, "app");
    await writeTree(app, {
      "SKILL.md": versioned("app", "1.0.0", `oci://${registry.host}/team/base ^1.2`),
    });

    const add = await runCli(["add", app, "--yes"], { env });
    assert.equal(add.code, 0, add.stderr);
    const entry = async () =>
      JSON.parse(await Deno.readTextFile(join(env.SKILLS_HOME, "registry.json"))).skills
        .find((e: { name: string }) => e.name === "base");
    assert.equal((await entry()).tag, "1.3.0", "^1.2 takes 1.3.0, not 2.0.0 or latest");
    assert.deepEqual((await entry()).version_ranges, ["^1.2"]);
    assert.match(
      await Deno.readTextFile(join(env.SKILLS_HOME, "base", "SKILL.md")),
      /base 1\.3\.0/,
    );

    await publish("1.4.0");
    const update = await runCli(["update", "base", "--yes"], { env });
    assert.equal(update.code, 0, update.stderr);
    assert.equal((await entry()).tag, "1.4.0");
    assert.match(
      await Deno.readTextFile(join(env.SKILLS_HOME, "base", "SKILL.md")),
      /base 1\.4\.0/,
    );

    const clash = join(tmp.path, "clash");
    await writeTree(clash, {
      "SKILL.md": versioned("clash", "1.0.0", `oci://${registry.host}/team/base ^3`),
    });
    const none = await runCli(["add", clash, "--yes"], { env });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /has no tag that satisfies \^3 \(tags: .*1\.4\.0/);
  } finally {
    await registry.close();
  }
});
