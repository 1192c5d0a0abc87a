/**
 * The OS sandbox's cost: `skills run hello-extended advanced_greeting --json` inside
 * bubblewrap (SKILLS_SANDBOX=required) against the same run in policy mode
 * (SKILLS_SANDBOX=off), sampled alternately in the same run. Target: ≤ +15 ms median.
 *
 * What the sandbox adds per run: the bwrap process (namespaces, ~20 mounts), the init
 * helper (a `python3 -I -S` that sets the limits and execs the launcher), a work folder
 * made and removed; what it saves: the parent watch's `sitecustomize` in every Python
 * start. The bubblewrap probe is remembered in $SKILLS_HOME/.cache/core after the first run.
 * Linux only (the row is left out elsewhere, or where bubblewrap does not work).
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measurePair } from "../lib.ts";

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  if (Deno.build.os !== "linux") return [];
  const home = join(ctx.tmp, "sandbox-home");
  await Deno.mkdir(home, { recursive: true });
  // The same, with python3 the interpreter itself rather than a version manager's shim (a
  // pyenv shim is a bash script that starts ~40 processes, ~90 ms of noise-prone work):
  // what the sandbox costs apart from the launcher.
  const bin = join(ctx.tmp, "sandbox-bin");
  await Deno.mkdir(bin, { recursive: true });
  const python = await new Deno.Command("python3", {
    args: ["-c", "import sys; print(sys.executable)"],
  }).output();
  await Deno.symlink(new TextDecoder().decode(python.stdout).trim(), join(bin, "python3"));
  const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  const spec = (sandbox: string, extra: Record<string, string> = {}) => ({
    cmd: ctx.cli.cmd,
    args: [
      ...ctx.cli.args,
      "run",
      "hello-extended",
      "advanced_greeting",
      "--name",
      "Ada",
      "--json",
    ],
    env: { SKILLS_HOME: home, NO_COLOR: "1", SKILLS_SANDBOX: sandbox, ...extra },
  });
  // The difference sought is a few milliseconds under a ±30% wobble: more pairs than usual.
  const runs = Math.max(ctx.runs * 3, 21);
  const row = async (label: string, extra: Record<string, string>, judged: boolean) => {
    const { baseline, value } = await measurePair(
      spec("off", extra),
      spec("required", extra),
      runs,
    );
    const cost = value.medianMs - baseline.medianMs;
    return {
      name: `skills run hello-extended advanced_greeting --json, in the OS sandbox${label}`,
      value,
      baselineName: "the same run with SKILLS_SANDBOX=off (policy mode)",
      baseline,
      target: judged ? "≤ baseline + 15 ms" : "(informational)",
      pass: judged ? cost <= 15 : null,
      note: `sandbox cost ${Math.round(cost)} ms`,
    } satisfies BenchRow;
  };
  return [
    await row("", {}, true),
    await row(" (python3 not a shim)", { PATH: `${bin}:${path}` }, false),
  ];
}
