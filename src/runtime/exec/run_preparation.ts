/**
 * How `skills run <skill> <script>` is prepared, below any front end: from the run plan kept
 * for this skill and script as seen from the working directory when it still holds
 * (run_plan.ts: no catalog, no trust check, none of their modules loaded), else through the
 * catalog of every scope — project skills shadowing installed and bundled ones — and the full
 * path, which verifies trust and keeps a plan for the next run (script_service.ts, loaded only
 * then). The front end runs what is prepared and renders it.
 */

import type { Envelope } from "../../core/envelope.ts";
import {
  type PreparedRun,
  prepareResolved,
  type ScriptDeps,
  stringArguments,
} from "./prepared_run.ts";
import { plannedRun } from "./run_plan.ts";

/** Which script of which skill, with what, and whether its `--help` is what is asked. */
interface RunRequest {
  skill: string;
  script: string;
  /** The script's arguments, as given. */
  args: readonly string[];
  /** The script's own help in JSON mode: always through the catalog. */
  scriptHelp: boolean;
  /** When the command began (a plan is kept only for files unchanged since before it). */
  startedAt: number;
}

/** The two things a run may go on to do once its skill and script are found. */
interface RunPreparation {
  prepare: () => Promise<PreparedRun>;
  scriptHelp: () => Promise<Envelope>;
}

/**
 * How this run is prepared: from the run plan when it holds, else through the catalog —
 * read here, so that its errors end the command as before — and the full path.
 */
export async function runPreparation(
  request: RunRequest,
  deps: ScriptDeps & { cwd: string },
): Promise<RunPreparation> {
  const { skill, script, args, startedAt } = request;
  const home = deps.home;
  const throughCatalog = async () => {
    const service = await import("./script_service.ts");
    const catalog = await service.runCatalog(home, skill, { cwd: deps.cwd, env: deps.env });
    return {
      prepare: () => service.prepareRunAndPlan(catalog, skill, script, args, deps, startedAt),
      scriptHelp: () => service.scriptHelp(catalog, skill, script, deps),
    };
  };
  const planned = request.scriptHelp ? undefined : plannedRun(home, { skill, script }, deps);
  if (planned === undefined) return await throughCatalog();
  return {
    prepare: () => prepareResolved(planned, stringArguments(args), deps),
    scriptHelp: async () => await (await throughCatalog()).scriptHelp(),
  };
}
