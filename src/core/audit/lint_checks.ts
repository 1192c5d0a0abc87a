/**
 * `skills lint`: style checks for skill authors, beyond what `validate` requires. Pure:
 * the runtime side (runtime/audit/lint.ts) reads the files and runs the scripts.
 *
 * - The description says what the skill does and when to use it, in the third person,
 *   without vague words, at a useful length.
 * - The body stays small: at most 500 lines and 5,000 tokens (it is loaded whole).
 * - Every file the body mentions exists; every resource and script is mentioned somewhere.
 * - Helper modules of `scripts/` are told from commands (only commands are run and must be
 *   mentioned); a script that cannot start for a missing module is reported as such.
 */

import { FenceReader } from "./markdown_fences.ts";
import { globToRegExp } from "../glob.ts";
import { characterCount } from "../manifest/manifest_fields.ts";
import { codeLanguageOf, codeOnly, readCode } from "./flow/audit_code.ts";
import { importNameOf, pep723Dependencies, requirementName } from "../scripts/pep723.ts";
import { missingNodeImport, missingPythonModule } from "../scripts/script_hints.ts";

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
/**
 * A when: "when", "use it for", "if the user", "triggers", and a moment to use or load the skill
 * ("use immediately after a bug is found", "use this before any creative work", "invoke first
 * for any LangChain project", "only activate in an MSBuild context").
 */
const WHEN =
  /\b(?:when(?:ever)?|use (?:it |this (?:skill )?)?(?:for|to|if|on|with)|if (?:the )?(?:user|you|an? agent)|for (?:tasks|requests|questions|work)|triggers?|(?:use|invoke|load|activate|apply) (?:it |this (?:skill )?)?(?:(?:immediately|only|first|always) )?(?:before|after|once|during|while)|(?:use|invoke|load|activate) (?:it |this (?:skill )?)?(?:first|only) (?:for|in|on|if)|only activate (?:in|for|on|if))\b/i;
const VAGUE =
  /\b(?:helps?|helper|assists?|various|stuff|things|etc\b\.?|misc(?:ellaneous)?|utilit(?:y|ies)|and more|deals? with|general[- ]purpose)\b/i;
/** Where a description's when starts: "Use when", "Use this skill whenever", "Use it for". */
const USE_WHEN = /\bUse (?:this(?: skill)? |it )?(?:when(?:ever)?|for|if)\b/i;

/**
 * What and when, third person, no vague words, long enough to choose the skill by.
 * `whenToUse`: the skill's `when_to_use`, which only some agents read after the description.
 */
export function lintDescription(
  description: string,
  line: number,
  whenToUse?: string,
): LintFinding[] {
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
  // What the skill does, before its when ("Use when users ask to "critically review" my code"
  // quotes the user; "Use when you need help choosing a test" is the user's need).
  const what = description.split(USE_WHEN)[0]!;
  // Quoted requests ("deploy my app"), code and model ids (us.anthropic.*) are not the
  // description speaking.
  const own = what
    .replace(
      // A single-quoted phrase may hold an apostrophe ('I'm new to Expo, where do I start').
      /"[^"]*"|“[^”]*”|`[^`]*`|(?<![\w])'(?:[^']|'(?=\w))*'(?![\w])|\b[\w.-]*anthropic\.[\w.:-]*/g,
      " ",
    );
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
      whenToUse === undefined
        ? "'description' does not say when to use the skill (e.g. 'Use when the user asks for …')"
        : "'description' does not say when to use the skill: 'when_to_use' does, which Claude Code and skills read after it, but Codex and the spec's other agents read 'description' alone",
    );
  }
  const vague = VAGUE.exec(what);
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
/**
 * A resource folder's path, or a wildcard over its files (`references/agents-*-rules.md`),
 * which a placeholder writes too (`references/schema-<id>.json`, `assets/{name}.svg`).
 */
