/**
 * The runner rows of runner.ts as most people run the CLI: as an ordinary user, not root
 * (informational rows). As root the sandbox must do more to stay safe: the script runs as
 * an unprivileged uid of its own, so a writable workspace owned by root is mounted idmapped
 * for that uid by the Python init helper (a second Python start), while an ordinary user's
 * sandbox is a user namespace whose limits util-linux's `prlimit` sets. Measured when the
 * bench runs as root on Linux with `setpriv` and user namespaces at hand: everything (the
 * floor included) runs as uid 65534 with its own home, Deno cache and working folder, and
 * finds `python3` on a PATH without root's version manager (which that uid cannot read).
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, keepRunPlans, measureAlternately, sample } from "../lib.ts";

const UID = 65534;
const ARGS = ["--name", "Ada", "--json"];
const PATH = "/usr/local/bin:/usr/bin:/bin";

/** A folder tree `uid` owns, under a parent it may enter (the bench's tmp is root's alone). */
async function ownedTree(uid: number): Promise<{ root: string; home: string; cwd: string }> {
  const root = await Deno.makeTempDir({ prefix: "skills-bench-user-" });
  await Deno.chmod(root, 0o755);
  const paths = { root, home: join(root, "home"), cwd: join(root, "cwd") };
  for (const dir of [paths.home, paths.cwd, join(root, "deno")]) {
    await Deno.mkdir(dir);
    await Deno.chown(dir, uid, uid);
  }
  return paths;
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return [];
  const tree = await ownedTree(UID);
  try {
    const env = {
      HOME: tree.home,
      SKILLS_HOME: join(tree.home, "skills"),
      DENO_DIR: join(tree.root, "deno"),
      PATH,
      NO_COLOR: "1",
    };
    const asUser = (cmd: string, args: string[], extra: Record<string, string> = {}) => ({
      cmd: "setpriv",
      args: [`--reuid=${UID}`, `--regid=${UID}`, "--clear-groups", "--", cmd, ...args],
      env: { ...env, ...extra },
      cwd: tree.cwd,
    });
    const script = join(ctx.repoRoot, "skills/core/hello-extended/scripts/advanced_greeting.py");
    const floorPath = join(tree.root, "run-floor.js");
    await Deno.writeTextFile(
      floorPath,
      `const out = await new Deno.Command("python3", { args: ${
        JSON.stringify([script, ...ARGS])
      }, stdout: "piped" }).output();\nDeno.stdout.writeSync(out.stdout);\nDeno.exit(out.code);\n`,
    );
    const floor = asUser(Deno.execPath(), ["run", "--quiet", "--allow-run=python3", floorPath]);
    const run = (sandbox: string) =>
      asUser(
        ctx.cli.cmd,
        [...ctx.cli.args, "run", "hello-extended", "advanced_greeting", ...ARGS],
        {
          SKILLS_SANDBOX: sandbox,
        },
      );
    // Without setpriv or user namespaces there is nothing to measure here.
    const probe = await sample(run("required")).catch(() => undefined);
    if (probe === undefined || probe.code !== 0) return [];
    const runs = Math.max(ctx.runs * 2, 15);
    await keepRunPlans([run("off"), run("required")]);
    const [base, policy, sandboxed] = await measureAlternately(
      [floor, run("off"), run("required")],
      runs,
    );
    const row = (label: string, value: typeof base): BenchRow => ({
      name: `skills run hello-extended advanced_greeting --json, ${label}, as an unprivileged user`,
      value: value!,
      baselineName: "floor: deno run of a script spawning the same python3 command, as that user",
      baseline: base!,
      target: "informational: the judged rows run as root, as this machine does",
      pass: null,
      note: `${
        Math.round(value!.medianMs - base!.medianMs)
      } ms over the floor; uid ${UID}, python3 from PATH=${PATH}`,
    });
    return [row("in the OS sandbox", sandboxed), row("policy mode (SKILLS_SANDBOX=off)", policy)];
  } finally {
    await Deno.remove(tree.root, { recursive: true }).catch(() => {});
  }
}
