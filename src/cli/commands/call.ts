/**
 * `skills call <skill> <tool> [--input JSON] [--json]`: calls one typed toolset tool
 * directly, without a model, through the same Python toolset host the agent uses.
 */

import type { Envelope } from "../../core/envelope.ts";
import {
  EXIT_FAILURE,
  EXIT_INTERRUPTED,
  EXIT_TIMEOUT,
  SkillError,
  UsageError,
} from "../../core/errors.ts";
import { qualifiedToolName } from "../../core/names.ts";
import { findSkill, loadCatalog, type LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { type Context, debug, warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { ToolsetHost, type ToolsetMethod } from "../../runtime/exec/toolset_host.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { callSpec } from "../specs/call.ts";
import { table, writeJson } from "../ui/render.ts";

const HINT = "Run `skills call --help` for usage";

/** Pure: argv → options; `--input` and `--timeout` are parsed by the spec's value parsers. */
export const { help, parse } = defineCommand(callSpec, ({ values, positionals, common }) => {
  const options = {
    ...common,
    skill: "",
    tool: "",
    /** Parsed `--input`, or "stdin" for `--input -`. */
    input: values.input ?? {},
    list: values.list === true,
    timeoutSeconds: values.timeout,
  };
  if (options.help) return options;
  const [skill, tool, ...rest] = positionals;
  if (skill === undefined) throw new UsageError("Missing skill name", HINT);
  if (rest.length > 0) throw new UsageError(`Unexpected argument '${rest[0]}'`, HINT);
  if (tool === undefined && !options.list) throw new UsageError("Missing tool name", HINT);
  if (tool !== undefined && options.list) {
    throw new UsageError("Give either a tool name or --list, not both", HINT);
  }
  return { ...options, skill, tool: tool ?? "" };
});

type CallOptions = OptionsOf<typeof parse>;

/** The method a tool name refers to: `greet` or `<skill>__greet`. */
export function resolveMethod(
  skill: Pick<LoadedSkill, "canonical">,
  methods: readonly ToolsetMethod[],
  tool: string,
): ToolsetMethod | undefined {
  const prefix = qualifiedToolName(skill.canonical, "");
  const method = tool.startsWith(prefix) ? tool.slice(prefix.length) : tool;
  return methods.find((m) => m.name === method);
}

async function readStdin(ctx: Context): Promise<Record<string, unknown>> {
  const lines: string[] = [];
  for (let line = await ctx.readLine(); line !== null; line = await ctx.readLine()) {
    lines.push(line);
  }
  const parsed = callSpec.flags.input.parse(lines.join("\n"));
  if (parsed === "stdin") throw new UsageError("--input - expects JSON on stdin", HINT);
  return parsed;
}

export const handlesInterrupt = true;

export async function run(options: CallOptions, ctx: Context): Promise<number> {
  const input = options.input === "stdin" ? await readStdin(ctx) : options.input;
  const home = skillsHome(ctx.env, ctx.cwd);
  const skill = findSkill(await loadCatalog(home, { cwd: ctx.cwd, env: ctx.env }), options.skill);
  if (skill.manifest.toolsets.length === 0) {
    throw new SkillError("not_found", `Skill '${skill.canonical}' has no toolsets`, {
      hint: `Its scripts run with \`skills run ${skill.canonical} <script>\``,
    });
  }
  const host = await ToolsetHost.start(skill, {
    home,
    env: ctx.env,
    log: (message) => debug(ctx, message),
    ...(options.timeoutSeconds === undefined ? {} : { timeoutMs: options.timeoutSeconds * 1000 }),
  });
  try {
    for (const error of host.errors) {
      warn(ctx, `Toolset ${error.toolset} of skill '${skill.canonical}' skipped: ${error.message}`);
    }
    if (options.list) return listTools(skill, host.methods, options.json, ctx);
    const method = resolveMethod(skill, host.methods, options.tool);
    if (method === undefined) {
      const available = host.methods.map((m) => m.name).join(", ") || "none";
      throw new SkillError(
        "not_found",
        `Skill '${skill.canonical}' has no toolset tool '${options.tool}'`,
        { hint: `Available tools: ${available}` },
      );
    }
    const envelope = await host.call(method.name, input, { signal: ctx.signal });
    return render(envelope, options.json, ctx);
  } finally {
    await host.close();
  }
}

function listTools(
  skill: LoadedSkill,
  methods: readonly ToolsetMethod[],
  json: boolean,
  ctx: Context,
): number {
  const tools = methods.map((m) => ({
    name: qualifiedToolName(skill.canonical, m.name),
    method: m.name,
    description: m.description,
    input_schema: m.inputSchema,
  }));
  if (json) writeJson(ctx, { skill: skill.canonical, tools });
  else {
    const firstLine = (text: string) => text.split("\n")[0] ?? "";
    ctx.stdout.write(
      table(
        ["TOOL", "INPUT", "DESCRIPTION"],
        tools.map((t) => [t.method, inputSummary(t.input_schema), firstLine(t.description)]),
      ),
    );
    ctx.stderr.write("Full input schemas: skills call " + skill.canonical + " --list --json\n");
  }
  return 0;
}

/**
 * One line for a tool's input schema: `name: string, language?: string = "en"`, with
 * `[]` for arrays, enum values joined by `|`, and `?` for optional arguments.
 */
function inputSummary(schema: Record<string, unknown>): string {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const typeOf = (s: Record<string, unknown>): string => {
    if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join("|");
    if (Array.isArray(s.anyOf)) return s.anyOf.map((o) => typeOf(o)).join("|");
    const type = Array.isArray(s.type)
      ? s.type.join("|")
      : typeof s.type === "string"
      ? s.type
      : "any";
    if (type === "array" && s.items && typeof s.items === "object") {
      return `${typeOf(s.items as Record<string, unknown>)}[]`;
    }
    return type;
  };
  const parts = Object.entries(properties).map(([name, s]) => {
    const optional = required.has(name) ? "" : "?";
    const fallback = "default" in s ? ` = ${JSON.stringify(s.default)}` : "";
    return `${name}${optional}: ${typeOf(s)}${fallback}`;
  });
  return parts.length === 0 ? "(none)" : parts.join(", ");
}

/** Human output: the result on stdout; a failure's message on stderr. */
function render(envelope: Envelope, json: boolean, ctx: Context): number {
  if (json) writeJson(ctx, envelope);
  if (envelope.success) {
    if (!json) {
      const { result } = envelope;
      ctx.stdout.write(
        typeof result === "string" ? `${result}\n` : `${JSON.stringify(result, null, 2)}\n`,
      );
      debug(ctx, envelope.message);
    }
    return 0;
  }
  if (!json) {
    const label = ctx.color ? "\x1b[31merror\x1b[0m" : "error";
    ctx.stderr.write(`${label}: ${envelope.message} (${envelope.error})\n`);
  }
  if (envelope.error === "timeout") return EXIT_TIMEOUT;
  if (envelope.error === "cancelled") return EXIT_INTERRUPTED;
  return EXIT_FAILURE;
}
