/**
 * Validation of model-supplied tool arguments (pure). Arguments are `unknown` until checked
 * here with the core kit; every problem becomes a failure envelope instead of an exception.
 * The messages are worded for a model ("Argument 'args' must be a list of strings") and
 * name the argument; where the kit can say more (which list item), it is appended.
 */

import { fail, type FailureEnvelope } from "../../core/envelope.ts";
import type { ErrorCode } from "../../core/errors.ts";
import { quoteName } from "../../core/names.ts";
import {
  anyOf,
  array,
  boolean,
  formatIssue,
  isPlainObject,
  number,
  oneOf,
  string,
} from "../../core/manifest/validation.ts";

export type Checked<T> = { ok: true; value: T } | { ok: false; error: FailureEnvelope };

const good = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = <T>(code: ErrorCode, message: string): Checked<T> => ({
  ok: false,
  error: fail(code, message),
});

/** Bound on any one string argument; longer values are never legitimate names or paths. */
const MAX_STRING = 4096;
const NAME_OR_PATH = string({ max: MAX_STRING });
/** Script arguments: numbers and booleans are accepted and turned into text. */
const SCRIPT_ARGS = array(anyOf(string(), number(), boolean()));
/** Some models send booleans as text. */
const JSON_FLAG = anyOf(boolean(), oneOf("true", "false"));

/**
 * The argument object. `undefined`/`null` mean "no arguments"; a JSON string holding an
 * object is accepted because some models send arguments stringified.
 */
export function argumentObject(args: unknown): Checked<Record<string, unknown>> {
  if (args === undefined || args === null) return good({});
  let value = args;
  if (typeof value === "string") {
    const text = value.trim();
    if (text === "") return good({});
    try {
      value = JSON.parse(text);
    } catch {
      return bad("invalid_arguments", "Tool arguments must be a JSON object");
    }
  }
  if (!isPlainObject(value)) {
    return bad("invalid_arguments", "Tool arguments must be a JSON object");
  }
  return good(value);
}

function pick(obj: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) if (obj[key] !== undefined && obj[key] !== null) return obj[key];
  return undefined;
}

/**
 * A required string argument (a name or a path). Missing or not a string is
 * `invalid_arguments`, whichever argument it is (the call is malformed); a string too long
 * to be a name or path is `valueCode` (`invalid_name`, `invalid_path`), as is any other
 * unacceptable value the later checks find.
 */
function requiredString(
  obj: Record<string, unknown>,
  keys: readonly string[],
  valueCode: ErrorCode = "invalid_name",
): Checked<string> {
  const value = pick(obj, keys);
  if (value === undefined) {
    return bad("invalid_arguments", `Missing required argument '${keys[0]}'`);
  }
  if (typeof value !== "string") {
    return bad("invalid_arguments", `Argument '${keys[0]}' must be a string`);
  }
  if (NAME_OR_PATH(value) === undefined) return good(value);
  return bad(valueCode, `Argument '${keys[0]}' is too long (${value.length} characters)`);
}

export function activateArgs(args: unknown): Checked<{ name: string }> {
  const obj = argumentObject(args);
  if (!obj.ok) return obj;
  const name = requiredString(obj.value, ["name", "skill", "skill_name"]);
  return name.ok ? good({ name: name.value }) : name;
}

export function readFileArgs(args: unknown): Checked<{ skill: string; path: string }> {
  const obj = argumentObject(args);
  if (!obj.ok) return obj;
  const skill = requiredString(obj.value, ["skill", "skill_name", "name"]);
  if (!skill.ok) return skill;
  const path = requiredString(obj.value, ["path", "file"], "invalid_path");
  if (!path.ok) return path;
  return good({ skill: skill.value, path: path.value });
}

/**
 * `call_skill_tool`: `skill` and `tool` are required names; `input` is whatever the tool
 * takes (its own check runs later). No input means `{}`; an object sent as JSON text (some
 * models stringify nested arguments) is parsed.
 */
export function callSkillToolArgs(
  args: unknown,
): Checked<{ skill: string; tool: string; input: unknown }> {
  const obj = argumentObject(args);
  if (!obj.ok) return obj;
  const skill = requiredString(obj.value, ["skill", "skill_name", "name"]);
  if (!skill.ok) return skill;
  const tool = requiredString(obj.value, ["tool", "tool_name"]);
  if (!tool.ok) return tool;
  let input = obj.value.input ?? obj.value.arguments ?? {};
  if (typeof input === "string" && input.trim().startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(input);
      if (isPlainObject(parsed)) input = parsed;
    } catch { /* left as text: the tool's own check says what is wrong */ }
  }
  return good({ skill: skill.value, tool: tool.value, input });
}

export function scriptListArgs(args: unknown): Checked<{ skillName?: string }> {
  const obj = argumentObject(args);
  if (!obj.ok) return obj;
  const value = pick(obj.value, ["skill_name", "skill"]);
  if (value === undefined || value === "") return good({});
  if (typeof value !== "string") {
    return bad("invalid_arguments", "Argument 'skill_name' must be a string");
  }
  return good({ skillName: value });
}

export function scriptHelpArgs(
  args: unknown,
): Checked<{ skillName: string; scriptName: string }> {
  const obj = argumentObject(args);
  if (!obj.ok) return obj;
  const skill = requiredString(obj.value, ["skill_name", "skill"]);
  if (!skill.ok) return skill;
  const script = requiredString(obj.value, ["script_name", "script"]);
  if (!script.ok) return script;
  return good({ skillName: skill.value, scriptName: script.value });
}

interface ScriptRunArgs {
  skillName: string;
  scriptName: string;
  args: string[];
  json: boolean;
}

/** `args` is a list of CLI arguments (numbers and booleans are turned into text); `json` defaults to true. */
export function scriptRunArgs(args: unknown): Checked<ScriptRunArgs> {
  const head = scriptHelpArgs(args);
  if (!head.ok) return head;
  const obj = argumentObject(args);
  if (!obj.ok) return obj;
  const rawArgs = obj.value.args ?? [];
  const argsProblem = SCRIPT_ARGS(rawArgs);
  if (argsProblem !== undefined) {
    // An item's problem names the item: "(args.2: expected string, number or boolean, ...)".
    argsProblem.path.unshift("args");
    return bad(
      "invalid_arguments",
      argsProblem.path.length > 1
        ? `Argument 'args' must be a list of strings (${formatIssue(argsProblem)})`
        : "Argument 'args' must be a list of strings",
    );
  }
  const rawJson = obj.value.json ?? true;
  if (JSON_FLAG(rawJson) !== undefined) {
    return bad("invalid_arguments", "Argument 'json' must be true or false");
  }
  return good({
    ...head.value,
    args: (rawArgs as (string | number | boolean)[]).map(String),
    json: rawJson === true || rawJson === "true",
  });
}

/**
 * A path for `read_skill_file`: relative, `/`-separated, no `..`, no hidden segments
 * (`.env`, `.git`), no NUL. Returns the normalised segments.
 */
export function skillFilePath(path: string): Checked<string[]> {
  const refuse = (why: string) =>
    bad<string[]>("invalid_path", `Cannot read '${quoteName(path)}': ${why}`);
  if (path.includes("\0")) return refuse("the path contains a NUL character");
  if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path)) {
    return refuse("only paths relative to the skill directory are allowed");
  }
  if (path.includes("\\")) return refuse("use '/' as the path separator");
  const segments = path.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.length === 0) return refuse("the path is empty");
  if (segments.includes("..")) return refuse("'..' is not allowed");
  if (segments.some((s) => s.startsWith("."))) return refuse("hidden files are not readable");
  return good(segments);
}
