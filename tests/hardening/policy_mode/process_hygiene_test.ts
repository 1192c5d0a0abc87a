/**
 * Process hygiene: after a SIGTERM'd or SIGKILL'd script run and a SIGKILL'd MCP server
 * (idle, or in the middle of a script_run), no child process of ours remains. (Timeouts
 * and Ctrl-C in `skills run` and in the chat REPL are covered in tests/e2e/run/run_test.ts and
 * tests/e2e/chat/chat_repl_test.ts.)
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnCli, tempDir } from "../../helpers/cli.ts";
import { alive, descendants, killAll, sleeperPids, survivors } from "../../helpers/processes.ts";
import { spawnMcp } from "../../helpers/mcp_stdio.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";

Deno.test("SIGTERM to skills run kills the script's whole tree", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const pidFile = join(home.path, "pids");
  const child = spawnCli(["run", "runner-lab", "sleeper", pidFile], {
    env: { SKILLS_HOME: home.path },
    stdout: "null",
  });
  const pids = await sleeperPids(pidFile);
  child.kill("SIGTERM");
  const status = await child.output();
  assert.notEqual(status.code, 0);
  assert.deepEqual(await survivors(pids, 10_000), [], "script processes survived SIGTERM");
});

/** `skills mcp` over stdio, spoken to in raw JSON-RPC lines, initialized. */
async function startMcp(env: Record<string, string>) {
  const mcp = spawnMcp(env);
  await mcp.initialize();
  return mcp;
}

Deno.test("a SIGKILL'd MCP server leaves no toolset host behind", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir();
  const mcp = await startMcp({ SKILLS_HOME: home.path, AGENT_SKILLS: "hello-extended" });
  await mcp.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "activate_skill", arguments: { name: "hello-extended" } },
  });
  const activated = await mcp.lines.responseTo(2);
  assert.equal(activated.result.isError, false);

  const children = descendants(mcp.child.pid);
  assert.ok(children.length > 0, "the toolset host runs while the server lives");
  await mcp.kill();
  assert.deepEqual(await survivors(children, 10_000), [], "toolset host survived its server");
});

/** Starts `skills <args>`, waits for the sleeper fixture's pid file, returns both. */
async function startSleeper(args: string[], env: Record<string, string>, pidFile: string) {
  const child = spawnCli(args, { env, stdout: "null", stderr: "null" });
  return { child, pids: await sleeperPids(pidFile) };
}

Deno.test("SIGKILL to skills run: the script's tree ends on its own within a second", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const pidFile = join(home.path, "pids");
  const { child, pids } = await startSleeper(
    ["run", "runner-lab", "sleeper", pidFile],
    { SKILLS_HOME: home.path },
    pidFile,
  );
  try {
    assert.deepEqual(pids.filter(alive), pids, "the script and its child run");
    child.kill("SIGKILL");
    await child.status;
    assert.deepEqual(await survivors(pids, 3_000), [], "script processes outlived a SIGKILL'd CLI");
  } finally {
    killAll(pids);
  }
});

Deno.test("a SIGKILL'd MCP server leaves no script of an unfinished script_run behind", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const pidFile = join(home.path, "pids");
  const mcp = await startMcp({ SKILLS_HOME: home.path, AGENT_SKILLS: "runner-lab" });
  await mcp.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: {
      name: "script_run",
      arguments: { skill_name: "runner-lab", script_name: "sleeper", args: [pidFile] },
    },
  });
  const pids = await sleeperPids(pidFile);
  try {
    assert.deepEqual(pids.filter(alive), pids, "the script and its child run");
    await mcp.kill();
    assert.deepEqual(await survivors(pids, 3_000), [], "the script outlived its MCP server");
  } finally {
    killAll(pids);
  }
});
