/**
 * `skills lint`: style checks for skill authors, beyond what `validate` requires. Pure:
 * the runtime side (runtime/audit/lint.ts) reads the files and runs the scripts.
 *
 * - The description says what the skill does and when to use it, in the third person,
 *   without vague words, at a useful length.
 * - The body stays small: at most 500 lines and 5,000 tokens (it is loaded whole).
 * - Every file the body mentions exists; every resource and script is mentioned somewhere.
 */

import { characterCount } from "./manifest.ts";

export interface LintFinding {
  rule: string;
  level: "error" | "warning";
  /** Path inside the skill (`SKILL.md`, `scripts/run.py`). */
  file: string;
  line?: number;
  message: string;
}

const MAX_BODY_LINES = 500;
export const MAX_BODY_TOKENS = 5000;
const MIN_DESCRIPTION_CHARS = 40;

const FIRST_PERSON =
  /(?:^|[^\w'’/-])(?:I|I'm|I'll|I've|I'd|[Mm]y|[Mm]e|[Ww]e|[Ww]e're|[Oo]ur|[Uu]s)(?![\w'’/-])/;
const WHEN =
  /\b(?:when(?:ever)?|use (?:it |this (?:skill )?)?(?:for|to|if|on|with)|if (?:the )?(?:user|you|an? agent)|for (?:tasks|requests|questions|work)|triggers?)\b/i;
const VAGUE =
  /\b(?:helps?|helper|assists?|various|stuff|things|etc\b\.?|misc(?:ellaneous)?|utilit(?:y|ies)|and more|deals? with|general[- ]purpose)\b/i;

/** What and when, third person, no vague words, long enough to choose the skill by. */
export function lintDescription(description: string, line: number): LintFinding[] {
  const out: LintFinding[] = [];
  const at = (rule: string, message: string) =>
    out.push({ rule, level: "warning", file: "SKILL.md", line, message });
  const length = characterCount(description.trim());
  if (length < MIN_DESCRIPTION_CHARS) {
    at(
      "description-short",
      `'description' is ${length} characters: say what the skill does and when to use it`,
    );
  }
  // Quoted requests ("deploy my app"), code and model ids (us.anthropic.*) are not the
  // description speaking.
  const own = description
    .replace(/"[^"]*"|“[^”]*”|`[^`]*`|(?<![\w])'[^']*'(?![\w])|\b[\w.-]*anthropic\.[\w.:-]*/g, " ");
  const person = FIRST_PERSON.exec(own);
  if (person !== null) {
    at(
      "description-first-person",
      `'description' speaks in the first person ('${
        person[0].trim()
      }'): describe the skill in the third person`,
    );
  }
  if (!WHEN.test(description)) {
    at(
      "description-when",
      "'description' does not say when to use the skill (e.g. 'Use when the user asks for …')",
    );
  }
  const vague = VAGUE.exec(description);
  if (vague !== null) {
    at(
      "description-vague",
      `'description' uses the vague word '${vague[0]}': name what the skill does`,
    );
  }
  return out;
}

/** A body of at most 500 lines and 5,000 tokens (`tokens` undefined: known to be fewer). */
export function lintBody(
  body: string,
  bodyLine: number,
  tokens: number | undefined,
): LintFinding[] {
  const out: LintFinding[] = [];
  const lines = body.split("\n").length;
  if (lines > MAX_BODY_LINES) {
    out.push({
      rule: "body-lines",
      level: "warning",
      file: "SKILL.md",
      line: bodyLine,
      message:
        `the body has ${lines} lines (more than ${MAX_BODY_LINES}): move details to references/ files`,
    });
  }
  if (tokens !== undefined && tokens > MAX_BODY_TOKENS) {
    out.push({
      rule: "body-tokens",
      level: "warning",
      file: "SKILL.md",
      line: bodyLine,
      message:
        `the body is about ${tokens} tokens (more than ${MAX_BODY_TOKENS}): move details to references/ files`,
    });
  }
  return out;
}

/**
 * Whether a text of `bytes` UTF-8 bytes needs counting: every token is at least one byte,
 * so a body of at most MAX_BODY_TOKENS bytes cannot exceed the limit.
 */
export function needsTokenCount(bytes: number): boolean {
  return bytes > MAX_BODY_TOKENS;
}

interface Mention {
  path: string;
  line: number;
}

const LINK = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const RESOURCE_PATH =
  /(?<![\w./-])((?:\.\/)?(?:scripts|references|assets|templates|examples|toolsets)\/[\w./-]*[\w-])/g;

const TOLD_TO_USE =
  /\b(?:run|runs|execute|invoke|call|open|read|reads|see|load|consult|refer\s+to|check|follow|use|using|with|from|in)\b[^.;:!?]*$/i;

/**
 * Relative files a Markdown text points at: link targets, and resource-folder paths the
 * text tells the agent to open or run (outside code blocks).
 */
export function mentionedPaths(text: string, firstLine = 1): Mention[] {
  const out: Mention[] = [];
  const lines = text.split("\n");
  let inFence = false;
  lines.forEach((line, i) => {
    if (/^\s{0,3}(?:```|~~~)/.test(line)) {
      inFence = !inFence;
      return;
    }
    // A path in a code block is an example, not a file of this skill.
    if (inFence) return;
    for (const m of line.matchAll(LINK)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#") || target.startsWith("/")) {
        continue;
      }
      const path = safeDecode(target.replace(/[#?].*$/, ""));
      if (path !== "") out.push({ path: normalizeRel(path), line: firstLine + i });
    }
    for (const m of line.matchAll(RESOURCE_PATH)) {
      // Outside a link, a path is this skill's file only where the agent is told to open
      // or run it ("run scripts/x.py", "see references/y.md"); "add a references/citations
      // section" is an example.
      const before = line.slice(Math.max(0, m.index! - 60), m.index!);
      if (!TOLD_TO_USE.test(before)) continue;
      out.push({ path: normalizeRel(m[1]!), line: firstLine + i });
    }
  });
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function normalizeRel(path: string): string {
  return path.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
}

/** Mentions of files (or folders) that are not in the skill. */
export function lintMissingFiles(
  mentions: readonly Mention[],
  files: readonly string[],
): LintFinding[] {
  const present = new Set(files);
  const folders = new Set(files.flatMap((f) => {
    const parts = f.split("/");
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
  }));
  const seen = new Set<string>();
  const out: LintFinding[] = [];
  for (const m of mentions) {
    if (m.path === "" || present.has(m.path) || folders.has(m.path) || seen.has(m.path)) continue;
    if (m.path.split("/").includes("..")) continue; // outside the skill: not ours to check
    seen.add(m.path);
    out.push({
      rule: "missing-file",
      level: "error",
      file: "SKILL.md",
      line: m.line,
      message: `the body mentions ${m.path}, which is not in the skill`,
    });
  }
  return out;
}

interface Doc {
  path: string;
  text: string;
}

/**
 * Resources (references/, assets/) and scripts that no document of the skill mentions by
 * path, by file name, or (scripts) by the name `skills run` takes.
 */
export function lintUnreferenced(
  docs: readonly Doc[],
  files: readonly string[],
  scripts: readonly { file: string; name: string }[],
): LintFinding[] {
  const out: LintFinding[] = [];
  const mentionedIn = (path: string, needles: readonly RegExp[]) =>
    docs.some((d) => d.path !== path && needles.some((n) => n.test(d.text)));
  const word = (text: string) =>
    new RegExp(`(?<![\\w.-])${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`);
  for (const path of files) {
    if (!/^(?:references|assets)\//.test(path)) continue;
    const name = path.split("/").pop()!;
    if (!mentionedIn(path, [word(path), word(name)])) {
      out.push({
        rule: "unreferenced-file",
        level: "warning",
        file: path,
        message: `${path} is not mentioned by SKILL.md or any other document: link it or remove it`,
      });
    }
  }
  for (const script of scripts) {
    const path = `scripts/${script.file}`;
    if (!mentionedIn(path, [word(path), word(script.file), word(script.name)])) {
      out.push({
        rule: "unreferenced-file",
        level: "warning",
        file: path,
        message: `script ${script.name} is not mentioned by SKILL.md: say when to run it`,
      });
    }
  }
  return out;
}

/** The skill's name should equal its folder's (the Agent Skills spec requires it). */
export function lintNameFolder(name: string, folder: string, line: number): LintFinding[] {
  if (name === folder) return [];
  return [{
    rule: "name-folder",
    level: "warning",
    file: "SKILL.md",
    line,
    message: `'name' (${name}) differs from the folder name (${folder}): rename one of them`,
  }];
}
