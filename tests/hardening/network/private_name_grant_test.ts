/**
 * A host the user grants by name that resolves to a private address (a company registry on
 * 10.x, granted with `--allow-net registry.corp:443`): the user's grant reaches it, and stderr
 * says which address it reached; the skill's own declaration of the same name never does, and
 * its refusal names the grant that would work, not the one just refused; a name never reaches
 * a metadata address, whoever granted it (core/policy/net_grants.ts, sandbox/proxy.ts). The
 * names resolve through /etc/hosts, as a company's internal names do on its machines: each
 * test adds its own line and removes it.
 */

import assert from "node:assert/strict";
import { installAttemptSkill, labTest } from "../sandbox/sandbox_helpers.ts";
import { type PongServer, pongServer } from "../../helpers/pong_server.ts";

const HOSTS = "/etc/hosts";

/** Names for `address` in /etc/hosts for as long as the result is held (in place: it may be a mount). */
async function hostsEntry(address: string): Promise<{ name: string } & AsyncDisposable> {
  const name = `skills-registry-${crypto.randomUUID().slice(0, 8)}.test`;
  const before = await Deno.readTextFile(HOSTS);
  await Deno.writeTextFile(HOSTS, `${before.endsWith("\n") ? "" : "\n"}${address} ${name}\n`, {
    append: true,
  });
  return {
    name,
    async [Symbol.asyncDispose]() {
      const now = await Deno.readTextFile(HOSTS);
      const kept = now.split("\n").filter((line) => !line.endsWith(` ${name}`)).join("\n");
      await Deno.writeTextFile(HOSTS, kept);
    },
  };
}

/**
 * A pong server on loopback under a name of its own, for as long as the result is held: the
 * grant `name:port` that reaches it and the URL of its page.
 */
async function namedPongServer(): Promise<
  { server: PongServer; grant: string; url: string } & AsyncDisposable
> {
  const server = pongServer();
  let entry: { name: string } & AsyncDisposable;
  try {
    entry = await hostsEntry("127.0.0.1");
  } catch (error) {
    await server.close();
    throw error;
  }
  const grant = `${entry.name}:${server.port}`;
  return {
    server,
    grant,
    url: `http://${grant}/ping`,
    async [Symbol.asyncDispose]() {
      await entry[Symbol.asyncDispose]();
      await server.close();
    },
  };
}

labTest(
  "a name the user grants reaches the private address it resolves to, and stderr shows the address",
  async (lab) => {
    await using named = await namedPongServer();
    const { grant, url } = named;
    const result = await lab.runAttempt([`http:${url}`], { flags: ["--allow-net", grant] });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout)[`http:${url}`], { ok: true, detail: "pong" });
    assert.match(
      result.stderr,
      new RegExp(
        `warning: ${grant} resolves to 127\\.0\\.0\\.1, which is not a public address: reached because you granted ${grant}`,
      ),
    );
    assert.equal(named.server.requests, 1);
  },
);

labTest(
  "the skill's own declaration of that name never reaches it, and the refusal names the grant that would",
  async (lab) => {
    await using named = await namedPongServer();
    const { grant, url } = named;
    await installAttemptSkill(lab, "corp-lab", "Declares one host by name.", [
      "  network:",
      `    - ${grant}`,
    ]);
    const declared = await lab.runAttempt([`http:${url}`], { skill: "corp-lab" });
    assert.equal(declared.code, 0, declared.stderr);
    assert.equal(JSON.parse(declared.stdout)[`http:${url}`].ok, false);
    assert.match(
      declared.stderr,
      new RegExp(
        `refused a connection to ${grant}: resolves to 127\\.0\\.0\\.1, which is not a public address: a skill's own declaration never reaches one; grant the name yourself to let it \\(--allow-net ${grant}\\)`,
      ),
    );
    assert.equal(named.server.requests, 0);
    // Following that hint works.
    const granted = await lab.runAttempt([`http:${url}`], {
      skill: "corp-lab",
      flags: ["--allow-net", grant],
    });
    assert.deepEqual(JSON.parse(granted.stdout)[`http:${url}`], { ok: true, detail: "pong" });
  },
);

labTest(
  "a name that resolves to a metadata address is refused even when the user grants it",
  async (lab) => {
    await using entry = await hostsEntry("169.254.169.254");
    const grant = `${entry.name}:80`;
    const result = await lab.runAttempt([`http:http://${grant}/latest/meta-data/`], {
      flags: ["--allow-net", grant],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout)[`http:http://${grant}/latest/meta-data/`].ok, false);
    assert.match(
      result.stderr,
      /resolves to 169\.254\.169\.254, which is not a public address but a link-local or cloud metadata one: only a grant naming that address reaches it \(--allow-net 169\.254\.169\.254:80\)/,
    );
  },
);
