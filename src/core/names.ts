/**
 * Skill and script names (DESIGN §3). Input may be `Kalshi-Markets` or `kalshi_markets`;
 * the canonical form is lower case with `_` mapped to `-`. Anything that could name a
 * path outside a skill root is rejected with `invalid_name`.
 */

import { splitScriptFile } from "./scripts/script_language.ts";
import { SkillError } from "./errors.ts";

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const RESERVED = new Set([".", "..", "~", "__pycache__"]);
/** Windows device names: harmless on POSIX, but a skill directory must work everywhere. */
const WINDOWS_DEVICES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * Renders a name for an error message without letting control characters through, at most 80
 * characters of it: a longer one keeps its start and its end, which tells one source from
 * another (`file:///…/base.git`, `…/style.git`), with `…` for what is left out.
 */
export function quoteName(value: string): string {
  const shown = value.length > 80 ? `${value.slice(0, 40)}…${value.slice(-39)}` : value;
  return JSON.stringify(shown).slice(1, -1);
}

/** Why a skill name is unacceptable, or undefined when it is fine. */
export function skillNameProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "must be a string";
  if (value.length === 0) return "must not be empty";
  if (RESERVED.has(value) || RESERVED.has(value.toLowerCase())) return "is reserved";
  if (value.length > 64) return "is longer than 64 characters";
  if (!NAME_PATTERN.test(value)) return "may contain only letters, digits, '-' and '_'";
  if (WINDOWS_DEVICES.test(value)) return "is a reserved device name on Windows";
  // A leading '-' would read as an option to git, python or this CLI itself.
  if (!/^[A-Za-z0-9]/.test(value)) return "must start with a letter or digit";
  return undefined;
}

/** Validates a skill name and returns its canonical form; throws `invalid_name`. */
export function canonicalSkillName(value: unknown): string {
  const problem = skillNameProblem(value);
  if (problem !== undefined) {
    throw new SkillError(
      "invalid_name",
      `Invalid skill name: '${quoteName(String(value))}' (${problem})`,
    );
  }
  return (value as string).toLowerCase().replaceAll("_", "-");
}

/**
 * The name a skill is installed and called by, from the name it was published with: its
 * canonical form when it is a valid name; otherwise (`Ahrefs Automation`, `-draft`,
 * `my skill_`, `Customer.io Automation`, `Next.js Internationalization (i18n)`) the form
 * derived from it — lower case, spaces and ASCII punctuation to `-`, runs of `-` collapsed,
 * leading and trailing `-` trimmed. Undefined when even that is no valid name (a path
 * separator, a control or non-ASCII character, a reserved or over-long name): such a skill
 * cannot be installed. Valid names are never collapsed, so what is installed keeps the name
 * it has.
 */
export function publishedSkillKey(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  if (skillNameProblem(value) === undefined) return canonicalSkillName(value);
  if (RESERVED.has(value.trim().toLowerCase()) || WINDOWS_DEVICES.test(value.trim())) {
    return undefined;
  }
  // Every printable ASCII character but letters, digits and the path separators `/` and `\`.
  const derived = value.toLowerCase().replace(/[ !-.:-@[\]^_`{-~]/g, "-").replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "");
  return skillNameProblem(derived) === undefined ? derived : undefined;
}

/** {@link publishedSkillKey}, throwing `invalid_name` as {@link canonicalSkillName} does. */
export function canonicalPublishedName(value: unknown): string {
  return publishedSkillKey(value) ?? canonicalSkillName(value);
}

export function isValidSkillName(value: unknown): value is string {
  return skillNameProblem(value) === undefined;
}

/** What a user or model calls a script by: `Get_All`, `get-all` and `GET-ALL` are one. */
export function scriptKey(text: string): string {
  return text.toLowerCase().replaceAll("_", "-");
}

/**
 * How a script is asked for: `Status`, `status`, `status.py` → `status` or `status.py`;
 * nested ones by their path, `office/unpack` or `scripts/office/unpack.py`; a file
 * elsewhere in the skill by its path from the skill root, `resources/deploy.sh` (lower case;
 * an extension only when one of a script language was given; a leading `./` means the
 * skill root). Every part must be a name
 * one can type: no `..`, no absolute path, no hidden part. Throws `invalid_name`.
 */
export function canonicalScriptName(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  // `./find-polluter.sh`, as a skill's instructions write a script at its root.
  const parts = text.replace(/^(?:\.\/)+/, "").split("/");
  const invalid = (why: string) =>
    new SkillError("invalid_name", `Invalid script name: '${quoteName(text)}' (${why})`);
  if (parts.length > MAX_SCRIPT_PARTS) throw invalid("is nested too deep");
  const out = parts.map((part, i) => {
    const split = i === parts.length - 1 ? splitScriptFile(part) : undefined;
    const stem = split?.stem ?? part;
    const problem = skillNameProblem(stem);
    if (problem !== undefined) throw invalid(parts.length > 1 ? `'${part}' ${problem}` : problem);
    return split === undefined ? stem.toLowerCase() : `${stem.toLowerCase()}.${split.extension}`;
  });
  return out.join("/");
}

/** `scripts/` plus four folders, as deep as the loader looks for scripts. */
const MAX_SCRIPT_PARTS = 6;

/** `status.py`, `build.sh` → `status`, `build` (the name shown to users and models). */
export function scriptDisplayName(fileName: string): string {
  return splitScriptFile(fileName)?.stem ?? fileName;
}

/** Tool names for typed toolsets: `<skill>__<method>` with `-` mapped to `_`. */
export function qualifiedToolName(skill: string, method: string): string {
  return `${skill.replaceAll("-", "_")}__${method.replaceAll("-", "_")}`;
}
