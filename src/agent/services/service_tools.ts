/**
 * The model's service tools. What the user grants is the whole of it: the tools exist only
 * with the grant; `service_start` starts only a script its active skill declares a service
 * (`permissions.services`) — any other needs the user's own `skills run --background` — in the
 * session's workspace, with live folders only inside it (its guarded paths stay read-only, as
 * every `--write` grant's do: the same writes its diff would make, made earlier); `service_stop`
 * stops only what this session started. Every answer is the seed-000 envelope.
 */

import { type Envelope, fail, failFromError, ok } from "../../core/envelope.ts";
import { findScript, type LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { isWithin } from "../../runtime/os/fs.ts";
import { resolve } from "../../runtime/os/paths.ts";

/** The service tools' names (allowed-tools keeps them in the baseline). */
export const SERVICE_TOOL_NAMES: readonly string[] = [
  "service_start",
  "service_list",
  "service_stop",
];

interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Whether the user granted the model services: the option, else SKILLS_ALLOW_SERVICES. */
export function servicesGranted(
  env: Readonly<Record<string, string>>,
  option: boolean | undefined,
): boolean {
  return option ?? /^(1|true|yes|on)$/i.test(env.SKILLS_ALLOW_SERVICES?.trim() ?? "");
}

/** The tools, for a surface whose active skills declare services. */
export function serviceToolDefinitions(): ToolDefinition[] {
  const str = { type: "string" };
  const list = { type: "array", items: str };
  return [
    {
      name: "service_start",
      description:
        "Start a script its skill declares a service; it keeps running. Returns its id and http://127.0.0.1 URLs. write: workspace folders it shares live.",
      inputSchema: {
        type: "object",
        properties: { skill_name: str, script_name: str, args: list, write: list },
        required: ["skill_name", "script_name"],
      },
    },
    {
      name: "service_list",
      description: "List the running services with their URLs.",
      inputSchema: { type: "object", properties: {} },
    },
    {
      name: "service_stop",
      description: "Stop a service this session started.",
      inputSchema: { type: "object", properties: { id: str }, required: ["id"] },
    },
  ];
}

interface ServiceToolContext {
  home: string;
  env: Readonly<Record<string, string>>;
  /** The session's workspace. */
  cwd: string | undefined;
  /** An active stored skill by name, or the envelope saying why not. */
  activeSkill(name: string): { record: LoadedSkill } | { error: Envelope };
  /** The ids this session started (the ones it may stop). */
  started: Set<string>;
}

/** One service tool call. */
export async function callServiceTool(
  name: string,
  args: unknown,
  context: ServiceToolContext,
): Promise<Envelope> {
  const input = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  try {
    if (name === "service_start") return await start(input, context);
    if (name === "service_list") return await list(context);
    return await stop(input, context);
  } catch (error) {
    return failFromError(error);
  }
}

function strings(value: unknown): string[] | undefined {
  if (value === undefined) return [];
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
}

async function start(input: Record<string, unknown>, context: ServiceToolContext) {
  const { skill_name: skillName, script_name: scriptName } = input;
  const args = strings(input.args);
  const write = strings(input.write);
  if (typeof skillName !== "string" || typeof scriptName !== "string") {
    return fail("invalid_arguments", "skill_name and script_name must be strings");
  }
  if (args === undefined || write === undefined) {
    return fail("invalid_arguments", "args and write must be lists of strings");
  }
  const found = context.activeSkill(skillName);
  if ("error" in found) return found.error;
  const skill = found.record;
  const script = findScript(skill, scriptName);
  if (script === undefined) {
    return fail("not_found", `Skill '${skill.canonical}' has no script '${scriptName}'`);
  }
  const { declaresService } = await import("../../runtime/services/state.ts");
  if (!declaresService(skill.manifest.services ?? [], script)) {
    return fail(
      "permission_denied",
      `Skill '${skill.canonical}' does not declare '${script.name}' a service (permissions.services): only the user may start it, with skills run --background`,
    );
  }
  if (context.cwd === undefined) {
    return fail("permission_denied", "Services need a workspace to run in");
  }
  const folders = write.map((path) => resolve(context.cwd!, path));
  const outside = write.find((_, i) => !isWithin(context.cwd!, folders[i]!));
  if (outside !== undefined) {
    return fail("permission_denied", `'${outside}' is outside the workspace`);
  }
  const { serviceLimits, startService } = await import("../../runtime/services/start.ts");
  const started = await startService({
    skill: skill.canonical,
    script: script.name,
    args,
    cwd: context.cwd,
    env: [],
    allowNet: [],
    write: folders,
    readOnly: false,
    ...serviceLimits(context.env),
  }, { home: context.home, env: context.env });
  context.started.add(started.state.id);
  return ok(
    {
      id: started.state.id,
      urls: started.urls,
      ports: started.state.ports,
      output: started.output,
      live: started.state.live,
    },
    `Service ${started.state.id} running${
      started.urls.length ? ` at ${started.urls.join(", ")}` : ""
    }`,
  );
}

async function list(context: ServiceToolContext): Promise<Envelope> {
  const { listServices } = await import("../../runtime/services/state.ts");
  const running = (await listServices(context.home, context.env)).filter((s) => s.alive);
  return ok({
    services: running.map((s) => ({
      id: s.id,
      skill: s.skill,
      script: s.script,
      urls: s.ports.map((p) => `http://127.0.0.1:${p.host}/`),
      started_at: s.started_at,
      live: s.live,
      started_here: context.started.has(s.id),
    })),
  }, `${running.length} service${running.length === 1 ? "" : "s"} running`);
}

async function stop(input: Record<string, unknown>, context: ServiceToolContext) {
  const id = input.id;
  if (typeof id !== "string") return fail("invalid_arguments", "id must be a string");
  if (!context.started.has(id)) {
    return fail("permission_denied", `Service '${id}' was not started in this session`);
  }
  const { findServices, stopServices } = await import("../../runtime/services/control.ts");
  const [result] = await stopServices(
    context.home,
    await findServices(context.home, id, context.env, true),
    context.env,
  );
  return ok(result, `Service ${id} ${result?.stopped ? "stopped" : "had ended already"}`);
}
