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
  // A skill the user activated that did not load must not vanish without a word.
  for (const failure of catalog.failures) {
    if (active.has(failure.canonical)) {
      warnings.push(`Skill '${failure.canonical}' is active but failed to load: ${failure.reason}`);
    }
  }
  return { home, catalog, active, activationWarnings: warnings, allowUntrusted };
}
