/** What most commands start with: the skills home, the catalog, and activation. */

import { parseActivation, resolveActivation } from "../core/activation.ts";
import type { Catalog } from "../runtime/catalog/catalog.ts";
import { loadCatalog } from "../runtime/catalog/catalog.ts";
import type { Context } from "../core/io.ts";
import { skillsHome } from "../runtime/store/home.ts";
import { UsageError } from "../core/errors.ts";
import { resolve } from "../runtime/os/paths.ts";

interface Session {
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

/**
 * The workspace of `chat` and `mcp`: `--workspace DIR` (relative to where the command
 * runs), or that directory. A folder that is not there is a usage error, said at start.
 */
export function workspaceDir(ctx: Context, given: string | undefined): string {
  if (given === undefined) return ctx.cwd;
  const dir = resolve(ctx.cwd, given);
  let isDirectory = false;
  try {
    isDirectory = Deno.statSync(dir).isDirectory;
  } catch { /* reported below */ }
  if (!isDirectory) {
    throw new UsageError(
      `Invalid --workspace '${given}': not a folder`,
      "Name the folder scripts should run in and may write",
    );
  }
  return dir;
}

/** The surface options (spec.ts's SURFACE_FLAGS) as chat and mcp receive them. */
export function surfaceOptions(values: { skills?: string; workspace?: string }): {
  /** `--skills a,b`, as given (else AGENT_SKILLS decides). */
  skills: string | undefined;
  /** `--workspace DIR`, as given (see workspaceDir). */
  workspace: string | undefined;
} {
  return { skills: values.skills, workspace: values.workspace };
}
