/**
 * Plugin manifests as a map of where skills live, Claude Code's and Codex's: a marketplace
 * (`.claude-plugin/marketplace.json`, Codex's `.agents/plugins/marketplace.json`) lists
 * plugins, each with a `source` folder (Claude: a path; Codex: `{source: "local", path}`) and
 * an optional `skills` list; a plugin (`.claude-plugin/plugin.json`, `.codex-plugin/
 * plugin.json`) may name its `skills` — skill folders, or a folder of skills (Codex writes
 * `"skills": "./skills/"`); without one, a plugin's skills are the folders of its `skills/`.
 * Pure: the caller reads the files. Every path is untrusted input: only relative paths inside
 * the repository are kept; remote plugin sources are skipped.
 */

/** Where marketplaces are, Claude Code's then Codex's. */
export const MARKETPLACE_FILES = [
  [".claude-plugin", "marketplace.json"],
  [".agents", "plugins", "marketplace.json"],
] as const;
/** Where a plugin's manifest is, Claude Code's then Codex's. */
export const PLUGIN_FILES = [
  [".claude-plugin", "plugin.json"],
  [".codex-plugin", "plugin.json"],
] as const;

import { isPlainObject } from "./validation.ts";

/** A plugin folder (relative to the repository) and the skill folders it declares, if any. */
export interface PluginSkills {
  source: string;
  /** Skill folders relative to the repository; undefined: look in `<source>/skills/`. */
  skills: string[] | undefined;
  /**
   * The same plugin read without `metadata.pluginRoot`, where its source already starts with
   * that folder (`pluginRoot: "./plugins"` beside `source: "./plugins/x"`, as
   * mrgoonie/claudekit-skills writes it): used when `source` is no folder of the repository.
   */
  unrooted?: PluginSkills;
}

/**
 * Joins relative path segments and refuses what could leave the repository: absolute
 * paths, `..`, backslashes and control characters. `./` and `.` segments are dropped.
 */
export function repositoryPath(...parts: string[]): string | undefined {
  const segments: string[] = [];
  for (const part of parts) {
    // deno-lint-ignore no-control-regex
    if (part.startsWith("/") || part.includes("\\") || /[\u0000-\u001f\u007f]/.test(part)) {
      return undefined;
    }
    for (const segment of part.split("/")) {
      if (segment === "" || segment === ".") continue;
      if (segment === "..") return undefined;
      segments.push(segment);
    }
  }
  return segments.join("/");
}

function skillList(value: unknown, base: string): string[] | undefined {
  const items = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
  if (items === undefined) return undefined;
  return items.flatMap((item) => {
    const path = typeof item === "string" ? repositoryPath(base, item) : undefined;
    // A skill named by its manifest (`./skills/x/SKILL.md`, levifig's plugin) is its folder.
    return path === undefined ? [] : [path.replace(/(?:^|\/)skill\.md$/i, "")];
  });
}

/** `metadata.pluginRoot`: the folder relative plugin sources are read from ("" without one). */
function pluginRoot(document: Record<string, unknown>): string | undefined {
  const metadata = document.metadata;
  const root = isPlainObject(metadata) ? metadata.pluginRoot : undefined;
  return typeof root === "string" ? repositoryPath(root) : "";
}

/**
 * The local plugins a marketplace document lists (remote sources are skipped). Relative
 * sources are read under `metadata.pluginRoot` when the marketplace sets one, as Claude Code
 * does; a root that leaves the repository lists nothing.
 */
export function marketplacePlugins(document: unknown): PluginSkills[] {
  if (!isPlainObject(document) || !Array.isArray(document.plugins)) return [];
  const root = pluginRoot(document);
  if (root === undefined) return [];
  return document.plugins.flatMap((plugin): PluginSkills[] => {
    if (!isPlainObject(plugin)) return [];
    const path = localSource(plugin.source);
    if (path === undefined) return [];
    const source = repositoryPath(root, path);
    if (source === undefined) return [];
    const plain = root === "" ? undefined : repositoryPath(path);
    const unrooted = plain !== undefined && plain.startsWith(`${root}/`)
      ? { unrooted: { source: plain, skills: skillList(plugin.skills, plain) } }
      : {};
    return [{ source, skills: skillList(plugin.skills, source), ...unrooted }];
  });
}

/** A plugin's folder as a marketplace names it: Claude's path, Codex's `{source: "local", path}`. */
function localSource(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (isPlainObject(value) && value.source === "local" && typeof value.path === "string") {
    return value.path;
  }
  return undefined;
}

/** The skill folders a plugin document at `source` declares, or undefined. */
export function pluginSkills(document: unknown, source: string): string[] | undefined {
  return isPlainObject(document) ? skillList(document.skills, source) : undefined;
}
