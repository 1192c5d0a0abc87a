/**
 * What a module loads before it runs: the repository files in its static import graph, as
 * `deno info` walks it. Start-up tests read it to prove a path stays lazy (no command
 * module on `skills list`, no CLI module behind mod.ts).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "./cli.ts";

/** Every module specifier (files, npm packages, `node:` modules) in the static graph of `entry`. */
export async function moduleGraph(entry: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", join(REPO_ROOT, entry)],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const graph = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { specifier: string }[];
  };
  return graph.modules.map((m) => m.specifier);
}

/** The repository files (relative, `/`-separated) in the static module graph of `entry`. */
export async function localGraph(entry: string): Promise<string[]> {
  return (await moduleGraph(entry)).filter((s) => s.startsWith("file://"))
    .map((s) => s.slice(`file://${REPO_ROOT}/`.length));
}
