/**
 * Tokens of a Python or JavaScript/TypeScript script for the data-flow analysis: names,
 * string literals with their values (an f-string's or template literal's `{…}`/`${…}` holes
 * tokenized in turn), numbers and punctuation; comments and docstrings are dropped (the
 * tokenizer of audit_code.ts (beside this file) says where they are), and the tokens are cut into statements.
 * Not a parser: just enough shape to see assignments, calls and their arguments.
 */

import { pythonStringEnd, quotedEnd, regexAllowed, regexEnd, type Span } from "./audit_code.ts";

export type Language = "python" | "javascript";

export interface Token {
  kind: "name" | "string" | "number" | "op";
  /** A name or operator as written; a string's value (holes shown as `{}`). */
  text: string;
  /** Offset in the script's text. */
  at: number;
  /** An f-string's or template literal's holes, each tokenized. */
  holes?: Token[][];
  /** A string whose source spells four characters or more in a row by code (`"\x63\x6f…"`). */
  coded?: true;
}

/**
 * The text of an operator or bracket, "" for any other token: a string literal's value can be
 * `"="`, `","` or `"("` (`if "=" not in line:`, `",".join(…)`, `print(")")`), which is no
 * assignment, no argument's end and no bracket. Every scan for structure reads tokens through
 * this.
 */
export function opText(t: Token): string {
  return t.kind === "op" ? t.text : "";
}

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c >= 0x80;
}

/*
 * The runs of characters a token is made of, scanned by the regular-expression engine rather
 * than a character at a time in JavaScript (the audit runs once per process, before the JIT
 * has warmed up, where a per-character loop is the tokenizer's whole cost). Each is sticky
 * (`y`): it matches at `lastIndex` or not at all, and may match nothing.
 */
/** What follows a name's first character: isNameStart's characters and digits (UTF-16 units). */
const NAME_REST = /[A-Za-z0-9_$\u0080-\uffff]*/y;
/** What follows a number's first digit: word characters and dots (`1_000`, `0x1F`, `1.5e3`). */
const NUMBER_REST = /[\w.]*/y;
/** Blanks: spaces and tabs, then at most one carriage return or form feed. */
const BLANKS = /[ \t]*[\r\f]?/y;

/** Where the run of `sticky` starting at `from` ends. */
function stickyEnd(sticky: RegExp, text: string, from: number): number {
  sticky.lastIndex = from;
  sticky.test(text);
  return sticky.lastIndex;
}
const TWO_CHAR_OPS = new Set([
  "**",
  "=>",
  "==",
  "!=",
  "<=",
  ">=",
  "+=",
  "?.",
  "??",
  "||",
  "&&",
  "//",
]);

/** Tokens of `text` (a whole script or a hole's code), comments and docstrings left out. */
export function tokenize(language: Language, text: string, inert: readonly Span[] = []): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  let span = 0; // the next inert span that can still start at or after `i`
  while (i < n) {
    const c = text[i]!;
    while (span < inert.length && inert[span]![1] <= i) span++;
    if (span < inert.length && inert[span]![0] <= i) {
      i = inert[span]![1];
      continue;
    }
    if (c === "\n") {
      out.push({ kind: "op", text: "\n", at: i++ });
    } else if (c === " " || c === "\t" || c === "\r" || c === "\f") {
      i = stickyEnd(BLANKS, text, i);
    } else if (c === "\\" && text[i + 1] === "\n") i += 2;
    else if (c === "#" && language === "python") i = lineEndOf(text, i);
    else if (c === "/" && language === "javascript" && text[i + 1] === "/") i = lineEndOf(text, i);
    else if (c === "/" && language === "javascript" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close === -1 ? n : close + 2;
    } else if (c === '"' || c === "'" || (c === "`" && language === "javascript")) {
      i = readString(language, text, i, i, "", out);
    } else if (isNameStart(text.charCodeAt(i))) {
      const j = stickyEnd(NAME_REST, text, i + 1);
      const word = text.slice(i, j);
      if (
        language === "python" && j < n && (text[j] === '"' || text[j] === "'") &&
        /^[rbuf]{1,2}$/i.test(word)
      ) {
        i = readString(language, text, j, i, word.toLowerCase(), out);
      } else {
        out.push({ kind: "name", text: word, at: i });
        i = j;
      }
    } else if (c >= "0" && c <= "9") {
      const j = stickyEnd(NUMBER_REST, text, i + 1);
      out.push({ kind: "number", text: text.slice(i, j), at: i });
      i = j;
    } else if (c === "/" && language === "javascript" && regexAllowed(text, i)) {
      const end = regexEnd(text, i);
      out.push({ kind: "string", text: text.slice(i, end), at: i });
      i = end;
    } else {
      const op = text.startsWith("...", i)
        ? "..."
        : TWO_CHAR_OPS.has(c + (text[i + 1] ?? ""))
        ? c + text[i + 1]
        : c;
      out.push({ kind: "op", text: op, at: i });
      i += op.length;
    }
  }
  return out;
}

function lineEndOf(text: string, i: number): number {
  const end = text.indexOf("\n", i);
  return end === -1 ? text.length : end;
}

