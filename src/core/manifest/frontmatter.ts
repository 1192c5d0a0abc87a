/**
 * Splitting and decoding `SKILL.md`: UTF-8 without BOM, YAML front matter between
 * `---` lines (line based, so `---` inside a value is safe), then a Markdown body.
 * YAML is loaded with bounds so alias bombs and deep nesting fail fast.
 *
 * Plain front matter goes through the small subset parser; js-yaml is imported only for
 * what that declines, which keeps it (about 7 ms of start-up) off `skills add` of an
 * ordinary skill. Under `deno run` its specifier is computed so that Deno does not resolve
 * the npm package at start-up; the bundle and the binary register a literal import
 * (`useYamlLoader`, from src/binary.ts) so that their bundlers embed it.
 */

// @ts-types="@types/js-yaml"
import type jsYaml from "js-yaml";

import { MAX_FRONT_MATTER_BYTES } from "./limits.ts";
import { parseYamlSubset } from "./yaml_subset.ts";

/** Upper bound on YAML nodes visited (aliases count every time they are used). */
const MAX_YAML_NODES = 10_000;
const MAX_YAML_DEPTH = 64;

export class FrontMatterError extends Error {
  /** 1-based line in SKILL.md, when known. */
  readonly line: number | undefined;
  /** The file has no front matter at all: it does not open with `---`. */
  readonly absent: boolean;
  /** A plain value holding `: ` made it (unquotedColon): its key and 0-based YAML line. */
  unquotedColon?: { key: string; yamlLine: number };
  constructor(message: string, line?: number, absent = false) {
    super(message);
    this.name = "FrontMatterError";
    this.line = line;
    this.absent = absent;
  }
}

interface SplitSkillMd {
  /** The YAML text between the fences. */
  yaml: string;
  /** The Markdown after the closing fence. */
  body: string;
  /** 1-based SKILL.md line where the YAML text starts (always 2). */
  yamlLine: number;
  /** 1-based SKILL.md line where the body starts. */
  bodyLine: number;
}

const BOM = [0xef, 0xbb, 0xbf];

/** Decodes SKILL.md bytes, rejecting a BOM and invalid UTF-8. */
export function decodeSkillMd(bytes: Uint8Array): string {
  if (bytes.length >= 3 && BOM.every((b, i) => bytes[i] === b)) {
    throw new FrontMatterError(
      "SKILL.md starts with a byte order mark (BOM); save it as UTF-8 without BOM",
      1,
    );
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const line = lineOfInvalidByte(bytes);
    throw new FrontMatterError(
      `SKILL.md is not valid UTF-8 (first bad byte on line ${line})`,
      line,
    );
  }
}

function lineOfInvalidByte(bytes: Uint8Array): number {
  // Decode progressively longer prefixes of lines until one fails.
  let line = 1;
  let start = 0;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        decoder.decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
      line++;
      start = i + 1;
    }
  }
  return line;
}

function isFence(line: string): boolean {
  return line.replace(/[ \t\r]+$/, "") === "---";
}

/**
 * Splits SKILL.md text into YAML and body. `complete` says whether `text` is the whole
 * file (false when only a bounded prefix was read), which changes the error for a
 * missing closing fence.
 */
export function splitSkillMd(text: string, complete = true): SplitSkillMd {
  const lines = text.split("\n");
  if (lines.length === 0 || !isFence(lines[0] ?? "")) {
    throw new FrontMatterError(
      "SKILL.md must start with YAML front matter ('---' on line 1)",
      1,
      true,
    );
  }
  for (let i = 1; i < lines.length; i++) {
    if (isFence(lines[i] ?? "")) {
      return {
        yaml: lines.slice(1, i).join("\n"),
        body: lines.slice(i + 1).join("\n"),
        yamlLine: 2,
        bodyLine: i + 2,
      };
    }
  }
  if (!complete) {
    throw new FrontMatterError(
      `SKILL.md front matter is larger than ${
        MAX_FRONT_MATTER_BYTES / 1024
      } KiB or not closed by a '---' line`,
      1,
    );
  }
  throw new FrontMatterError("SKILL.md front matter is not closed by a '---' line", 1);
}

type JsYaml = typeof jsYaml;
type YamlLoader = () => Promise<{ default: JsYaml }>;

let loadYamlModule: YamlLoader = () => {
  const specifier = "js-" + "yaml";
  return import(specifier);
};
let fullParser: JsYaml | undefined;

/** Makes js-yaml load through this (literal) import; called by the artifact entry. */
export function useYamlLoader(loader: YamlLoader): void {
  loadYamlModule = loader;
}

interface YamlLoadOptions {
  /** Every scalar as the text it was written as (YAML's failsafe schema): `1.0` stays "1.0". */
  scalarsAsText?: boolean;
}

/** Loads the YAML text; `firstLine` maps YAML line numbers back to SKILL.md lines. */
export async function loadFrontMatterYaml(
  text: string,
  firstLine: number,
  options: YamlLoadOptions = {},
): Promise<unknown> {
  let value: unknown = options.scalarsAsText ? undefined : parseYamlSubset(text);
  if (value === undefined) value = await loadWithJsYaml(text, firstLine, options);
  checkBounds(value);
  return value;
}

