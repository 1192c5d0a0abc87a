/**
 * runtime/services/state.ts and helper.ts: a service reads as alive only while its recorded
 * supervisor is the same process in the same boot — a dead pid, a reused one and another boot
 * read as ended, with why — and `permissions.services` names a script by any of its names.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { probe } from "../../../src/runtime/services/helper.ts";
import {
  declaresService,
  listServices,
  type ServiceState,
  writeState,
} from "../../../src/runtime/services/state.ts";
import { tempDir } from "../../helpers/cli.ts";
import { deadPid } from "../../helpers/processes.ts";

const env = { PATH: "/usr/bin:/bin" };
const linux = { ignore: Deno.build.os !== "linux" };

function state(id: string, boot: string, pid: number, start: string): ServiceState {
  const now = new Date().toISOString();
  return {
    id,
    skill: "companion-lab",
    script: "companion",
    args: [],
    cwd: "/",
    boot_id: boot,
    pid,
    pid_start: start,
    started_at: now,
    status: "running",
    ports: [{ sandbox: 8080, host: 8080 }],
    live: [],
    idle_seconds: 60,
    max_seconds: 60,
    last_active_at: now,
  };
}

Deno.test({
  name: "listServices() reads a service as running only while its very process is",
  ...linux,
  fn: async () => {
    await using home = await tempDir();
    const me = await probe([Deno.pid], env);
    const write = async (s: ServiceState) => {
      const dir = join(home.path, ".services", s.boot_id, s.id);
      await Deno.mkdir(dir, { recursive: true });
      writeState(dir, s);
    };
    await write(state("live", me.bootId, Deno.pid, me.starts.get(Deno.pid)!));
    await write(state("dead", me.bootId, await deadPid(), "1"));
    await write(state("reused", me.bootId, Deno.pid, "1"));
    await write(state("oldboot", "another-boot", Deno.pid, me.starts.get(Deno.pid)!));
    const listed = Object.fromEntries(
      (await listServices(home.path, env)).map((s) => [s.id, s]),
    );
    assert.equal(listed.live!.alive, true);
    assert.equal(listed.live!.status, "running");
    for (const id of ["dead", "reused", "oldboot"]) {
      assert.equal(listed[id]!.alive, false, id);
      assert.equal(listed[id]!.status, "ended", id);
      assert.deepEqual(listed[id]!.ports, [], id);
    }
    assert.equal(listed.oldboot!.end_reason, "the machine restarted since");
    assert.equal(listed.dead!.end_reason, "its supervisor is gone (killed or crashed)");
  },
});

Deno.test("listServices() of a home without services is empty, with no helper started", async () => {
  await using home = await tempDir();
  assert.deepEqual(await listServices(home.path, { PATH: "/nonexistent" }), []);
});

Deno.test("declaresService() matches a script by its name, its file or scripts/ path", () => {
  const script = { name: "start-server", file: "start-server.sh" };
  assert.equal(declaresService(["start-server"], script), true);
  assert.equal(declaresService(["start-server.sh"], script), true);
  assert.equal(declaresService(["scripts/start-server.sh"], script), true);
  assert.equal(declaresService(["stop-server"], script), false);
  assert.equal(declaresService([], script), false);
});
