/**
 * Installs a test skill into a temp `$SKILLS_HOME` the way `skills add` does (copy the
 * directory to `$SKILLS_HOME/<name>`, write a registry entry), optionally trusted with the
 * digest of the installed files.
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RegistryEntry, upsertEntry } from "../../src/core/records/registry.ts";
import { computeDigest } from "../../src/runtime/trust/file_hashes.ts";
import { updateRegistry } from "../../src/runtime/store/registry.ts";

/** tests/fixtures/runner-skills: the runner's test skills. */
export const RUNNER_SKILLS = fileURLToPath(new URL("../fixtures/runner-skills", import.meta.url));

export interface InstallOptions {
  /** Registry name; defaults to the source directory's name. */
  name?: string;
  /** Default true: trusted with the digest of the installed copy. */
  trusted?: boolean;
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.name === "__pycache__") continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

/**
 * A registry entry for a skill installed from a local directory at `installedPath`,
 * trusted with a placeholder digest unless `overrides` say otherwise.
 */
export function localEntry(
  name: string,
  installedPath: string,
  overrides: Partial<RegistryEntry> = {},
): RegistryEntry {
  return {
    name,
    name_canonical: name,
    source: { type: "local", url: installedPath, subpath: "" },
    commit_sha: null,
    branch: null,
    tag: null,
    ref: null,
    installed_path: installedPath,
    trusted: true,
    trusted_digest: "sha256:x",
    installed_at: "t",
    updated_at: "t",
    ...overrides,
  };
}

/** Adds (or replaces) `entries` in `home`'s registry, under its lock as commands do. */
export async function registerEntries(home: string, ...entries: RegistryEntry[]): Promise<void> {
  await updateRegistry(home, (registry) => ({
    registry: entries.reduce((next, entry) => upsertEntry(next, entry), registry),
    result: undefined,
  }));
}

/** Copies `sourceDir` into `home` and registers it; returns the installed path. */
export async function installFixtureSkill(
  home: string,
  sourceDir: string,
  options: InstallOptions = {},
): Promise<string> {
  const name = options.name ?? sourceDir.split(/[\\/]/).filter(Boolean).pop()!;
  const installed = join(home, name);
  await copyTree(sourceDir, installed);
  const trusted = options.trusted ?? true;
  const now = new Date().toISOString();
  await registerEntries(
    home,
    localEntry(name, installed, {
      name_canonical: name.toLowerCase().replaceAll("_", "-"),
      source: { type: "local", url: sourceDir, subpath: "" },
      trusted,
      trusted_digest: trusted ? await computeDigest(installed) : null,
      installed_at: now,
      updated_at: now,
    }),
  );
  return installed;
}

/** Installs one of tests/fixtures/runner-skills/<name>. */
export function installRunnerSkill(
  home: string,
  name:
    | "runner-lab"
    | "runner-limited"
    | "polyglot"
    | "workspace-lab"
    | "office-lab"
    | "docx-lab"
    | "companion-lab",
  options: InstallOptions = {},
): Promise<string> {
  return installFixtureSkill(home, join(RUNNER_SKILLS, name), options);
}
