/**
 * The sandbox's network: nothing leaves but through the CLI's proxy, and the proxy lets
 * through only the hosts the manifest declares (permissions.network) or the user grants
 * (--allow-net, SKILLS_ALLOW_NET). A loopback HTTP server stands in for the internet.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { installAttemptSkill, labTest, pythonOnlyBin } from "./sandbox_helpers.ts";
import { pongServer } from "../../helpers/pong_server.ts";

labTest(
  "a script without declared network reaches no server, not even on loopback",
  async (lab) => {
    await using server = pongServer();
    const seen = await lab.attempt([`http:${server.url}`, `tcp:127.0.0.1:${server.port}`]);
    assert.equal(seen[`http:${server.url}`]!.ok, false, seen[`http:${server.url}`]!.detail);
    assert.equal(seen[`tcp:127.0.0.1:${server.port}`]!.ok, false);
    assert.equal(server.requests, 0);
  },
);

labTest("SKILLS_ALLOW_NET and --allow-net open exactly the granted host:port", async (lab) => {
  await using server = pongServer();
  const grant = `127.0.0.1:${server.port}`;
  const ops = [`http:${server.url}`, `tcp:${grant}`];

  const viaEnv = await lab.attempt(ops, { SKILLS_ALLOW_NET: `example.com,${grant}` });
  assert.deepEqual(viaEnv[`http:${server.url}`], { ok: true, detail: "pong" });
  // Only through the proxy: a raw connection still meets an empty network.
  assert.equal(viaEnv[`tcp:${grant}`]!.ok, false);

  const viaFlag = await lab.attempt(ops, {}, ["--allow-net", grant]);
  assert.deepEqual(viaFlag[`http:${server.url}`], { ok: true, detail: "pong" });

  const otherPort = await lab.runAttempt([`http:${server.url}`], {
    flags: ["--allow-net", `127.0.0.1:${server.port === 1 ? 2 : server.port - 1}`],
  });
  const refused = JSON.parse(otherPort.stdout)[`http:${server.url}`];
  assert.equal(refused.ok, false);
  assert.match(refused.detail, /403/);
  assert.match(
    otherPort.stderr,
    new RegExp(`refused a connection to ${grant}: not in the skill's permissions.network`),
  );
  assert.equal(server.requests, 2, "only the granted runs reached the server");

  const bad = await lab.run(["--allow-net", "http://x", "sandbox-lab", "attempt"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Invalid --allow-net/);
  const badEnv = await lab.run(["sandbox-lab", "attempt"], { SKILLS_ALLOW_NET: "a b" });
  assert.equal(badEnv.code, 2);
  assert.match(badEnv.stderr, /Invalid SKILLS_ALLOW_NET/);
});

labTest(
  "a loopback host the manifest declares needs the user's grant; the user's proxy settings are not used",
  async (lab) => {
    await using server = pongServer();
    await installAttemptSkill(lab, "net-lab", "Declares one loopback host.", [
      "  env: [HTTP_PROXY, NO_PROXY]",
      "  network:",
      `    - 127.0.0.1:${server.port}`,
    ]);
    // A skill may not grant itself a local address: only the user may.
    const declared = await lab.runAttempt([`http:${server.url}`], { skill: "net-lab" });
    assert.equal(declared.code, 0, declared.stderr);
    assert.equal(JSON.parse(declared.stdout)[`http:${server.url}`].ok, false);
    assert.match(
      declared.stderr,
      /net-lab declares 127\.0\.0\.1:\d+, which is not a public address/,
    );
    const result = await lab.runAttempt([`http:${server.url}`, "env:NO_PROXY", "env:HTTP_PROXY"], {
      skill: "net-lab",
      // Forwarded by the skill's permissions.env, yet replaced inside the sandbox.
      env: {
        HTTP_PROXY: "http://127.0.0.1:9",
        NO_PROXY: "127.0.0.1",
        SKILLS_ALLOW_NET: `127.0.0.1:${server.port}`,
      },
    });
    assert.equal(result.code, 0, result.stderr);
    const seen = JSON.parse(result.stdout);
    assert.deepEqual(seen[`http:${server.url}`], { ok: true, detail: "pong" });
    assert.equal(seen["env:NO_PROXY"].ok, false);
    assert.match(seen["env:HTTP_PROXY"].detail, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(seen["env:HTTP_PROXY"].detail, "http://127.0.0.1:9");
  },
);

labTest(
  "kalshi-markets declares its API host: a stand-in server needs the user's grant",
  async (lab) => {
    const { startKalshiFixture } = await import("../../fixtures/kalshi_server.ts");
    const fixture = await startKalshiFixture();
    try {
      const env = { KALSHI_API_BASE: fixture.baseUrl };
      const refused = await lab.run(["kalshi-markets", "status", "--json"], env);
      assert.equal(refused.code, 1);
      assert.match(
        JSON.parse(refused.stdout).message,
        /403 .*is not allowed/,
      );
      assert.equal(fixture.requests.length, 0);
      const granted = await lab.run(["kalshi-markets", "status", "--json"], {
        ...env,
        SKILLS_ALLOW_NET: new URL(fixture.baseUrl).host,
      });
      assert.equal(granted.code, 0, granted.stderr);
      assert.equal(JSON.parse(granted.stdout).exchange_active, true);
      const info = await lab.run(["kalshi-markets", "status", "--help"]);
      assert.equal(info.code, 0);
    } finally {
      await fixture.close();
    }
  },
);

labTest(
  "uv in the sandbox: a cache of its own per skill, the package index only for dependencies",
  async (lab) => {
    const bin = await pythonOnlyBin(lab.outside);
    const python = await Deno.readLink(join(bin, "python3"));
    // A fake uv that reports what it was given, then runs the script with python3.
    await Deno.writeTextFile(
      join(bin, "uv"),
      `#!${python}\nimport json, os, sys\nsys.stderr.write("uv-call " + json.dumps({"argv": sys.argv[1:], "env": dict(os.environ)}) + "\\n")\nsys.stderr.flush()\nos.execv(${
        JSON.stringify(python)
      }, [${JSON.stringify(python)}, *sys.argv[3:]])\n`,
    );
    await Deno.chmod(join(bin, "uv"), 0o755);
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const call = (stderr: string) =>
      JSON.parse(stderr.split("\n").find((l) => l.startsWith("uv-call "))!.slice(8));

    const deps = await lab.run(["runner-lab", "needs_deps", "--json"], env);
    assert.equal(deps.code, 0, deps.stderr);
    const withDeps = call(deps.stderr);
    assert.deepEqual(withDeps.argv.slice(0, 2), ["run", "--script"]);
    assert.match(
      withDeps.env.UV_CACHE_DIR,
      new RegExp(`^${await Deno.realPath(lab.home)}/\\.cache/skills/runner-lab-[0-9a-f]{16}/uv$`),
    );
    assert.match(withDeps.env.HTTPS_PROXY, /^http:\/\/127\.0\.0\.1:\d+$/, "PyPI is reachable");
    await Deno.stat(withDeps.env.XDG_CACHE_HOME); // the skill's cache, kept between runs

    const plain = await lab.run(["runner-lab", "echo_args", "--json"], env);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(call(plain.stderr).env.HTTPS_PROXY, undefined, "no dependencies, no network");
  },
);
