/**
 * The model's service tools through the library (the surface chat and MCP share): offered only
 * with the user's grant, start only a script its skill declares a service, stop only what the
 * session started.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openSkills } from "../../../mod.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";
import { accepts, serviceFixture } from "../../helpers/services.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

const linuxSandbox = { ...needsSandbox, ignore: needsSandbox.ignore || Deno.build.os !== "linux" };

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test({
  name: "the service tools exist only with the user's grant",
  ...linuxSandbox,
  fn: async () => {
    await using fx = await serviceFixture();
    const open = async (allowServices?: boolean) => {
      await using skills = await openSkills({
        installed: ["companion-lab"],
        home: fx.home,
        env: fx.env,
        workspace: fx.workspace,
        ...(allowServices === undefined ? {} : { allowServices }),
      });
      return skills.toolDefinitions().map((t) => t.name).filter((n) => n.startsWith("service_"));
    };
    assert.deepEqual(await open(), []);
    assert.deepEqual(await open(false), []);
    assert.deepEqual(await open(true), ["service_start", "service_list", "service_stop"]);
  },
});

Deno.test({
  name:
    "a model starts a declared service, reaches it through the live folder, lists it and stops it",
  ...linuxSandbox,
  ignore: linuxSandbox.ignore || SKIP_SLOW,
  fn: async () => {
    await using fx = await serviceFixture();
    await using skills = await openSkills({
      installed: ["companion-lab"],
      home: fx.home,
      env: fx.env,
      workspace: fx.workspace,
      allowServices: true,
    });
    assert.equal(
      (await skills.callTool("activate_skill", { name: "companion-lab" })).success,
      true,
    );

    const undeclared = await skills.callTool("service_start", {
      skill_name: "companion-lab",
      script_name: "events",
      args: ["--state-dir", "."],
    });
    assert.equal(undeclared.success ? "" : undeclared.error, "permission_denied");
    const outside = await skills.callTool("service_start", {
      skill_name: "companion-lab",
      script_name: "companion",
      args: ["--project-dir", ".companion"],
      write: [".."],
    });
    assert.equal(outside.success ? "" : outside.error, "permission_denied");

    const started = await skills.callTool("service_start", {
      skill_name: "companion-lab",
      script_name: "companion",
      args: ["--project-dir", ".companion"],
      write: [".companion"],
    });
    assert.ok(started.success, JSON.stringify(started));
    const result = started.result as Json;
    const info = JSON.parse(result.output.split("\n")[0]);
    await Deno.writeTextFile(join(info.screen_dir, "s.html"), "<p>asked by the model</p>");
    assert.match(await (await fetch(result.urls[0])).text(), /asked by the model/);

    const listed = await skills.callTool("service_list", {});
    assert.ok(listed.success);
    assert.deepEqual((listed.result as Json).services.map((s: Json) => s.id), [result.id]);

    const foreign = await skills.callTool("service_stop", { id: "someoneelse" });
    assert.equal(foreign.success ? "" : foreign.error, "permission_denied");
    const stopped = await skills.callTool("service_stop", { id: result.id });
    assert.ok(stopped.success, JSON.stringify(stopped));
    assert.equal(await accepts(result.ports[0].host), false);
  },
});
