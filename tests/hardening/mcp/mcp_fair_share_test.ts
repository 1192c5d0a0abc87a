/**
 * Issue 39: `skills mcp --http` without a token, a hostile local process beside a real MCP
 * client (the official SDK). The hostile process — raw HTTP from Debian's python3, run as
 * another user (`nobody`, through util-linux `setpriv`) — opens 130 sessions, then holds its
 * sessions busy with request bodies that never end. The real client's idle session is never
 * evicted, a new real client still gets a session, the hostile process is capped at its own
 * share (429), and its never-ending bodies are answered 408 within the body timeout.
 */

import assert from "node:assert/strict";
import { tempDir } from "../../helpers/cli.ts";
import { initializeRequest } from "../../helpers/mcp_stdio.ts";
import { waitFor } from "../../helpers/wait.ts";
import { connectHttp, startHttpMcp } from "../../mcp/http_fixture.ts";

/** The hostile client: prints one line per phase, as `phase key=value ...`. */
const HOSTILE = String.raw`
import http.client, json, socket, sys, time
port = int(sys.argv[1]); init = sys.argv[2]
headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

def initialize():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/mcp", body=init, headers=headers)
    r = c.getresponse()
    sid = r.getheader("mcp-session-id")
    c.close()
    return r.status, sid

# Phase 1: more sessions than the whole table holds.
statuses = [initialize()[0] for _ in range(130)]
print("flooded ok=%d other=%s" % (statuses.count(200), sorted(set(statuses) - {200})), flush=True)
sys.stdin.readline()

# Phase 2: every session it may hold, each kept busy by a body that never ends. The sessions
# are opened first, then the bodies begun all at once: begun one by one between the
# initializes, the first could reach the body timeout on a busy machine before the last began.
sids = [initialize()[1] for _ in range(64)]
held = []
for sid in sids:
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
               "Accept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\n"
               "Mcp-Protocol-Version: 2025-06-18\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\"" % (port, sid)).encode())
    held.append(s)
time.sleep(0.5)
print("holding more=%d" % initialize()[0], flush=True)
start = time.time()
answers = []
for s in held:
    s.settimeout(60)
    try:
        answers.append(s.recv(64).split(b" ")[1].decode())
    except Exception as e:
        answers.append(type(e).__name__)
print("answered codes=%s after=%.1f" % (",".join(sorted(set(answers))), time.time() - start), flush=True)
print("after more=%d" % initialize()[0], flush=True)
`;

Deno.test(
  "a hostile local user cannot evict a client's session, take every slot, or hold sessions with endless bodies",
  {
    ignore: Deno.build.os !== "linux" || Deno.uid() !== 0,
  },
  async () => {
    await using home = await tempDir("skills-mcp-fair-");
    await Deno.chmod(home.path, 0o755);
    await using server = await startHttpMcp({ SKILLS_HOME: home.path, AGENT_SKILLS: "none" });
    await using real = await connectHttp(server.url);
    assert.ok(Array.isArray((await real.client.listTools()).tools));

    const hostile = new Deno.Command("setpriv", {
      args: [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "/usr/bin/python3",
        "-c",
        HOSTILE,
        server.url.port,
        JSON.stringify(initializeRequest("hostile")),
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let said = "";
    const reading = (async () => {
      for await (const text of hostile.stdout.pipeThrough(new TextDecoderStream())) said += text;
    })();
    const line = (phase: string) =>
      waitFor(() => new RegExp(`^${phase} (.*)$`, "m").exec(said)?.[1], {
        what: `the hostile client's ${phase} line`,
        timeoutMs: 120_000,
        detail: () => said,
      });
    const stdin = hostile.stdin.getWriter();
    try {
      // 130 sessions opened: each past its share replaced one of its own, never the client's.
      assert.equal(await line("flooded"), "ok=130 other=[]");
      assert.ok(Array.isArray((await real.client.listTools()).tools), "the idle session survived");
      await stdin.write(new TextEncoder().encode("\n"));

      // Its share is busy with endless bodies: it gets no more; a real client still gets in.
      assert.equal(await line("holding"), "more=429");
      await using another = await connectHttp(server.url);
      assert.ok(Array.isArray((await another.client.listTools()).tools));
      assert.ok(Array.isArray((await real.client.listTools()).tools));

      // The endless bodies are answered 408 within the body timeout (10 s), freeing the slots.
      const answered = /^codes=(\S+) after=([\d.]+)$/.exec(await line("answered"))!;
      assert.equal(answered[1], "408");
      assert.ok(Number(answered[2]) < 15, `answered after ${answered[2]} s`);
      assert.equal(await line("after"), "more=200");
    } finally {
      await stdin.close().catch(() => {});
      try {
        hostile.kill("SIGKILL"); // done, or stuck on a server that never answers
      } catch { /* it has ended */ }
      await hostile.status;
      await reading;
      await hostile.stderr.cancel();
    }
  },
);
