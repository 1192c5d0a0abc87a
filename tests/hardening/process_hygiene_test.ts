/**
 * Process hygiene: after a SIGTERM'd or SIGKILL'd script run and a SIGKILL'd MCP server
 * (idle, or in the middle of a script_run), no child process of ours remains. (Timeouts
 * and Ctrl-C in `skills run` and in the chat REPL are covered in tests/e2e/run_test.ts and
 * tests/e2e/chat_repl_test.ts.)
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { baseEnv, CLI_FLAGS, cliEntry, defaultCwd, tempDir } from "../helpers/cli.ts";
import { installRunnerSkill } from "../helpers/install_fixture.ts";

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z/.test(stat); // a zombie is already dead
  } catch {
    return false;
  }
}

async function waitGone(pids: number[], ms = 10_000): Promise<number[]> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pids.every((pid) => !alive(pid))) return [];
    await new Promise((r) => setTimeout(r, 50));
  }
  return pids.filter(alive);
}

/** All descendants of `root` (by parent pid), from /proc. */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parentOf.set(Number(entry.name), ppid);
    } catch { /* exited meanwhile */ }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

Deno.test("SIGTERM to skills run kills the script's whole tree", async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const pidFile = join(home.path, "pids");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, cliEntry(), "run", "runner-lab", "sleeper", pidFile],
    env: baseEnv({ SKILLS_HOME: home.path }),
    clearEnv: true,
    cwd: defaultCwd(),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const pids = await readPids(pidFile);
  child.kill("SIGTERM");
  const status = await child.output();
  assert.notEqual(status.code, 0);
  assert.deepEqual(await waitGone(pids), [], "script processes survived SIGTERM");
});

/** `skills mcp` over stdio, spoken to in raw JSON-RPC lines, initialized. */
async function startMcp(env: Record<string, string>) {
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, cliEntry(), "mcp"],
    env: baseEnv(env),
    clearEnv: true,
    cwd: defaultCwd(),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = server.stdin.getWriter();
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const responseTo = async (id: number) => {
    while (true) {
      const newline = buffered.indexOf("\n");
      if (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("server closed stdout");
      buffered += value;
    }
  };
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  await responseTo(1);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const kill = async () => {
    server.kill("SIGKILL");
    await server.status;
    await lines.cancel().catch(() => {});
    await writer.close().catch(() => {});
  };
  return { server, send, responseTo, kill };
}

Deno.test("a SIGKILL'd MCP server leaves no toolset host behind", async () => {
  await using home = await tempDir();
  const mcp = await startMcp({ SKILLS_HOME: home.path, AGENT_SKILLS: "hello-extended" });
  await mcp.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "activate_skill", arguments: { name: "hello-extended" } },
  });
  const activated = await mcp.responseTo(2);
  assert.equal(activated.result.isError, false);

  const children = descendants(mcp.server.pid);
  assert.ok(children.length > 0, "the toolset host runs while the server lives");
  await mcp.kill();
  assert.deepEqual(await waitGone(children), [], "toolset host survived its server");
});

/** The pids the sleeper fixture writes (its child's, then its own), once it has. */
async function readPids(pidFile: string): Promise<number[]> {
  const end = Date.now() + 15_000;
  while (Date.now() < end && !(await Deno.stat(pidFile).then(() => true, () => false))) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return (await Deno.readTextFile(pidFile)).trim().split("\n").map(Number);
}

/** Leaves nothing running when an assertion failed. */
function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
}

/** Starts `skills <args>`, waits for the sleeper fixture's pid file, returns both. */
async function startSleeper(args: string[], env: Record<string, string>, pidFile: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, cliEntry(), ...args],
    env: baseEnv(env),
    clearEnv: true,
    cwd: defaultCwd(),
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return { child, pids: await readPids(pidFile) };
}

Deno.test("SIGKILL to skills run: the script's tree ends on its own within a second", async () => {
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
    assert.deepEqual(await waitGone(pids, 3_000), [], "script processes outlived a SIGKILL'd CLI");
  } finally {
    killAll(pids);
  }
});

Deno.test("a SIGKILL'd MCP server leaves no script of an unfinished script_run behind", async () => {
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
  const pids = await readPids(pidFile);
  try {
    assert.deepEqual(pids.filter(alive), pids, "the script and its child run");
    await mcp.kill();
    assert.deepEqual(await waitGone(pids, 3_000), [], "the script outlived its MCP server");
  } finally {
    killAll(pids);
  }
});
