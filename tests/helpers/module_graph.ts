/**
 * What a module can load: the modules `deno info` finds from it (dynamic imports written as
 * literals included), or only those it loads before it runs (staticLocalGraph). Start-up
 * tests read them to prove a path stays lazy (no command module on `skills list`, no CLI
 * module behind mod.ts, no audit engine before a command audits).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "./cli.ts";

/** `deno info --json` of `entry`: its roots and each module with the imports it makes. */
async function denoInfo(entry: string): Promise<DenoInfo> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", join(REPO_ROOT, entry)],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

interface DenoInfo {
  roots: string[];
  modules: {
    specifier: string;
    dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
  }[];
}

/** Every module specifier (files, npm packages, `node:` modules) in the static graph of `entry`. */
export async function moduleGraph(entry: string): Promise<string[]> {
  return (await denoInfo(entry)).modules.map((m) => m.specifier);
}

/** The repository files (relative, `/`-separated) in the static module graph of `entry`. */
export async function localGraph(entry: string): Promise<string[]> {
  return (await moduleGraph(entry)).filter((s) => s.startsWith("file://"))
    .map((s) => s.slice(`file://${REPO_ROOT}/`.length));
}

/**
 * The repository files (relative, `/`-separated) `entry` loads before it runs: its imports
 * followed without the dynamic ones (`import()`), which load only when their line runs.
 */
export async function staticLocalGraph(entry: string): Promise<string[]> {
  const graph = await denoInfo(entry);
  const imports = new Map(graph.modules.map((m) => [
    m.specifier,
    (m.dependencies ?? []).filter((d) => !d.isDynamic && d.code !== undefined)
      .map((d) => d.code!.specifier),
  ]));
  const seen = new Set(graph.roots);
  for (const specifier of seen) {
    for (const next of imports.get(specifier) ?? []) seen.add(next);
  }
  return [...seen].filter((s) => s.startsWith("file://"))
    .map((s) => s.slice(`file://${REPO_ROOT}/`.length));
}
