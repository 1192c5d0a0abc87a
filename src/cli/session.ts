/** What most commands start with: the skills home, the catalog, and activation. */

import { parseActivation, resolveActivation } from "../core/activation.ts";
import type { Catalog } from "../runtime/catalog/catalog.ts";
import { loadCatalog } from "../runtime/catalog/catalog.ts";
import type { Context } from "../core/io.ts";
import { skillsHome } from "../runtime/store/home.ts";

export interface Session {
  home: string;
  catalog: Catalog;
  /** Canonical names of the active skills. */
  active: Set<string>;
  activationWarnings: string[];
}

/**
 * Loads the catalog and resolves activation from `AGENT_SKILLS` (or an explicit
 * `--skills` value, which overrides it).
 */
export async function openSession(ctx: Context, skillsOverride?: string): Promise<Session> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const catalog = await loadCatalog(home);
  const spec = parseActivation(skillsOverride ?? ctx.env.AGENT_SKILLS);
  const candidates = [
    ...catalog.skills.map((s) => ({ canonical: s.canonical, trusted: s.trusted })),
    ...catalog.failures.map((f) => ({ canonical: f.canonical, trusted: f.trusted })),
  ];
  const { active, warnings } = resolveActivation(spec, candidates);
  return { home, catalog, active, activationWarnings: warnings };
}
