/**
 * Hostile names through `--name`, `--skill` and MCP calls, and hostile repositories (a
 * symlink out of the skill, 10,000 files, a tree bomb, a file over the size limit):
 * nothing outside $SKILLS_HOME is written or read, nothing runs, memory stays bounded. (Hostile URLs and refs, a SKILL.md symlink, submodules and hooks
 * are in tests/e2e/lifecycle/lifecycle_safety_test.ts.)
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { SkillError } from "../../../src/core/errors.ts";
import { COMMANDS } from "../../../src/cli/command_table/command_table.ts";
import { HOSTILE_NAMES, HOSTILE_PATHS } from "./hostile_names.ts";
import { baseEnv, cliArgv, runCli, tempDir } from "../../helpers/cli.ts";
import {
  commitInOnePack,
  commitTreeBomb,
  commitZeroFile,
  createRepo,
  skillFiles,
} from "../../fixtures/git_repos.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

/**
 * What `--skill` takes as a skill's path in the source rather than a name: plain folders
 * (`a/b`, `./skill`, `skill/`), only ever compared with the paths the source holds.
 */
const PLAIN_PATH = /^(?:\.\/)?(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*\/?$/;

Deno.test("skills add refuses every hostile --name and --skill before touching anything", async () => {
  const add = await COMMANDS.add!.load();
  for (const name of HOSTILE_NAMES) {
    for (const flag of ["--name", "--skill"]) {
      if (flag === "--skill" && name === "*") continue; // '*' means "all skills"
      // A plain relative path picks a folder of the source (compared, never opened: the e2e
      // test of published names shows `../x` refused and a path the source lacks not found).
      if (flag === "--skill" && name.includes("/") && PLAIN_PATH.test(name)) {
        const parsed = add.parse(["./skill", `${flag}=${name}`]) as { skills: string[] };
        assert.ok(parsed.skills.every((s) => s.includes("/")), `${name} is a path selector`);
        continue;
      }
      assert.throws(
        () => add.parse(["./skill", `${flag}=${name}`]),
        (e: unknown) =>
          e instanceof SkillError && (e.code === "usage" || e.code === "invalid_name"),
        `${flag} ${JSON.stringify(name)}`,
      );
    }
  }
});

Deno.test("MCP calls and resource reads refuse every hostile name and path", async () => {
  await using home = await tempDir("skills-mcp-hostile-");
  const [command, ...args] = cliArgv(["mcp"]);
  const transport = new StdioClientTransport({
    command: command!,
    args,
    env: baseEnv({ SKILLS_HOME: home.path, AGENT_SKILLS: "kalshi-markets" }),
    cwd: home.path,
    stderr: "pipe",
  });
  const client = new Client({ name: "hostile", version: "1.0.0" });
  await client.connect(transport);
  try {
    for (const name of HOSTILE_NAMES) {
      for (
        const [tool, args] of [
          ["script_run", { skill_name: name, script_name: "status" }],
          ["script_help", { skill_name: "kalshi-markets", script_name: name }],
          ["activate_skill", { name }],
          ["read_skill_file", { skill: name, path: "SKILL.md" }],
        ] as const
      ) {
        const result = await client.callTool({ name: tool, arguments: args });
        assert.equal(result.isError, true, `${tool} ${JSON.stringify(name)}`);
        const envelope = JSON.parse((result.content as { text: string }[])[0]!.text);
        assert.equal(envelope.success, false);
      }
    }
    for (const path of HOSTILE_PATHS) {
      const uri = `skill://kalshi-markets/${path}`;
      let text = "";
      try {
        const read = await client.readResource({ uri });
        text = JSON.stringify(read.contents);
      } catch (error) {
        text = String(error);
        assert.match(text, /MCP error|Invalid|not|refus/i, uri);
        continue;
      }
      assert.fail(`${uri} was read: ${text.slice(0, 200)}`);
    }
    // The server survived all of it.
    const ok = await client.readResource({ uri: "skill://kalshi-markets/SKILL.md" });
    assert.match(JSON.stringify(ok.contents), /kalshi-markets/);
  } finally {
    await client.close();
  }
});

async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (path: string, rel: string) => {
    for await (const entry of Deno.readDir(path)) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      out.push(child);
      if (entry.isDirectory && !entry.isSymlink) await walk(join(path, entry.name), child);
    }
  };
  await walk(dir, "");
  return out.sort();
}

