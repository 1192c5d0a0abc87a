/**
 * What most commands start with: the skills home, the catalog, and which skills are active.
 * It lives with the catalog (not in cli/) because workflows below the commands start from it
 * too — the doctor (runtime/inspect) and `skills info` gather from an open session.
 */

import { parseActivation, resolveActivation } from "../../core/activation.ts";
import type { Context } from "../../core/io.ts";
import { skillsHome } from "../store/home.ts";
import { type Catalog, loadCatalog } from "./catalog.ts";

export interface Session {
  home: string;
  catalog: Catalog;
  /** Canonical names of the active skills. */
  active: Set<string>;
  activationWarnings: string[];
  /** `AGENT_SKILLS=all-untrusted`: untrusted skills' code may run (said in the warnings). */
  allowUntrusted: boolean;
}

/**
 * Loads the catalog and resolves activation from `AGENT_SKILLS` (or an explicit
 * `--skills` value, which overrides it).
 */
export async function openSession(ctx: Context, skillsOverride?: string): Promise<Session> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const catalog = await loadCatalog(home, { cwd: ctx.cwd, env: ctx.env });
  const spec = parseActivation(skillsOverride ?? ctx.env.AGENT_SKILLS);
  const candidates = [
    ...catalog.skills.map((s) => ({ canonical: s.canonical, trusted: s.trusted })),
    ...catalog.failures.map((f) => ({ canonical: f.canonical, trusted: f.trusted })),
  ];
  const source = skillsOverride === undefined ? "AGENT_SKILLS" : "--skills";
  const { active, warnings, allowUntrusted } = resolveActivation(spec, candidates, source);
  if (spec.kind === "list") activateDependencies(catalog, active, allowUntrusted);
  // A skill the user activated that did not load must not vanish without a word.
  for (const failure of catalog.failures) {
    if (active.has(failure.canonical)) {
      warnings.push(`Skill '${failure.canonical}' is active but failed to load: ${failure.reason}`);
    }
  }
  return { home, catalog, active, activationWarnings: warnings, allowUntrusted };
}

/** Who requires a skill, as its record says (`required_by` in the registry, `requiredBy` in a lockfile). */
function requiredByOf(record: unknown): readonly string[] {
  if (record === null || typeof record !== "object") return [];
  const raw = (record as Record<string, unknown>).required_by ??
    (record as Record<string, unknown>).requiredBy;
  return Array.isArray(raw) ? raw.filter((n): n is string => typeof n === "string") : [];
}

/**
 * What each listed skill requires, by canonical name, as the records of the closures `skills
 * add` installed say (a dependency's record names who requires it): read by activation and by
 * `skills list --tree`.
 */
export function dependencyGraph(catalog: Catalog): Map<string, string[]> {
  const requires = new Map<string, string[]>();
  const note = (dependency: string, by: readonly string[]) => {
    for (const name of by) requires.set(name, [...(requires.get(name) ?? []), dependency]);
  };
  for (const skill of catalog.skills) note(skill.canonical, requiredByOf(skill.entry));
  const lock = catalog.project?.lock;
  if (lock?.state === "ok") {
    for (const [key, entry] of Object.entries(lock.lock.skills)) note(key, requiredByOf(entry));
  }
  return requires;
}

/**
 * Activating a skill by name activates what it requires, as its records say (the closure
 * `skills add` installed with it), so the model can load a dependency when the skill's
 * instructions lean on it. Only trusted dependencies, unless untrusted code was allowed.
 */
function activateDependencies(catalog: Catalog, active: Set<string>, allowUntrusted: boolean) {
  const requires = dependencyGraph(catalog);
  if (requires.size === 0) return;
  const usable = new Set(
    catalog.skills.filter((s) => s.trusted || allowUntrusted).map((s) => s.canonical),
  );
  const queue = [...active];
  while (queue.length > 0) {
    for (const dependency of requires.get(queue.shift()!) ?? []) {
      if (active.has(dependency) || !usable.has(dependency)) continue;
      active.add(dependency);
      queue.push(dependency);
    }
  }
}
