/**
 * The doctor's checks as records: what each looks at, whether that is healthy, its fields of
 * the `--json` report, and how `--repair` fixes it. A new check is a new row of
 * {@link CHECKS}, its result type a field of {@link CheckResults} (the text lines are the
 * command's, in cli/ui/doctor_ui.ts, keyed by the same id).
 */

import { type Context, debug } from "../../core/io.ts";
import type { Session } from "../catalog/catalog_session.ts";
import { probeTool } from "../os/probe.ts";
import { listingsOfGoneFolders } from "../masks/listing_cache.ts";
import { runnerPrograms } from "../../core/scripts/script_language.ts";
import {
  type ConsistencyReport,
  findUnused,
  inspectHome,
  isConsistent,
  pruneUnused,
  repairHome,
} from "../store/consistency.ts";
import { projectJson, projectReport, type ProjectResult } from "./project_report.ts";
import { sandboxJson, type SandboxReport, sandboxReport } from "./sandbox_report.ts";
import { skillsCheck, type SkillsResult } from "./skill_states.ts";

/** What every doctor check is given. */
export interface Doctor {
  ctx: Context;
  session: Session;
  /** What this binary materialises under .cache/core; other versions' copies are clutter. */
  keepCore: string[];
  /** What `--repair` did, by check id. */
  repaired: Map<string, unknown>;
}

/** What `--repair` did to the home. */
interface HomeRepair {
  repaired: ConsistencyReport;
  pruned: string[];
}

/** The home check's result: the registry against the folders, and the clutter. */
interface HomeResult {
  consistency: ConsistencyReport;
  /** The registry and the skill directories agree (nothing missing, no orphans). */
  consistent: boolean;
  unused: string[];
  repair: HomeRepair | undefined;
}

type ToolProbe = Awaited<ReturnType<typeof probeTool>>;

/** Each check's result, by its id. */
export interface CheckResults {
  skills: SkillsResult;
  tools: ToolProbe[];
  sandbox: SandboxReport;
  home: HomeResult;
  warnings: string[];
  project: ProjectResult;
}

export type CheckId = keyof CheckResults;

/** One doctor check, whose result is `CheckResults[K]`. */
interface DoctorCheck<K extends CheckId> {
  id: K;
  /** What it looks at, in a few words. */
  looksAt: string;
  /** What `--repair` does about it; runs before any check looks. */
  repair?: { does: string; run(doctor: Doctor): Promise<unknown> };
  look(doctor: Doctor): Promise<CheckResults[K]>;
  /** False makes `skills check` exit 1. */
  healthy(result: CheckResults[K]): boolean;
  /** Its fields of the `--json` report. */
  json(result: CheckResults[K], doctor: Doctor): Record<string, unknown>;
}

/** A check with its result type forgotten, so the rows of different checks share a list. */
type AnyCheck = Omit<DoctorCheck<CheckId>, "look" | "healthy" | "json"> & {
  look(doctor: Doctor): Promise<unknown>;
  healthy(result: unknown): boolean;
  json(result: unknown, doctor: Doctor): Record<string, unknown>;
};

function check<K extends CheckId>(row: DoctorCheck<K>): AnyCheck {
  return row as unknown as AnyCheck;
}

/**
 * The tools a run may need: python3 and uv (or SKILLS_PYTHON, SKILLS_UV) and git first, then
 * every other runner of the script languages' table, so a language added there is probed.
 */
async function toolsCheck({ ctx }: Doctor): Promise<ToolProbe[]> {
  const commands: Record<string, string> = {
    python3: ctx.env.SKILLS_PYTHON || "python3",
    uv: ctx.env.SKILLS_UV || "uv",
    git: "git",
  };
  for (const program of runnerPrograms()) commands[program] ??= program;
  const tools = await Promise.all(
    Object.entries(commands).map(([name, command]) => probeTool(name, command)),
  );
  for (const t of tools) {
    debug(
      ctx,
      `${t.name}: ${t.found ? `found ${t.version ?? ""}`.trim() : t.detail ?? "not found"}`,
    );
  }
  return tools;
}

async function sandboxCheck({ ctx, session }: Doctor): Promise<SandboxReport> {
  const sandbox = await sandboxReport(ctx.env, session.home);
  debug(ctx, `sandbox: ${sandbox.mode} (${sandbox.reason})`);
  return sandbox;
}

/** What the home check counts as unused beyond the store's own: kept listings of gone folders. */
function homeClutter(home: string, keepCore: readonly string[]) {
  return { keepCore, alsoUnused: listingsOfGoneFolders(home) };
}

/** The checks, in the order of the `--json` report's fields. */
export const CHECKS: readonly AnyCheck[] = [
  check({
    id: "skills",
    looksAt: "each skill: loads, files as trusted, toolsets import, audit under today's rules",
    look: ({ ctx, session }) => skillsCheck(ctx, session),
    healthy: (r) => r.skills.every((x) => x.status === "ok"),
    json: (r, { session }) => ({ skills: r.skills, active: [...session.active].sort() }),
  }),
  check({
    id: "tools",
    looksAt:
      "python3, uv, git and every script language's runners on PATH (or SKILLS_PYTHON, SKILLS_UV)",
    look: toolsCheck,
    healthy: () => true,
    json: (tools) => ({ tools }),
  }),
  check({
    id: "sandbox",
    looksAt: "which sandbox scripts run in, and what it does not enforce",
    look: sandboxCheck,
    healthy: (sandbox) => sandbox.usable,
    json: sandboxJson,
  }),
  check({
    id: "home",
    looksAt: "the registry against the skill directories; unused files and leftovers",
    repair: {
      does: "drops entries without files, moves orphans to .trash, removes unused files",
      run: async ({ session, keepCore }): Promise<HomeRepair> => ({
        repaired: await repairHome(session.home),
        pruned: await pruneUnused(session.home, homeClutter(session.home, keepCore)),
      }),
    },
    look: async ({ session, keepCore, repaired }) => {
      const consistency = await inspectHome(session.home);
      return {
        consistency,
        consistent: isConsistent(consistency),
        unused: await findUnused(session.home, homeClutter(session.home, keepCore)),
        repair: repaired.get("home") as HomeRepair | undefined,
      };
    },
    healthy: (r) => r.consistent,
    json: ({ consistency, unused, repair }) => ({
      consistency,
      unused,
      repaired: repair?.repaired ?? null,
      removed_unused: repair?.pruned ?? [],
    }),
  }),
  check({
    id: "warnings",
    looksAt: "AGENT_SKILLS activation and catalog notes",
    look: ({ session }) =>
      Promise.resolve([...session.activationWarnings, ...session.catalog.notes]),
    healthy: () => true,
    json: (warnings) => ({ warnings }),
  }),
  check({
    id: "project",
    looksAt: "skills-lock.json against the project's folders and trust; links",
    look: ({ session }) => projectReport(session.home, session.catalog),
    healthy: (project) => project.healthy,
    json: projectJson,
  }),
];