Deno.test("a repo with a symlink out of the skill: it is left out, never followed; nothing is written outside the home", async () => {
  await using dir = await tempDir();
  const repo = await createRepo(dir.path, "evil", skillFiles("evil"));
  await Deno.symlink("/etc/passwd", join(repo.work, "scripts", "passwd.py"));
  await repo.commit({}, "add an escaping symlink");
  const home = join(dir.path, "home");
  const fakeHome = join(dir.path, "user");
  await Deno.mkdir(fakeHome);
  const before = await snapshot(dir.path);
  const result = await runCli(["add", repo.url, "--yes"], {
    env: { SKILLS_HOME: home, HOME: fakeHome, GIT_CONFIG_GLOBAL: "/dev/null" },
    cwd: dir.path,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /passwd\.py: a symlink to \/etc\/passwd, leading out of the source: left out/,
  );
  const after = (await snapshot(dir.path)).filter((p) => !p.startsWith("home"));
  assert.deepEqual(after, before, "something was written outside $SKILLS_HOME");
  // Installed without the link and without a copy of what it points at.
  await assert.rejects(
    Deno.lstat(join(home, "evil", "scripts", "passwd.py")),
    Deno.errors.NotFound,
  );
  const installed = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  assert.deepEqual(installed.skills.map((e: { name: string }) => e.name), ["evil"]);
});

Deno.test("a 10,000-file repository installs within the home only, with capped listings", {
  ignore: SKIP_SLOW,
}, async () => {
  await using dir = await tempDir();
  const repo = await createRepo(dir.path, "big", skillFiles("big"));
  const assets = Array.from(
    { length: 10_000 },
    (_, i) => [`assets/file-${String(i).padStart(5, "0")}.txt`, `${i}\n`] as const,
  );
  await commitInOnePack(repo, assets, "ten thousand files");
  const home = join(dir.path, "home");
  const fakeHome = join(dir.path, "user");
  await Deno.mkdir(fakeHome);
  const before = await snapshot(fakeHome);
  const env = { SKILLS_HOME: home, HOME: fakeHome, GIT_CONFIG_GLOBAL: "/dev/null" };
  const result = await runCli(["add", repo.url, "--yes", "--json"], { env, cwd: dir.path });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(await snapshot(fakeHome), before, "nothing is written to HOME");
  const info = JSON.parse((await runCli(["info", "big", "--json"], { env, cwd: dir.path })).stdout);
  assert.equal(info.assets.length, 500, "resource listings are capped");
  const check = JSON.parse((await runCli(["check", "--json"], { env, cwd: dir.path })).stdout);
  assert.equal(check.healthy, true);
});

Deno.test(
  "a tree bomb (a million paths from seven objects) is refused; nothing is written anywhere",
  { ignore: SKIP_SLOW },
  async () => {
    await using dir = await tempDir();
    const home = join(dir.path, "home");
    const env = { SKILLS_HOME: home, GIT_CONFIG_GLOBAL: "/dev/null" };
    const good = await createRepo(dir.path, "good", skillFiles("good"));
    assert.equal((await runCli(["add", good.url, "--yes"], { env, cwd: dir.path })).code, 0);
    const registry = await Deno.readTextFile(join(home, "registry.json"));

    const repo = await createRepo(dir.path, "bomb", skillFiles("bomb"));
    await commitTreeBomb(repo, dir.path);
    const withRepo = await snapshot(dir.path);
    const result = await runCli(["add", repo.url, "--yes"], { env, cwd: dir.path });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /more than 100000 files and directories/);
    assert.deepEqual(await snapshot(dir.path), withRepo, "nothing was written anywhere");
    assert.equal(await Deno.readTextFile(join(home, "registry.json")), registry);
  },
);

Deno.test("a repository holding a file over 100 MiB is refused before the file is read", {
  ignore: SKIP_SLOW,
}, async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const env = { SKILLS_HOME: home, GIT_CONFIG_GLOBAL: "/dev/null" };
  const repo = await createRepo(dir.path, "heavy", skillFiles("heavy"));
  await commitZeroFile(repo, "assets/huge.bin", 101 * 1024 * 1024, "a huge asset");
  const before = await snapshot(dir.path);
  const result = await runCli(["add", repo.url, "--yes"], { env, cwd: dir.path });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /assets\/huge\.bin is 105906176 bytes; files over .* are refused/);
  assert.deepEqual(await snapshot(dir.path), before, "nothing was written anywhere");
});
