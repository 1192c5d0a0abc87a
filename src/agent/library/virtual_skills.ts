/**
 * Skills a program defines in code (the library's virtual skills, mod.ts): the definitions
 * as a program writes them, checked when defined, and turned into the tool surface's
 * `VirtualSkill`. A tool's input schema is a Standard Schema (zod 4, valibot, ArkType, …)
 * or a plain JSON Schema object; a JSON Schema is checked through zod's converter, which is
 * imported only when a program uses one (never by the CLI).
 */

import { SkillError } from "../../core/errors.ts";
import { isPlainObject } from "../../core/manifest/validation.ts";
import { canonicalSkillName, skillNameProblem } from "../../core/names.ts";
import type { InputCheck, VirtualSkill, VirtualSkillTool } from "../surface/tool_surface.ts";

/** One problem reported by a Standard Schema. */
interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/**
 * The Standard Schema interface (standardschema.dev) that zod 4, valibot and ArkType
 * implement, with the optional Standard JSON Schema converter (zod ≥ 4.2).
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** A JSON Schema object describing a tool's input, e.g. `{ type: "object", properties: … }`. */
export type JsonSchema = Record<string, unknown>;

/** What a handler receives besides its input. */
export interface ToolContext {
  /**
   * Aborted when the caller gives up on the call (e.g. the model request was cancelled).
   * Always given: a signal that never aborts when the caller passed none.
   */
  signal: AbortSignal;
}

/**
 * A tool of a virtual skill. `handler` is the program's own code: its return value (JSON
 * data) is the tool's result, and whatever it throws becomes an `execution_failed` envelope.
 * Use {@link skillTool} to have `input` typed from a schema.
 */
export interface SkillTool<Input = unknown> {
  /** Unique within its skill; two skills may both have a tool named `search`. */
  name: string;
  description: string;
  /** Checks `input` before the handler runs; a failure is an `invalid_input` envelope. */
  inputSchema?: StandardSchemaV1<unknown, Input> | JsonSchema;
  handler(input: Input, context: ToolContext): unknown;
}

/** A skill defined in code: nothing of it is written to disk. */
export interface SkillDefinition {
  /** Lower case letters, digits and `-` (the Agent Skills rule), at most 64 characters. */
  name: string;
  /** When to use the skill: what the model sees before activating it (≤ 1024 characters). */
  description: string;
  /** The Markdown instructions `activate_skill` returns; the tools are documented after it. */
  body: string;
  tools?: readonly SkillTool[];
}

/** Output type of a Standard Schema. */
type Infer<S> = S extends StandardSchemaV1<unknown, infer Output> ? Output : never;

/** A tool whose `input` is typed by its Standard Schema (zod, valibot, ArkType, …). */
export function skillTool<S extends StandardSchemaV1>(tool: {
  name: string;
  description: string;
  inputSchema: S;
  handler: (input: Infer<S>, context: ToolContext) => unknown;
}): SkillTool<Infer<S>>;
/** A tool with a JSON Schema (or none); say the input's type as the type argument. */
export function skillTool<Input = Record<string, unknown>>(tool: {
  name: string;
  description: string;
  inputSchema?: JsonSchema;
  handler: (input: Input, context: ToolContext) => unknown;
}): SkillTool<Input>;
export function skillTool(tool: SkillTool): SkillTool {
  return tool;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_DESCRIPTION = 1024;

function invalid(skill: string, message: string): SkillError {
  return new SkillError("invalid_manifest", `Invalid skill '${skill}' defined in code: ${message}`);
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { "~standard"?: { validate?: unknown } } | null)?.["~standard"];
  return typeof props === "object" && props !== null && typeof props.validate === "function";
}

/**
 * Checks a skill definition and returns it unchanged: a bad name, an empty description, a
 * duplicate tool or a handler that is not a function throws at once (`invalid_manifest`).
 */
