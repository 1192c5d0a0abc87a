/** Running vercel-labs' `skills` CLI (scripts/peer_cli.ts installs it) in the interop tests. */

import { ensurePeer } from "../../scripts/peer_cli.ts";

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
