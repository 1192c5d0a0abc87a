/**
 * `skills check`'s one workflow: open the session, run `--repair` when asked, let every
 * check of {@link CHECKS} look (or the ones named), and put together the report — whether all
 * is healthy, each check's result for the text report and the `--json` report's fields.
 */

import { type Context, debug } from "../../core/io.ts";
import { VERSION } from "../../core/version.ts";
import { bundledRootPath } from "../catalog/catalog.ts";
import { openSession, type Session } from "../catalog/catalog_session.ts";
import { registryPath } from "../store/registry.ts";
import { type CheckId, type CheckResults, CHECKS, type Doctor } from "./checks.ts";

export interface DoctorReport {
  session: Session;
  /** False makes `skills check` exit 1. */
  healthy: boolean;
  /** The results of the checks that looked (every one unless some were named). */
  results: Partial<CheckResults>;
  /** The `--json` report, every check's fields in the order of {@link CHECKS}. */
  json: Record<string, unknown>;
}

/** What this binary materialises under `.cache/core`; anything else there is clutter. */
async function keptCore(home: string): Promise<string[]> {
  // Imported here: these modules stay off the start-up path of every other command.
  const { parentWatchDir } = await import("../exec/parent_watch.ts");
  const { toolsetHostPath } = await import("../exec/toolset_host.ts");
  const { sandboxProbePath } = await import("../sandbox/mode.ts");
  return [
    bundledRootPath(home),
    parentWatchDir(home),
    toolsetHostPath(home),
    sandboxProbePath(home),
  ];
}

/**
 * Repairs what `repair` asks for, then looks at everything; `only`: the checks to run (and
 * whose repairs to make), in {@link CHECKS}' order whatever order they were named in.
 */
export async function examine(
  ctx: Context,
  options: { repair: boolean; only?: readonly CheckId[] | undefined },
): Promise<DoctorReport> {
  const session = await openSession(ctx);
  const keepCore = await keptCore(session.home);
  const doctor: Doctor = { ctx, session, keepCore, repaired: new Map() };
  const checks = CHECKS.filter((c) => options.only?.includes(c.id) ?? true);
  if (options.repair) {
    for (const c of checks) if (c.repair) doctor.repaired.set(c.id, await c.repair.run(doctor));
  }
  debug(ctx, `home ${session.home} (registry ${registryPath(session.home)})`);
  const results = new Map<string, unknown>();
  for (const c of checks) results.set(c.id, await c.look(doctor));
  const healthy = checks.every((c) => c.healthy(results.get(c.id)));
  return {
    session,
    healthy,
    results: Object.fromEntries(results) as Partial<CheckResults>,
    json: {
      version: VERSION,
      healthy,
      home: session.home,
      registry: registryPath(session.home),
      ...Object.assign({}, ...checks.map((c) => c.json(results.get(c.id), doctor))),
    },
  };
}