export function defineSkill<T extends SkillDefinition>(definition: T): T {
  const label = typeof definition?.name === "string" ? definition.name : "?";
  const nameProblem = skillNameProblem(definition?.name);
  if (nameProblem !== undefined) throw invalid(label, `name: ${nameProblem}`);
  if (typeof definition.description !== "string" || definition.description.trim() === "") {
    throw invalid(label, "description must be a non-empty string");
  }
  if (definition.description.length > MAX_DESCRIPTION) {
    throw invalid(label, `description is longer than ${MAX_DESCRIPTION} characters`);
  }
  if (typeof definition.body !== "string") throw invalid(label, "body must be a string");
  const seen = new Set<string>();
  for (const tool of definition.tools ?? []) {
    const name = String(tool?.name);
    if (!TOOL_NAME.test(name)) {
      throw invalid(label, `tool name '${name}' must be 1-64 letters, digits, '_', '-' or '.'`);
    }
    if (seen.has(name)) throw invalid(label, `two tools are named '${name}'`);
    seen.add(name);
    if (typeof tool.description !== "string" || tool.description.trim() === "") {
      throw invalid(label, `tool '${name}' needs a description`);
    }
    if (typeof tool.handler !== "function") {
      throw invalid(label, `tool '${name}' needs a handler function`);
    }
    const schema = tool.inputSchema;
    if (schema !== undefined && !isStandardSchema(schema) && !isPlainObject(schema)) {
      throw invalid(label, `tool '${name}': inputSchema must be a Standard Schema or JSON Schema`);
    }
  }
  return definition;
}

function formatIssues(issues: ReadonlyArray<StandardIssue>): string {
  const shown = issues.slice(0, 5).map((issue) => {
    const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p));
    return path.length === 0 ? issue.message : `${path.join(".")}: ${issue.message}`;
  });
  if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
  return shown.join("; ");
}

function standardCheck(schema: StandardSchemaV1): (input: unknown) => Promise<InputCheck> {
  return async (input) => {
    const result = await schema["~standard"].validate(input);
    return result.issues === undefined
      ? { ok: true, value: result.value }
      : { ok: false, message: formatIssues(result.issues) };
  };
}

/** A Standard Schema's input as JSON Schema, when its library can say (zod ≥ 4.2 can). */
function jsonSchemaOf(schema: StandardSchemaV1): JsonSchema {
  const convert = schema["~standard"].jsonSchema;
  if (convert !== undefined) {
    try {
      const { $schema: _, ...rest } = convert.input({ target: "draft-07" });
      return rest;
    } catch { /* fall through: an input the converter cannot express */ }
  }
  return { type: "object", description: `Checked by ${schema["~standard"].vendor}` };
}

/** Checks `input` against a JSON Schema with zod's converter (loaded on first use). */
async function jsonSchemaCheck(
  skill: string,
  tool: string,
  schema: JsonSchema,
): Promise<(input: unknown) => Promise<InputCheck>> {
  const { fromJSONSchema } = await import("zod");
  let compiled: StandardSchemaV1;
  try {
    compiled = fromJSONSchema(schema as Parameters<typeof fromJSONSchema>[0]);
  } catch (error) {
    throw invalid(
      skill,
      `tool '${tool}': its JSON Schema is not usable (${(error as Error).message})`,
    );
  }
  return standardCheck(compiled);
}

/** What a tool without a schema accepts: anything; `{}` stands for no input. */
const ANY_INPUT = (input: unknown) => Promise.resolve<InputCheck>({ ok: true, value: input });

/** The tool surface's form of a (checked) definition; compiles JSON Schemas. */
export async function toVirtualSkill(definition: SkillDefinition): Promise<VirtualSkill> {
  defineSkill(definition);
  const name = canonicalSkillName(definition.name);
  const tools: VirtualSkillTool[] = [];
  for (const tool of definition.tools ?? []) {
    const schema = tool.inputSchema;
    const [inputSchema, check] = schema === undefined
      ? [{ type: "object" }, ANY_INPUT]
      : isStandardSchema(schema)
      ? [jsonSchemaOf(schema), standardCheck(schema)]
      : [structuredClone(schema), await jsonSchemaCheck(name, tool.name, schema)];
    tools.push({
      name: tool.name,
      description: tool.description,
      inputSchema,
      check,
      handler: (input, options) => tool.handler(input, { signal: options.signal }),
    });
  }
  return { name, description: definition.description, body: definition.body, tools };
}