async function loadWithJsYaml(
  text: string,
  firstLine: number,
  options: YamlLoadOptions,
): Promise<unknown> {
  const yaml = fullParser ??= (await loadYamlModule()).default;
  try {
    const schema = options.scalarsAsText ? yaml.FAILSAFE_SCHEMA : yaml.CORE_SCHEMA;
    return yaml.load(text, { schema, json: false });
  } catch (error) {
    if (error instanceof yaml.YAMLException) {
      let line = error.mark ? error.mark.line : undefined;
      // js-yaml notices an unclosed `{…` or `[…` only where the next line starts (or at the
      // end): point at the line that opened the collection instead.
      if (line !== undefined && error.mark?.column === 0 && /flow collection/.test(error.reason)) {
        line = unclosedFlowStart(text, line) ?? line;
      }
      const colon = line === undefined ? undefined : unquotedColon(text, line);
      if (colon !== undefined) {
        const refused = new FrontMatterError(
          `invalid YAML: ${error.reason}: the value of '${colon.key}' holds ': ' unquoted — ` +
            quoteFix(colon.key),
          colon.line + firstLine,
        );
        refused.unquotedColon = { key: colon.key, yamlLine: colon.line };
        throw refused;
      }
      throw new FrontMatterError(
        `invalid YAML: ${error.reason}`,
        line === undefined ? undefined : line + firstLine,
      );
    }
    if (error instanceof RangeError) {
      throw new FrontMatterError("invalid YAML: nesting is too deep", firstLine);
    }
    throw error;
  }
}

/**
 * The most common broken front matter in published skills (Gamaroff's develop-story): a plain
 * value holding `: ` (`description: Automates the lifecycle: branch → review`), which YAML reads
 * as a second key. js-yaml reports it on that line or the next: the key and line, when the
 * reported line or the one before it is such a `key: value`.
 */
function unquotedColon(text: string, reported: number): { key: string; line: number } | undefined {
  const lines = text.split("\n");
  for (const at of [reported, reported - 1]) {
    const match = /^[ \t]*([A-Za-z_][\w.-]*):[ \t]+([^'"|>{\[&*!#\s][^#]*?):[ \t]/.exec(
      lines[at] ?? "",
    );
    if (match !== null) return { key: match[1]!, line: at };
  }
  return undefined;
}

/** How to write a value holding `: ` so that every YAML parser reads it. */
export function quoteFix(key: string): string {
  return `put it in quotes ("…") or write it as a block (${key}: >)`;
}

/**
 * The YAML with line `at` (a `key: value` whose plain value holds `: `) written as the one
 * string its author meant: `key: "value"` (JSON's escapes are YAML's), a trailing comment
 * dropped. A plain value goes on over the lines indented deeper than its key, folded with
 * spaces (joeblackwaslike's descriptions run over nine): those lines are emptied, so the line
 * count is kept.
 */
export function quoteValueAt(yaml: string, at: number): string {
  const lines = yaml.split("\n");
  const match = /^(([ \t]*)[A-Za-z_][\w.-]*:)[ \t]+(.*)$/.exec(lines[at] ?? "");
  if (match === null) return yaml;
  const plain = (text: string) => text.replace(/[ \t]+#.*$/, "").trim();
  const parts = [plain(match[3]!)];
  let next = at + 1;
  for (; next < lines.length; next++) {
    const line = lines[next]!;
    const indent = /^[ \t]*/.exec(line)![0].length;
    if (line.trim() === "" || indent <= match[2]!.length || line.trim().startsWith("#")) break;
    parts.push(plain(line));
    lines[next] = "";
  }
  lines[at] = `${match[1]} ${JSON.stringify(parts.join(" "))}`;
  return lines.join("\n");
}

/**
 * The 0-based line where a flow collection still open before line `upto` began: brackets
 * are counted outside quoted strings and comments. Undefined when none is open.
 */
function unclosedFlowStart(text: string, upto: number): number | undefined {
  const lines = text.split("\n");
  let depth = 0;
  let opened: number | undefined;
  for (let i = 0; i < Math.min(upto, lines.length); i++) {
    let quote: string | undefined;
    for (const ch of lines[i]!) {
      if (quote !== undefined) {
        if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'") {
        quote = ch;
      } else if (ch === "#") {
        break;
      } else if (ch === "{" || ch === "[") {
        if (depth++ === 0) opened = i;
      } else if ((ch === "}" || ch === "]") && depth > 0) {
        depth--;
      }
    }
  }
  return depth > 0 ? opened : undefined;
}

function checkBounds(root: unknown): void {
  let visited = 0;
  const visit = (value: unknown, depth: number): void => {
    if (++visited > MAX_YAML_NODES) {
      throw new FrontMatterError(
        `front matter is too large once YAML aliases are expanded (more than ${MAX_YAML_NODES} nodes)`,
      );
    }
    if (depth > MAX_YAML_DEPTH) {
      throw new FrontMatterError(`front matter is nested deeper than ${MAX_YAML_DEPTH} levels`);
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (value !== null && typeof value === "object") {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(root, 0);
}

/** 1-based SKILL.md line of a top-level key, for error messages. */
export function topLevelKeyLine(yamlText: string, key: string, firstLine: number): number {
  const lines = yamlText.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (
      line.startsWith(`${key}:`) || line.startsWith(`"${key}":`) || line.startsWith(`'${key}':`)
    ) {
      return i + firstLine;
    }
  }
  return firstLine;
}
