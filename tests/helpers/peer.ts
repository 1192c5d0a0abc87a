/**
 * vercel-labs' `skills` CLI run in end-to-end tests (scripts/peer_cli.ts installs it), and a
 * project's lockfile committed and cloned afresh, as a teammate would get it.
 */

import { join } from "node:path";
import { ensurePeer } from "../../scripts/peer_cli.ts";
import { fixtureGitEnv, git } from "../fixtures/git_repos.ts";

/** Runs the peer in `cwd` with a clean environment of its own (no telemetry, no prompts). */
export async function peer(
  cwd: string,
  home: string,
  args: string[],
  extraEnv: Record<string, string> = {},
) {
  const { node, cli } = await ensurePeer();
  const out = await new Deno.Command(node, {
    args: [cli, ...args],
    cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      DISABLE_TELEMETRY: "1",
      NO_COLOR: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_TERMINAL_PROMPT: "0",
      ...extraEnv,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

/** Commits the project's skills-lock.json (not its skill folders) and clones the project. */
export async function freshClone(root: string, dir: string): Promise<string> {
  const env = fixtureGitEnv(dir);
  await git(root, ["add", "skills-lock.json"], env);
  await git(root, ["commit", "--quiet", "-m", "lock"], env);
  const clone = join(dir, "clone");
  await git(dir, ["clone", "--quiet", root, clone], env);
  return clone;
}
