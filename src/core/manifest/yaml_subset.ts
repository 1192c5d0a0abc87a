/**
 * A tiny parser for the plain YAML nearly every SKILL.md front matter uses, so start-up
 * does not have to import js-yaml (~7 ms). The rule: decline when unsure; js-yaml decides.
 * `parseYamlSubset()` returns exactly what `yaml.load(text, { schema: CORE_SCHEMA,
 * json: false })` returns, or `undefined` for anything outside the subset; a differential
 * test against js-yaml (tests/core/manifest/yaml_subset_test.ts) holds it to that.
 *
 * The subset: a block mapping at column 0 whose values are one-line scalars, nested block
 * mappings (`key:` then deeper lines) or block sequences of one-line scalars; blank lines
 * and full-line comments. Scalars: plain ones that can only be strings, '' single-quoted,
 * and double-quoted without backslashes. Everything else (flow, block scalars, anchors,
 * tags, multi-line scalars, null, numbers, booleans, duplicate keys) is declined.
 */

interface Line {
  indent: number;
  /** The line without its indentation and trailing spaces. */
  text: string;
}

// js-yaml's own non-printable pattern, plus what we never accept: tab, CR, BOM, NEL, LS, PS.
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\t\r\uFEFF\u0085\u2028\u2029]|[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;
// Keys js-yaml would resolve to null/booleans (and so rename), or store specially.
const ODD_KEY = /^(?:null|true|false|__proto__)$/i;
// Plain scalars starting with an indicator, a digit, a sign, `.` or `~` may be something
// other than a string (or not a plain scalar at all).
const ODD_START = /^[-?:,[\]{}#&*!|>'"%@`0-9+.~]/;
// Digits with two or more dots (`1.0.0`) are neither int nor float in the core schema.
const VERSION_LIKE = /^[0-9][^.]*\.[^.]*\./;
// A mapping indicator, a comment, a flow character, or a trailing `:` inside the value.
const ODD_INSIDE = /: | #|[[\]{}]|:$/;
const NOT_STRING = /^(?:null|true|false)$/i;
const MAX_DEPTH = 16;

/** Parses `text` if it is in the subset, else returns `undefined` (use js-yaml then). */
export function parseYamlSubset(text: string): Record<string, unknown> | undefined {
  if (UNSAFE.test(text)) return undefined;
  const lines: Line[] = [];
  for (const raw of text.split("\n")) {
    const text = raw.replace(/ +$/, "");
    const body = text.replace(/^ +/, "");
    if (body !== "" && body[0] !== "#") {
      lines.push({ indent: text.length - body.length, text: body });
    }
  }
  // Each block stops at the first line not at its own indentation; a line left over
  // at the end (a continuation, a stray indentation) makes the whole text decline.
  let pos = 0;

  const scalar = (s: string): string | undefined => {
    if (s[0] === "'") return /^'((?:[^']|'')*)'$/.exec(s)?.[1]?.replaceAll("''", "'");
    if (s[0] === '"') return /^"([^"\\]*)"$/.exec(s)?.[1];
    if (s === "" || ODD_INSIDE.test(s) || NOT_STRING.test(s)) return undefined;
    return ODD_START.test(s) && !(/^[0-9]/.test(s) && VERSION_LIKE.test(s)) ? undefined : s;
  };

  const sequence = (indent: number): unknown[] | undefined => {
    const out: unknown[] = [];
    for (let line = lines[pos]; line?.indent === indent && line.text.startsWith("- ");) {
      const value = scalar(line.text.slice(2).replace(/^ +/, ""));
      if (value === undefined) return undefined;
      out.push(value);
      line = lines[++pos];
    }
    return out;
  };

  const mapping = (indent: number, depth: number): Record<string, unknown> | undefined => {
    if (depth > MAX_DEPTH) return undefined;
    const out: Record<string, unknown> = {};
    for (let line = lines[pos]; line?.indent === indent; line = lines[pos]) {
      pos++;
      const colon = line.text.indexOf(":");
      const key = line.text.slice(0, colon);
      const rest = line.text.slice(colon + 1);
      if (colon < 0 || !KEY.test(key) || ODD_KEY.test(key) || Object.hasOwn(out, key)) {
        return undefined;
      }
      let value: unknown;
      if (rest !== "") {
        value = rest[0] === " " ? scalar(rest.replace(/^ +/, "")) : undefined;
      } else {
        // `key:` owns the following deeper block, or a `- ` list at its own indentation.
        const child = lines[pos];
        if (child?.text.startsWith("- ") && child.indent >= indent) value = sequence(child.indent);
        else if (child && child.indent > indent) value = mapping(child.indent, depth + 1);
      }
      if (value === undefined) return undefined;
      out[key] = value;
    }
    return out;
  };

  if (lines[0]?.indent !== 0) return undefined;
  const result = mapping(0, 0);
  return pos === lines.length ? result : undefined;
}
