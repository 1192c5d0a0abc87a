/**
 * A skill's toolsets, started to see what they offer: the toolset host runs the skill's
 * Python, so this is the one place the doctor and `skills info` start it. The host is
 * imported lazily, keeping its module off the start-up path of every command.
 */

import { qualifiedToolName } from "../../core/names.ts";
import type { LoadedSkill } from "../catalog/catalog.ts";
import type { RunState } from "../trust/gate.ts";

/** How long a toolset host may take to start and list its methods. */
const START_TIMEOUT_MS = 20_000;

/** The first line of what went wrong: a toolset's traceback is for `skills call --verbose`. */
function firstLine(error: unknown): string {
  return error instanceof Error ? error.message.split("\n")[0]! : String(error);
}

/**
 * The tools a model sees for this skill: the skill tools, then its toolset tools (mounted
 * after activation). Toolset method names come from the toolset host, so they are listed
 * only when it starts (a trusted, unmodified skill); otherwise the name pattern is shown
 * with the reason.
 */
export async function agentToolNames(
  skill: LoadedSkill,
  home: string,
  env: Record<string, string>,
): Promise<string[]> {
  const names = ["activate_skill", "read_skill_file"];
  if (skill.scripts.length > 0) names.push("script_list", "script_help", "script_run");
  if (skill.manifest.toolsets.length === 0) return names;
  try {
    const { ToolsetHost } = await import("../exec/toolset_host.ts");
    const host = await ToolsetHost.start(skill, { home, env, timeoutMs: START_TIMEOUT_MS });
    try {
      names.push(...host.methods.map((m) => qualifiedToolName(skill.canonical, m.name)));
    } finally {
      await host.close();
    }
  } catch (error) {
    names.push(
      `${qualifiedToolName(skill.canonical, "*")} (toolset methods, not listed: ${
        firstLine(error)
      })`,
    );
  }
  return names;
}

/**
 * Starts the toolset host of every runnable skill that has toolsets and collects what
 * failed to import, by canonical name: a skill whose tools cannot load is not healthy,
 * even if it lists fine.
 */
export async function toolsetProblems(
  skills: readonly LoadedSkill[],
  states: ReadonlyMap<string, RunState>,
  home: string,
  env: Record<string, string>,
): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  const withToolsets = skills.filter((s) =>
    s.manifest.toolsets.length > 0 && states.get(s.canonical)?.state === "ok"
  );
  if (withToolsets.length === 0) return problems;
  const { ToolsetHost } = await import("../exec/toolset_host.ts");
  for (const skill of withToolsets) {
    try {
      // Started even when its tool list is kept: the check is that it starts.
      const host = await ToolsetHost.start(skill, {
        home,
        env,
        timeoutMs: START_TIMEOUT_MS,
        startProcess: true,
      });
      await host.close();
      const failed = host.errors.map((e) => `${e.toolset}: ${e.message}`);
      if (failed.length > 0) {
        problems.set(skill.canonical, `toolset failed to load: ${failed.join("; ")}`);
      }
    } catch (error) {
      problems.set(skill.canonical, `toolset failed to start: ${firstLine(error)}`);
    }
  }
  return problems;
}