/** Reads the string literal whose quote is at `q` (prefix starting at `start`). */
function readString(
  language: Language,
  text: string,
  q: number,
  start: number,
  prefix: string,
  out: Token[],
): number {
  const quote = text[q]!;
  if (language === "javascript" && quote === "`") return readTemplate(text, q, out);
  const end = language === "python" ? pythonStringEnd(text, q) : quotedEnd(text, q, quote);
  const triple = language === "python" && text.startsWith(quote.repeat(3), q);
  const open = triple ? 3 : 1;
  const body = text.slice(q + open, Math.max(q + open, end - open));
  const raw = prefix.includes("r");
  if (prefix.includes("f")) {
    const holes: Token[][] = [];
    let value = "";
    for (let k = 0; k < body.length; k++) {
      const ch = body[k]!;
      if (ch === "{" && body[k + 1] === "{") {
        value += "{";
        k++;
      } else if (ch === "{") {
        const close = matchingBrace(body, k);
        const expr = body.slice(k + 1, close).replace(/(?:![rsa])?(?::[^{}]*)?$/, "");
        holes.push(tokenize("python", expr).map((t) => ({ ...t, at: t.at + q + open + k + 1 })));
        value += "{}";
        k = close;
      } else value += ch;
    }
    out.push({
      kind: "string",
      text: raw ? value : unescape(value),
      at: start,
      holes,
      ...coded(raw ? "" : value),
    });
  } else {
    out.push({
      kind: "string",
      text: raw ? body : unescape(body),
      at: start,
      ...coded(raw ? "" : body),
    });
  }
  return end;
}

function readTemplate(text: string, q: number, out: Token[]): number {
  const holes: Token[][] = [];
  let value = "";
  let k = q + 1;
  while (k < text.length && text[k] !== "`") {
    if (text[k] === "\\") {
      value += text.slice(k, k + 2);
      k += 2;
    } else if (text[k] === "$" && text[k + 1] === "{") {
      const close = matchingBrace(text, k + 1);
      holes.push(
        tokenize("javascript", text.slice(k + 2, close)).map((t) => ({
          ...t,
          at: t.at + k + 2,
        })),
      );
      value += "{}";
      k = close + 1;
    } else value += text[k++];
  }
  out.push({ kind: "string", text: unescape(value), at: q, holes, ...coded(value) });
  return Math.min(text.length, k + 1);
}

/** The index of the `}` closing the `{` at `open` (strings inside skipped roughly). */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let k = open; k < text.length; k++) {
    const c = text[k];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return k;
    else if (c === '"' || c === "'") {
      const close = text.indexOf(c, k + 1);
      if (close !== -1) k = close;
    }
  }
  return text.length;
}

/** Four characters or more in a row spelt by code in a string's source. */
const CODED = /(?:\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}){4}/;

function coded(source: string): { coded?: true } {
  return CODED.test(source) ? { coded: true } : {};
}

function unescape(value: string): string {
  return value.replace(
    /\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|n|t|r|\\|'|"|`|\n)/g,
    (_m, e: string) => {
      if (e[0] === "x" || e[0] === "u") return String.fromCharCode(parseInt(e.slice(1), 16));
      return e === "n" ? "\n" : e === "t" ? "\t" : e === "r" ? "\r" : e === "\n" ? "" : e;
    },
  );
}

/** Tokens past which a statement ends at the next line, brackets open or not. */
const MAX_STATEMENT = 400;

const PY_BLOCK = /^(?:with|for|async|if|elif|else|while|try|except|finally|def|class)$/;
const JS_BLOCK_BEFORE = new Set([")", "=>", "else", "try", "do", "finally", "{", "}", ";"]);

/** JavaScript statements a `{` block follows (`async send(v)` of a class's method, `if (x)`). */
export const BLOCK_HEADS = new WeakSet<readonly Token[]>();

/**
 * The statements of a token list: Python's lines (brackets joined, a block header's `:`
 * ending its statement), JavaScript's `;`, lines and block braces (object literals kept).
 */
export function statements(language: Language, tokens: readonly Token[]): Token[][] {
  const out: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  const end = () => {
    if (current.length > 0) out.push(current);
    current = [];
  };
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind !== "op") {
      current.push(t);
      continue;
    }
    const s = t.text;
    if (s === "\n") {
      // A bracket left open by something this lexer misread must not swallow the file.
      if (depth > 0 && current.length < MAX_STATEMENT) continue;
      depth = 0;
      if (language === "javascript" && continues(current.at(-1), tokens[k + 1])) continue;
      end();
    } else if (s === ";" && depth === 0) end();
    else if (
      s === ":" && depth === 0 && language === "python" && PY_BLOCK.test(current[0]?.text ?? "")
    ) {
      current.push(t);
      end();
    } else if (s === "{" && language === "javascript" && depth === 0 && isBlock(current)) {
      if (current.length > 0) BLOCK_HEADS.add(current);
      end();
    } else if (s === "}" && language === "javascript" && depth === 0) end();
    else {
      if (s === "(" || s === "[" || s === "{") depth++;
      else if ((s === ")" || s === "]" || s === "}") && depth > 0) depth--;
      current.push(t);
    }
  }
  end();
  return out;
}

function isBlock(current: readonly Token[]): boolean {
  const last = current.at(-1);
  return last === undefined || JS_BLOCK_BEFORE.has(last.text) ||
    (current[0]?.text === "class" || current[0]?.text === "function");
}

/** A JavaScript line that goes on: it ends on an operator, or the next begins with one. */
function continues(last: Token | undefined, next: Token | undefined): boolean {
  if (last === undefined) return false;
  if (last.kind === "op" && /^(?:[=+\-*/%&|^!<>?:,.(\[]|=>|\?\?|\|\||&&)$/.test(last.text)) {
    return true;
  }
  return next !== undefined && next.kind === "op" &&
    /^(?:\.|\?\.|\?|:|\+|\|\||&&|\?\?)$/.test(next.text);
}
