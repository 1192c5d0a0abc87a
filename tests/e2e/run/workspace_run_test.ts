/**
 * Real skills do their real work in the user's folder (the workspace), in the OS sandbox
 * and in policy mode: a packaging script given a relative folder writes its archive where
 * the user stands, a build script writes `./build.log`, a script reads the git repository
 * the user is in. The layouts follow public skills (skill packaging, build helpers).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, okJson, runCli, tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { needsSandbox, SANDBOX_MODES } from "../../helpers/sandbox.ts";
import { git } from "../../fixtures/git_repos.ts";
import { connectStdio, envelopeOf } from "../../helpers/mcp_client.ts";

async function userProject(mode: string) {
  const dir = await tempDir("skills-ws-");
  const home = join(dir.path, "skills-home");
  const user = join(dir.path, "user");
  const project = join(dir.path, "my-project");
  await Deno.mkdir(user);
  await Deno.mkdir(join(project, "my-skill", "scripts"), { recursive: true });
  await Deno.chmod(project, 0o755);
  await Deno.writeTextFile(join(project, "my-skill", "SKILL.md"), "---\nname: my-skill\n---\n");
  await Deno.writeTextFile(join(project, "my-skill", "scripts", "go.py"), "print('hi')\n");
  await installRunnerSkill(home, "workspace-lab");
  const run = (args: string[]): Promise<CliResult> =>
    runCli(["run", "workspace-lab", ...args], {
      env: { SKILLS_HOME: home, HOME: user, SKILLS_SANDBOX: mode },
      cwd: project,
    });
  return {
    dir,
    home,
    user,
    project,
    run,
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

for (const [label, mode, where] of SANDBOX_MODES) {
  Deno.test(
    `${label}: a packaging script given a relative folder writes its archive into the user's folder`,
    where,
    async () => {
      await using p = await userProject(mode);
      const packed = okJson(await p.run(["package_folder", "my-skill", "--json"]));
      assert.equal(packed.archive, join(await Deno.realPath(p.project), "my-skill.skill"));
      assert.equal(packed.files, 2);
      assert.ok((await Deno.stat(join(p.project, "my-skill.skill"))).size > 0);
    },
  );

  Deno.test(
    `${label}: a build script writes ./build.log where the user ran it`,
    where,
    async () => {
      await using p = await userProject(mode);
      const result = await p.run(["build_log", "--json"]);
      const out = okJson(result);
      assert.equal(out.log, join(await Deno.realPath(p.project), "build.log"));
      assert.match(await Deno.readTextFile(join(p.project, "build.log")), /^build started in /);
      const receipt = JSON.parse(
        result.stderr.split("\n").find((line) => line.startsWith("receipt: "))!.slice(9),
      );
      assert.deepEqual(receipt.files.created, ["build.log"]);
      assert.equal(receipt.sandbox, mode === "off" ? "policy" : "bubblewrap");
      // In text mode the receipt is one line (the log changed since, so the run changes it).
      await Deno.writeTextFile(join(p.project, "build.log"), "an older build\n");
      const text = await p.run(["build_log"]);
      assert.match(
        text.stderr,
        /^receipt: workspace-lab\/build_log exit 0 in \d+ ms; 1 changed \(build\.log\)$/m,
      );
    },
  );

  Deno.test(`${label}: a script reads the git repository the user is in`, where, async () => {
    await using p = await userProject(mode);
    await git(p.project, ["init", "-q"]);
    await git(p.project, ["add", "."]);
    await git(p.project, ["commit", "-qm", "the user's last commit"]);
    const info = okJson(await p.run(["repo_info", "--json"]));
    assert.equal(info.top, await Deno.realPath(p.project));
    assert.equal(info.subject, "the user's last commit");
  });
}

/** The entries of `dir`, sorted. */
function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
}

Deno.test(
  "skills run <skill> <script> --help changes nothing in the folder, whatever the script does with --help",
  needsSandbox,
  async () => {
    await using p = await userProject("auto");
    for (const args of [["build_log", "--help"], ["build_log", "--help", "--json"]]) {
      const result = await p.run(args);
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stderr,
        /the script's changes were discarded: a --help run changes nothing \(1 created\)/,
        args.join(" "),
      );
      assert.match(result.stderr, /the folder is as it was \(not written: build\.log\)/);
      assert.deepEqual(names(p.project), ["my-skill"], args.join(" "));
    }
  },
);

Deno.test(
  "skills mcp --workspace DIR: script_run works in DIR; a missing folder is refused at start",
  needsSandbox,
  async () => {
    await using p = await userProject("auto");
    {
      await using session = await connectStdio(
        { SKILLS_HOME: p.home, HOME: p.user, AGENT_SKILLS: "workspace-lab" },
        p.dir.path,
        ["--workspace", p.project],
      );
      // Asked for its help, the script writes build.log all the same: discarded.
      const help = await session.client.callTool({
        name: "script_help",
        arguments: { skill_name: "workspace-lab", script_name: "build_log" },
      });
      assert.equal((envelopeOf(help) as { success: boolean }).success, true);
      assert.deepEqual(names(p.project), ["my-skill"]);
      const called = await session.client.callTool({
        name: "script_run",
        arguments: { skill_name: "workspace-lab", script_name: "build_log" },
      });
      const envelope = envelopeOf(called) as {
        success: boolean;
        result: { log: string };
        receipt: { files: { created: string[] } };
      };
      assert.equal(envelope.success, true, JSON.stringify(envelope));
      assert.equal(envelope.result.log, join(await Deno.realPath(p.project), "build.log"));
      assert.deepEqual(envelope.receipt.files.created, ["build.log"]);
    }
    const missing = await runCli(["mcp", "--workspace", join(p.dir.path, "nope")], {
      env: { SKILLS_HOME: p.home },
    });
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /Invalid --workspace '.*nope': not a folder/);
  },
);

Deno.test(
  "a script failing on a connection the sandbox refused gets a hint naming the host and the grant",
  needsSandbox,
  async () => {
    await using p = await userProject("auto");
    const env = { SKILLS_HOME: p.home, HOME: p.user };
    // A grant for another host starts the proxy, which refuses this one.
    const refused = await runCli(["run", "workspace-lab", "fetch", "http://127.0.0.1:9/"], {
      env: { ...env, SKILLS_ALLOW_NET: "example.invalid:443" },
      cwd: p.project,
    });
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /hint: The sandbox refused 127\.0\.0\.1:9 .*--allow-net 127\.0\.0\.1:9 or set SKILLS_ALLOW_NET=127\.0\.0\.1:9/,
    );
    // Without any grant the script has no network at all, and is told so.
    const offline = await runCli(["run", "workspace-lab", "fetch", "http://api.example.com/"], {
      env,
      cwd: p.project,
    });
    assert.equal(offline.code, 1, offline.stderr);
    assert.match(offline.stderr, /hint: The sandbox gives scripts no network .*--allow-net HOST/);
  },
);
