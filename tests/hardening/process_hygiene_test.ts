/**
 * Process hygiene: after a SIGTERM'd script run and a SIGKILL'd MCP server, no child
 * process of ours remains. (Timeouts and Ctrl-C in `skills run` and in the chat REPL are
 * covered in tests/e2e/run_test.ts and tests/e2e/chat_repl_test.ts.)
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
  const end = Date.now() + 15_000;
  while (Date.now() < end && !(await Deno.stat(pidFile).then(() => true, () => false))) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const pids = (await Deno.readTextFile(pidFile)).trim().split("\n").map(Number);
  child.kill("SIGTERM");
  const status = await child.output();
  assert.notEqual(status.code, 0);
  assert.deepEqual(await waitGone(pids), [], "script processes survived SIGTERM");
});

Deno.test("a SIGKILL'd MCP server leaves no toolset host behind", async () => {
  await using home = await tempDir();
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, cliEntry(), "mcp"],
    env: baseEnv({ SKILLS_HOME: home.path, AGENT_SKILLS: "hello-extended" }),
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
  await send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "activate_skill", arguments: { name: "hello-extended" } },
  });
  const activated = await responseTo(2);
  assert.equal(activated.result.isError, false);

  const children = descendants(server.pid);
  assert.ok(children.length > 0, "the toolset host runs while the server lives");
  server.kill("SIGKILL");
  await server.status;
  await lines.cancel().catch(() => {});
  await writer.close().catch(() => {});
  assert.deepEqual(await waitGone(children), [], "toolset host survived its server");
});