const RESOURCE_PATH =
  /(?<![\w./*-])((?:\.\/)?(?:scripts|references|assets|templates|examples|toolsets)\/(?:[\w./*-]|<[\w-]+>|\{[\w-]+\})*(?:[\w*-]|<[\w-]+>|\{[\w-]+\}))/g;
/** A placeholder of a resource path: each stands for any part of a name. */
const PLACEHOLDER = /<[\w-]+>|\{[\w-]+\}/g;

const TOLD_TO_USE =
  /\b(?:run|runs|execute|invoke|call|open|read|reads|see|load|consult|refer\s+to|check|follow|use|using|with|from|in)\b[^.;:!?]*$/i;

/**
 * Relative files a Markdown text points at: link targets, and resource-folder paths the
 * text tells the agent to open or run (outside code blocks).
 */
export function mentionedPaths(text: string, firstLine = 1): Mention[] {
  const out: Mention[] = [];
  const lines = text.split("\n");
  const fences = new FenceReader();
  lines.forEach((line, i) => {
    // A path in a code block is an example, not a file of this skill.
    if (fences.read(line)) return;
    // A link inside a code span is an example of Markdown (`![](...)`), not a link.
    for (const m of withoutCodeSpans(line).matchAll(LINK)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#") || target.startsWith("/")) {
        continue;
      }
      const path = withoutSkillRoot(safeDecode(target.replace(/[#?].*$/, "")));
      // Another placeholder (`{skill-name}/x.md`, `$PLUGIN_ROOT/x`) cannot be resolved here,
      // nor a bare lower-case word an example links to (`[text](link)`, `(relative-url)`).
      if (/[{}$<>%…]/.test(path) || /^[a-z]+(?:-[a-z]+)*$|^\.{3,}$/.test(path)) continue;
      if (path !== "") out.push({ path: normalizeRel(path), line: firstLine + i });
    }
    for (const m of line.matchAll(RESOURCE_PATH)) {
      // Outside a link, a path is this skill's file only where the agent is told to open
      // or run it ("run scripts/x.py", "see references/y.md"); "add a references/citations
      // section" is an example.
      const before = line.slice(Math.max(0, m.index! - 60), m.index!);
      if (!TOLD_TO_USE.test(before)) continue;
      if (inCodeString(line, m.index!)) continue;
      out.push({ path: normalizeRel(m[1]!.replace(PLACEHOLDER, "*")), line: firstLine + i });
    }
  });
  return out;
}

/** The line with each code span (`` `x` ``, ``` ``x`` ```) blanked, its length kept. */
function withoutCodeSpans(line: string): string {
  return line.includes("`")
    ? line.replace(/(`+)(?!`).*?[^`]\1(?!`)/g, (m) => " ".repeat(m.length))
    : line;
}

/**
 * Whether the path at `index` is a string literal of code quoted inline (an app's own
 * `'./assets/logo.png'` in an import statement between backticks): the user's project's file
 * in an example, not one of the skill's. A path the text quotes outside code, or puts in
 * backticks alone, is the skill's.
 */
function inCodeString(line: string, index: number): boolean {
  const ticks = (line.slice(0, index).match(/`/g) ?? []).length;
  const quote = line[index - 1];
  return ticks % 2 === 1 && (quote === "'" || quote === '"');
}

/**
 * Placeholders agents replace with the skill's own folder (`{baseDir}/references/x.md` in
 * Claude Code skills): the path after one is a file of this skill.
 */
const SKILL_ROOT = /^(?:\{baseDir\}|\$\{?CLAUDE_SKILL_DIR\}?|\$\{?SKILL_DIR\}?|\{SKILL_DIR\})\//;

function withoutSkillRoot(path: string): string {
  return path.replace(SKILL_ROOT, "");
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

/**
 * Mentions of files (or folders) that are not in the skill: an error, or a warning when
 * `outside` finds the path beside the skill (relative to a folder above it, such as the
 * plugin or repository it lives in), which an agent that installs the skill alone lacks.
 */
export function lintMissingFiles(
  mentions: readonly Mention[],
  files: readonly string[],
  outside: (path: string) => string | undefined = () => undefined,
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
    // A folder of dot-name the skill does not have is the user's project's (`.github/`, a
    // tool's `.dbt-wiki/` the skill writes): a link into it is to a file the agent makes.
    if (/^\.[^./]/.test(m.path) && !folders.has(m.path.split("/")[0]!)) continue;
    seen.add(m.path);
    if (m.path.includes("*")) {
      // A wildcard names the files it matches: a pattern that matches none is the error.
      const pattern = globPattern(m.path);
      if (files.some((f) => pattern.test(f)) || [...folders].some((f) => pattern.test(f))) continue;
      out.push({
        rule: "missing-file",
        level: "error",
        file: "SKILL.md",
        line: m.line,
        message: `the body mentions ${m.path}, which matches no file of the skill`,
      });
      continue;
    }
    const found = outside(m.path);
    if (found !== undefined) {
      out.push({
        rule: "file-outside-skill",
        level: "warning",
        file: "SKILL.md",
        line: m.line,
        message:
          `the body mentions ${m.path}, which is not in the skill but at ${found}: an agent that installs the skill alone will not have it`,
      });
      continue;
    }
    // The same file name elsewhere in the skill is most often the path mistyped
    // (`reference/x.md` for `references/x.md`, as K-Dense's neuropixels-analysis writes it).
    const name = m.path.split("/").pop()!;
    const alike = files.filter((f) => f.split("/").pop() === name);
    out.push({
      rule: "missing-file",
      level: "error",
      file: "SKILL.md",
      line: m.line,
      message: `the body mentions ${m.path}, which is not in the skill` +
        (alike.length === 1
          ? `; did you mean ${alike[0]}?`
          : WEB_HOST.test(m.path)
          ? `; a web address needs its https:// (a link without it is a file of the skill)`
          : ""),
    });
  }
  return out;
}

/** A path whose first folder is a host name (`docs.claude.com/en/docs/…`): a URL cut short. */
const WEB_HOST =
  /^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|ai|app|co|gov|edu)\//i;

/**
 * A wildcard path as a pattern (core/glob.ts: `*` is any characters, a folder's too, which
 * only matters to whether it matches some file). A lone capital between separators is a
 * placeholder as well: `module-N-*.md` (github/awesome-copilot's cli-mastery) is `module-*-*.md`.
 */
function globPattern(path: string): RegExp {
  return globToRegExp(path.replace(/(?<=[-_.])[A-Z](?=[-_.])/g, "*"));
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
  for (const path of files) {
    if (!/^(?:references|assets)\//.test(path)) continue;
    const name = path.split("/").pop()!;
    if (!mentionedIn(docs, path, [word(path), word(name)])) {
      out.push({
        rule: "unreferenced-file",
        level: "warning",
        file: path,
        message: `${path} is not mentioned by SKILL.md or any other document: link it or remove it`,
      });
    }
  }
  for (const script of scripts) {
    if (!scriptMentioned(docs, script)) {
      const path = `scripts/${script.file}`;
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

function mentionedIn(docs: readonly Doc[], path: string, needles: readonly RegExp[]): boolean {
  return docs.some((d) => d.path !== path && needles.some((n) => n.test(d.text)));
}

function word(text: string): RegExp {
  return new RegExp(`(?<![\\w.-])${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`);
}

/**
 * Whether a document of the skill names a script: by path, file name, the name `skills run`
 * takes, or as a Python module (`python -m scripts.aggregate`).
 */
export function scriptMentioned(
  docs: readonly Doc[],
  script: { file: string; name: string },
): boolean {
  const path = `scripts/${script.file}`;
  const dotted = `scripts.${script.name.replaceAll("/", ".")}`;
  return mentionedIn(docs, path, [word(path), word(script.file), word(script.name), word(dotted)]);
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

// --- Scripts and helper modules ---------------------------------------------------------

/** A file of `scripts/` with its text, as lint reads it. */
interface ScriptSource {
  /** Path inside `scripts/` (`build.py`, `office/helpers/utils.py`). */
  file: string;
  text: string;
}

const PY_MAIN_GUARD =
  /^if\s+(?:__name__\s*==\s*["']__main__["']|["']__main__["']\s*==\s*__name__)\s*:/m;
/** Reads the command line: whatever else it holds, the file is a program. */
const PY_READS_ARGV = /\bsys\.argv\b|\.parse_args\s*\(|\bArgumentParser\s*\(/;
/** Top-level statements a module is made of: imports, definitions, constants, guards. */
const PY_DEFINITION =
  /^(?:import\s|from\s|(?:async\s+)?def\s|class\s|@|try\s*:|except\b|finally\s*:|else\s*:|elif\s|if\s+(?:(?:typing\.)?TYPE_CHECKING|sys\.version_info|sys\.platform)\b|pass\b|__all__\b|[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_]\w*)*\s*(?::[^=\n]+)?=(?!=))/;
const JS_PROGRAM =
  /\bimport\.meta\.main\b|\brequire\.main\s*===?\s*module\b|\bprocess\.argv\b|\bDeno\.args\b/;

/**
 * The files of `scripts/` that are helper modules rather than commands, each with the reason:
 * a Python file another file of `scripts/` imports (`from utils import x`, `from .base
 * import y`, a package's `__init__.py` included), unless it has a `__main__` guard and the
 * documents name it (`mentioned`), or one without a guard whose top level only imports and
 * defines (functions, classes, constants); a JavaScript/TypeScript file that never reads its
 * command line and is imported by another script or exports what it defines; a shell file
 * another script sources. Lint neither runs them with --help nor asks SKILL.md to say when
 * to run them. `files` may hold files that are not scripts (`__init__.py`): they import too.
 */
export function helperModules(
  files: readonly ScriptSource[],
  mentioned: (file: string) => boolean = () => false,
): Map<string, string> {
  const read = files.map((s) => {
    const language = codeLanguageOf(s.file, s.text);
    const code = language === undefined ? s.text : codeOnly(s.text, readCode(language, s.text));
    const imports = language === "python" ? pythonImports(s.file, code) : new Set<string>();
    return { ...s, language, code, imports };
  });
  const out = new Map<string, string>();
  for (const script of read) {
    const others = read.filter((o) => o !== script);
    if (script.language === "python") {
      const guard = PY_MAIN_GUARD.test(script.code);
      const name = pythonModuleName(script.file);
      const importer = others.find((o) => o.imports.has(name));
      if (importer !== undefined && !(guard && mentioned(script.file))) {
        out.set(script.file, `imported by scripts/${importer.file}`);
      } else if (!guard && onlyDefinitions(script.text)) {
        out.set(script.file, "its top level only imports and defines");
      }
    } else if (script.language === "javascript") {
      if (JS_PROGRAM.test(script.code)) continue;
      const importer = others.find((o) =>
        o.language === "javascript" && jsImports(o.file, o.code).has(withoutExtension(script.file))
      );
      if (importer !== undefined) out.set(script.file, `imported by scripts/${importer.file}`);
      else if (/^export\s/m.test(script.code)) out.set(script.file, "it exports what it defines");
    } else if (script.language === "shell") {
      const base = script.file.split("/").pop()!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const named = new RegExp(`(?:^|[/"'\\s])${base}(?:["'\\s]|$)`);
      const importer = others.find((o) =>
        o.language === "shell" && [...o.code.matchAll(SOURCED)].some((m) => named.test(m[1]!))
      );
      if (importer !== undefined) out.set(script.file, `sourced by scripts/${importer.file}`);
    }
  }
  return out;
}

/** A file's dotted module name inside `scripts/`: `office/validators/base.py` → `office.validators.base`. */
function pythonModuleName(file: string): string {
  return withoutExtension(file).replace(/\/__init__$/, "").replaceAll("/", ".");
}

/**
 * Every module a Python file may import, as dotted names inside `scripts/`: a relative import
 * resolved against the file's package; an absolute one against the file's folder (first on
 * `sys.path` when it runs) and each folder above it, with a leading `scripts.` (run from the
 * skill's root) dropped. `from A import b` gives both `A` and `A.b`.
 */
function pythonImports(file: string, code: string): Set<string> {
  const out = new Set<string>();
  const folder = file.split("/").slice(0, -1);
  const absolute = (name: string) => {
    const bare = name.replace(/^scripts\./, "");
    for (let up = 0; up <= folder.length; up++) {
      out.add([...folder.slice(0, folder.length - up), bare].join("."));
    }
  };
  // Names span lines only inside parentheses.
  const from = /^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(?:\(([^)]*)\)|([^\n;]*))/gm;
  for (const m of code.matchAll(from)) {
    const dots = m[1]!.length;
    const names = (m[3] ?? m[4]!).split(/[,\n]/).map((n) => n.trim().split(/\s+as\s+/)[0]!.trim())
      .filter((n) => /^\w+$/.test(n));
    if (dots === 0) {
      absolute(m[2]!);
      for (const name of names) absolute(`${m[2]!}.${name}`);
      continue;
    }
    const base = [...folder.slice(0, Math.max(0, folder.length - (dots - 1))), m[2]!]
      .filter((p) => p !== "").join(".");
    if (base !== "") out.add(base);
    for (const name of names) out.add(base === "" ? name : `${base}.${name}`);
  }
  for (const m of code.matchAll(/^[ \t]*import[ \t]+([\w., \t]+)/gm)) {
    for (const name of m[1]!.split(",")) absolute(name.trim().split(/\s+as\s+/)[0]!.trim());
  }
  return out;
}

/** Files (inside `scripts/`, without extension) a JavaScript text imports relatively. */
function jsImports(importer: string, code: string): Set<string> {
  const dir = importer.split("/").slice(0, -1);
  const out = new Set<string>();
  const specifier =
    /(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;
  for (const m of code.matchAll(specifier)) {
    const parts = [...dir];
    for (const part of m[1]!.split("/")) {
      if (part === "..") parts.pop();
      else if (part !== ".") parts.push(part);
    }
    out.add(withoutExtension(parts.join("/")));
  }
  return out;
}

/** `source x.sh`, `. "$(dirname "$0")/x.sh"`: the rest of the command names the file. */
const SOURCED = /(?:^|[;&|(]|\s)(?:source|\.)[ \t]+([^\n;&|]+)/gm;

function withoutExtension(path: string): string {
  return path.replace(/\.(?:py|m?[jt]s|cjs|cts|jsx|tsx)$/, "");
}

/**
 * Whether a Python file's top level only imports and defines: every statement that starts
 * at column 0 (outside brackets, strings and continued lines) is an import, a definition, a
 * constant or a guard, and nothing reads the command line.
 */
function onlyDefinitions(text: string): boolean {
  const reading = readCode("python", text);
  // Strings and comments blanked, so their contents cannot look like statements.
  let blank = "";
  let last = 0;
  for (const [start, end] of [...reading.inert, ...reading.strings].sort((a, b) => a[0] - b[0])) {
    blank += text.slice(last, start) + text.slice(start, end).replace(/[^\n]/g, " ");
    last = end;
  }
  blank += text.slice(last);
  let depth = 0;
  let continued = false;
  let statements = 0;
  for (const line of blank.split("\n")) {
    const starts = depth === 0 && !continued && /^\S/.test(line);
    if (starts) {
      statements++;
      if (PY_READS_ARGV.test(line) || !PY_DEFINITION.test(line)) return false;
    }
    for (const c of line) {
      if (c === "(" || c === "[" || c === "{") depth++;
      else if ((c === ")" || c === "]" || c === "}") && depth > 0) depth--;
    }
    continued = /\\\s*$/.test(line);
  }
  return statements > 0;
}

/** The module a failed script's stderr says is missing (Python, Node.js or Deno), if any. */
export function missingModule(stderr: string): string | undefined {
  return missingPythonModule(stderr) ??
    missingNodeImport(stderr) ??
    /Module not found "([^"]+)"/.exec(stderr)?.[1] ??
    /Relative import path "([^"]+)" not prefixed/.exec(stderr)?.[1];
}

/**
 * A script that could not start because a module is missing here: said as such (not as a
 * script that fails to print --help), with what the author should do when its PEP 723 block
 * does not declare the module.
 */
export function missingModuleFinding(
  script: { name: string; file: string; text: string },
  module: string,
): LintFinding {
  const declared = /\.py$/.test(script.file) ? pep723Dependencies(script.text) : "unknown";
  const names = Array.isArray(declared)
    ? declared.map(requirementName).filter((n) => n !== undefined).map((n) => importNameOf(n!))
    : [];
  const advice = declared === "unknown"
    ? "install it, or declare it where the script's runner reads dependencies"
    : names.includes(module)
    ? "it is declared in the script's PEP 723 block: install uv so `uv run` provides it"
    : "declare it in the script's PEP 723 `# /// script` dependencies";
  return {
    rule: "script-missing-module",
    level: "warning",
    file: `scripts/${script.file}`,
    message: `\`${script.name}\` was not run: missing module ${module} (${advice})`,
  };
}
