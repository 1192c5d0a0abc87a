/**
 * The sandbox's resource limits and process lifetime: a fork bomb and a memory hog are
 * stopped by limits, and a daemon that double-forks into its own session (which escapes
 * the process-group kill of policy mode) dies with the sandbox's PID namespace.
 */

import assert from "node:assert/strict";
import { killAll, processesMentioning, survivors } from "../../helpers/processes.ts";
import { setupLab } from "./sandbox_helpers.ts";
import { installFixtureSkill, RUNNER_SKILLS } from "../../helpers/install_fixture.ts";
import { basename, join } from "node:path";
import { SKIP_SLOW } from "../../helpers/quick.ts";
import { needsSandbox, systemPerl as perl } from "../../helpers/sandbox.ts";

const root = Deno.uid() === 0;
for (
  const [how, env, started] of [
    // Read-only, the util-linux form is what starts, as root or not.
    ["prlimit", { SKILLS_READ_ONLY: "1" }, /sandbox: .*prlimit --nproc=256/],
    // As root a writable workspace is mounted idmapped by the Perl helper, which then sets
    // the limits (processes: 256, after the uid) and enters it as the sandbox's uid itself;
    // without Perl, by the Python helper. Not root: the util-linux form alone.
    [
      "a writable workspace",
      {},
      !root
        ? /sandbox: .*prlimit --nproc=256/
        : perl
        ? /sandbox: \S*perl -f -e <source> [0-9,]+ .* -- [0-9]+ 256 /
        : /sandbox: \S*python3? -I -S -B -c <source>/,
    ],
    // Any network grant starts the Python init helper (it relays the proxy) instead.
    [
      "the Python init helper",
      { SKILLS_ALLOW_NET: "example.invalid:443" },
      /sandbox: \S*python3? -I -S -B -c <source>/,
    ],
  ] as const
) {
  Deno.test(`a fork bomb is stopped by the process limit (${how})`, needsSandbox, async () => {
    await using lab = await setupLab();
    // A name of its own: as root, the sandbox's uid (and so its process count) is per skill.
    const name = basename(
      await installFixtureSkill(lab.home, join(RUNNER_SKILLS, "sandbox-lab"), {
        name: `bomb-${crypto.randomUUID().slice(0, 8)}`,
      }),
    );
    const result = await lab.run(["-v", name, "fork_bomb", "1000", "--json"], env);
    assert.equal(result.code, 0, result.stderr);
    const bomb = JSON.parse(result.stdout);
    assert.equal(bomb.stopped, true, `forked ${bomb.forked} children unchecked`);
    assert.ok(bomb.forked < 300, `forked ${bomb.forked}`);
    assert.match(bomb.error, /Resource temporarily unavailable/);
    assert.match(result.stderr, started);
  });
}

Deno.test(
  "a memory hog is stopped by the memory limit (MAX_SCRIPT_MEMORY)",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    const result = await lab.run(["sandbox-lab", "memory_hog", "1024", "--json"], {
      MAX_SCRIPT_MEMORY: String(256 * 1024 * 1024),
    });
    assert.equal(result.code, 0, result.stderr);
    const hog = JSON.parse(result.stdout);
    assert.equal(hog.stopped, true, `held ${hog.held_mib} MiB`);
    assert.ok(hog.held_mib < 256, `held ${hog.held_mib} MiB`);
  },
);

Deno.test("a double-forked setsid daemon dies with the sandbox at the timeout", {
  ...needsSandbox,
  ignore: needsSandbox.ignore || SKIP_SLOW,
}, async () => {
  await using lab = await setupLab();
  const marker = `skills-daemon-${crypto.randomUUID()}`;
  const result = await lab.run(["--timeout", "2", "sandbox-lab", "daemon", marker]);
  assert.equal(result.code, 124, result.stderr);
  assert.match(result.stderr, /daemon started/);
  const left = await survivors(processesMentioning(marker).map(Number), 3_000);
  killAll(left);
  assert.deepEqual(left, [], "the daemon outlived the timeout");
});

Deno.test("a daemon left behind by a script that exits dies with it", needsSandbox, async () => {
  await using lab = await setupLab();
  const marker = `skills-daemon-${crypto.randomUUID()}`;
  const result = await lab.run(["sandbox-lab", "daemon", marker, "--exit"]);
  assert.equal(result.code, 0, result.stderr);
  const left = await survivors(processesMentioning(marker).map(Number), 3_000);
  killAll(left);
  assert.deepEqual(left, [], "the daemon outlived its script");
});
