/**
 * Every script a skill ships is reachable, as document skills lay them out: a nested script
 * by its name (`office/unpack`) or the path SKILL.md writes (`scripts/office/unpack.py`),
 * an extension-less helper told by its `#!` line, a script outside `scripts/` by its path
 * from the skill root (`resources/deploy.sh`); and a PEP 723 script whose declared package
 * already imports runs without uv, while a missing one is named with what the user can do.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, okJson, runCli, tempDir } from "../../helpers/cli.ts";
import { connectStdio, envelopeOf } from "../../helpers/mcp_client.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { needsSandbox, SANDBOX_MODES } from "../../helpers/sandbox.ts";

async function officeLab(mode: string) {
  const dir = await tempDir("skills-office-");
  const home = join(dir.path, "skills-home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await Deno.chmod(work, 0o755);
  await installRunnerSkill(home, "office-lab");
  // A .docx is a zip archive: made by python's zipfile, as the tests have no Office.
  const made = await new Deno.Command("python3", {
    args: [
      "-c",
      "import zipfile; z = zipfile.ZipFile('report.docx', 'w'); " +
      "z.writestr('[Content_Types].xml', '<Types/>'); " +
      "z.writestr('word/document.xml', '<w:document/>'); z.close()",
    ],
    cwd: work,
  }).output();
  assert.ok(made.success);
  const run = (args: string[]): Promise<CliResult> =>
    runCli(["run", "office-lab", ...args], {
      // No uv here (the tests are about what happens without it).
      env: { SKILLS_HOME: home, SKILLS_SANDBOX: mode, PATH: "/usr/bin:/bin" },
      cwd: work,
    });
  return { dir, home, work, run, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

Deno.test("skills scripts lists nested and extension-less scripts with what runs them", async () => {
  await using lab = await officeLab("auto");
  const listed = await runCli(["scripts", "office-lab", "--json"], {
    env: { SKILLS_HOME: lab.home },
  });
  const scripts = okJson(listed)["office-lab"] as { name: string; interpreter: string }[];
  assert.deepEqual(scripts.map((s) => [s.name, s.interpreter]), [
    ["needs_missing", "python"],
    ["office/unpack", "python"],
    ["task-brief", "bash"],
    ["uses_vendored", "python"],
  ]);
});

for (const [label, mode, where] of SANDBOX_MODES) {
  Deno.test(
    `${label}: office/unpack and scripts/office/unpack.py unpack a document into the user's folder`,
    where,
    async () => {
      await using lab = await officeLab(mode);
      for (const [name, out] of [["office/unpack", "a"], ["scripts/office/unpack.py", "b"]]) {
        const result = okJson(await lab.run([name!, "report.docx", out!, "--json"]));
        assert.equal(result.parts, 2, name);
        assert.equal(
          await Deno.readTextFile(join(lab.work, out!, "word", "document.xml")),
          "<w:document/>",
        );
      }
      const help = await lab.run(["office/unpack", "--help"]);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /usage: unpack\.py/);
    },
  );

  Deno.test(`${label}: an extension-less bash script runs by its #! line`, where, async () => {
    await using lab = await officeLab(mode);
    assert.deepEqual(okJson(await lab.run(["task-brief", "x", "--json"])), {
      brief: "task in work",
      args: 2,
    });
  });

  Deno.test(
    `${label}: resources/deploy.sh runs by its path from the skill root`,
    where,
    async () => {
      await using lab = await officeLab(mode);
      const result = await lab.run(["resources/deploy.sh", "staging"]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "deploying to staging\n");
      // A path that leaves the skill, or names no script language, is refused.
      for (const bad of ["../office-lab/SKILL.md", "resources/../../x.sh", "SKILL.md"]) {
        const refused = await lab.run([bad]);
        assert.notEqual(refused.code, 0, bad);
        assert.match(refused.stderr, /Invalid script name|not found/, bad);
      }
    },
  );

  Deno.test(
    `${label}: without uv, a PEP 723 script whose package imports runs; a missing one is named`,
    where,
    async () => {
      await using lab = await officeLab(mode);
      assert.deepEqual(okJson(await lab.run(["uses_vendored", "--json"])), { answer: 42 });
      const missing = await lab.run(["needs_missing"]);
      assert.equal(missing.code, 1, missing.stderr);
      assert.match(
        missing.stderr,
        /needs the Python package surely-absent-dist, not installed for python3, and uv is not installed/,
      );
      assert.match(missing.stderr, /python3 -m pip install surely-absent-dist/);
    },
  );
}

Deno.test("MCP resources/list and activate_skill name every file the skill ships, scripts/ included", async () => {
  await using lab = await officeLab("auto");
  await using session = await connectStdio(
    { SKILLS_HOME: lab.home, AGENT_SKILLS: "office-lab" },
    lab.work,
  );
  const { client } = session;
  {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri).filter((u) => u.startsWith("skill://office-lab/"));
    for (
      const path of [
        "SKILL.md",
        "scripts/office/unpack.py",
        "scripts/office/schemas/wml.xsd",
        "scripts/task-brief",
        "scripts/uses_vendored.py",
        "resources/deploy.sh",
        "vendored_lib/__init__.py",
      ]
    ) {
      assert.ok(uris.includes(`skill://office-lab/${path}`), `${path} in ${uris.join(", ")}`);
    }
    const read = await client.readResource({ uri: "skill://office-lab/scripts/task-brief" });
    assert.match((read.contents[0] as { text: string }).text, /^#!\/usr\/bin\/env bash/);
    const activated = await client.callTool({
      name: "activate_skill",
      arguments: { name: "office-lab" },
    });
    const text = envelopeOf(activated).result as string;
    assert.match(text, /^scripts \(script_help, script_run\): .*office\/unpack/m);
    assert.match(
      text,
      /^other files under scripts\/ \(read_skill_file\): scripts\/office\/schemas\/wml\.xsd$/m,
    );
  }
});

Deno.test(
  "a script that fails silently in a sandbox with no network is told which hosts it names and the grant",
  needsSandbox,
  async () => {
    // vercel-labs' deploy-to-vercel: its deploy.sh posts with `curl -s`, which exits 6 and
    // prints nothing when the host does not resolve; the skill declares no network.
    await using lab = await officeLab("auto");
    // Failing on its arguments, it is not told about the network, though it names a host.
    const usage = await lab.run(["resources/upload.py"]);
    assert.equal(usage.code, 2, usage.stderr);
    assert.doesNotMatch(usage.stderr, /network|--allow-net/);
    const failed = await lab.run(["resources/upload.py", "report.docx"]);
    assert.equal(failed.code, 6, failed.stderr);
    assert.match(
      failed.stderr,
      /hint: 'office-lab' declares no network access, so the sandbox gave this run none, and resources\/upload\.py names uploads\.vendor-cloud\.net\. If the script should reach it, run it with --allow-net uploads\.vendor-cloud\.net or set SKILLS_ALLOW_NET=uploads\.vendor-cloud\.net\./,
    );
    const json = await lab.run(["resources/upload.py", "--json", "--", "report.docx"]);
    assert.match(JSON.parse(json.stdout).details.hint, /--allow-net uploads\.vendor-cloud\.net/);
  },
);
