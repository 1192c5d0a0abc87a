/**
 * Reading a script as code, cheaply: a small tokenizer per language (Python, JavaScript and
 * TypeScript, shell) that tells comments and documentation apart from code and string
 * literals. The audit uses it so that a comment describing `curl … | sh` is not the command,
 * and lint uses it to tell a helper module from a command-line script.
 *
 * What is tokenized: comments (`#`, `//`, `/* … *\/`), string literals with their escapes and
 * prefixes (Python's `r`/`b`/`f`, triple quotes; JavaScript's template literals with
 * `${…}` nesting and regular-expression literals; shell quoting, `$(…)` and heredocs), and
 * Python docstrings (a string literal standing alone as a statement, which Python evaluates
 * and discards). Nothing else is parsed: the calls that matter are still found by the
 * patterns of audit_rules.ts, on the code this leaves.
 */

type CodeLanguage = "python" | "javascript" | "shell";

/** A span `[start, end)` of a file's text. */
export type Span = readonly [number, number];

interface CodeReading {
  language: CodeLanguage;
  /** Comments and (Python) docstrings: text nothing executes. Sorted, disjoint. */
  inert: Span[];
  /** Python's other string literals (what `codeOnly` keeps as code); empty for the others. */
  strings: Span[];
}

const BY_EXTENSION: Record<string, CodeLanguage> = {
  py: "python",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  ts: "javascript",
  mts: "javascript",
  cts: "javascript",
  jsx: "javascript",
  tsx: "javascript",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
};

/** The language of a script by its extension, else by its `#!` line; undefined otherwise. */
export function codeLanguageOf(path: string, text: string): CodeLanguage | undefined {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  const ext = dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
  if (ext in BY_EXTENSION) return BY_EXTENSION[ext];
  if (!text.startsWith("#!")) return undefined;
  const first = text.slice(0, text.indexOf("\n") === -1 ? text.length : text.indexOf("\n"));
  if (/\bpython[0-9.]*\b/.test(first)) return "python";
  if (/\b(?:node|nodejs|deno|bun|tsx|ts-node)\b/.test(first)) return "javascript";
  if (/\b(?:ba|z|da|k)?sh\b/.test(first)) return "shell";
  return undefined;
}

/** Tokenizes `text` as `language`. Linear in the text; never throws on malformed code. */
export function readCode(language: CodeLanguage, text: string): CodeReading {
  const strings: Span[] = [];
  const inert = language === "python"
    ? pythonInert(text, strings)
    : language === "javascript"
    ? javascriptInert(text)
    : shellInert(text);
  return { language, inert, strings };
}

/** Whether `index` falls inside one of the sorted, disjoint `spans`. */
export function inSpans(spans: readonly Span[], index: number): boolean {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [start, end] = spans[mid]!;
    if (index < start) hi = mid - 1;
    else if (index >= end) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The text with every inert span blanked (newlines kept): code and strings only. */
export function codeOnly(text: string, reading: CodeReading): string {
  let out = "";
  let last = 0;
  for (const [start, end] of reading.inert) {
    out += text.slice(last, start) + text.slice(start, end).replace(/[^\n]/g, " ");
    last = end;
  }
  return out + text.slice(last);
}

// --- Python ---------------------------------------------------------------------------

function pythonInert(text: string, strings: Span[]): Span[] {
  const out: Span[] = [];
  let depth = 0; // brackets: inside them a newline does not end the statement
  /** Whether only whitespace stands between the last statement start and here. */
  let statementStart = true;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "#") {
      const end = lineEnd(text, i);
      out.push([i, end]);
      i = end;
      continue;
    }
    if (c === "\n") {
      if (depth === 0 && text[i - 1] !== "\\") statementStart = true;
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    if (c === ";" && depth === 0) {
      statementStart = true;
      i++;
      continue;
    }
    const literal = pythonString(text, i);
    if (literal !== undefined) {
      // A string alone as a statement (nothing after it on its line but a comment): a
      // docstring or a bare string, evaluated and thrown away.
      if (statementStart && depth === 0) {
        const rest = text.slice(literal.end, lineEnd(text, literal.end));
        if (/^[ \t\r]*(?:#.*)?$/.test(rest)) out.push([i, literal.end]);
        else strings.push([i, literal.end]);
      } else strings.push([i, literal.end]);
      statementStart = false;
      i = literal.end;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if ((c === ")" || c === "]" || c === "}") && depth > 0) depth--;
    // A block's colon starts a statement on the same line (`def f(): "doc"` is rare; the
    // docstring normally follows on the next line, which the newline handles).
    statementStart = false;
    // Skip a whole identifier or number at once (a prefix letter is not a string start).
    if (/[\w]/.test(c)) {
      while (i < n && /[\w]/.test(text[i]!)) i++;
      continue;
    }
    i++;
  }
  return out;
}

/** A Python string literal starting at `i` (with its prefix), or undefined. */
function pythonString(text: string, i: number): { end: number } | undefined {
  let j = i;
  // Up to two prefix letters (r, b, u, f, rb, br, fr, rf), not part of a longer name.
  if (i > 0 && /\w/.test(text[i - 1]!)) return undefined;
  while (j < i + 2 && /[rRbBuUfF]/.test(text[j] ?? "")) j++;
  const quote = text[j];
  if (quote !== '"' && quote !== "'") return undefined;
  const triple = text.startsWith(quote.repeat(3), j);
  let k = j + (triple ? 3 : 1);
  const n = text.length;
  while (k < n) {
    const c = text[k]!;
    if (c === "\\") {
      k += 2;
      continue;
    }
    if (triple) {
      if (text.startsWith(quote.repeat(3), k)) return { end: k + 3 };
    } else {
      if (c === quote) return { end: k + 1 };
      if (c === "\n") return { end: k }; // unterminated: ends with the line
    }
    k++;
  }
  return { end: n };
}

function lineEnd(text: string, i: number): number {
  const end = text.indexOf("\n", i);
  return end === -1 ? text.length : end;
}

// --- JavaScript and TypeScript ---------------------------------------------------------

/** After these a `/` starts a regular expression, not a division. */
const REGEX_AFTER = new Set("(,=:[!&|?{};+-*%<>~^".split(""));
const REGEX_AFTER_WORD =
  /\b(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/;

function javascriptInert(text: string): Span[] {
  const out: Span[] = [];
  const n = text.length;
  /** Brace depth of each open template literal's `${`, innermost last. */
  const templates: number[] = [];
  let braces = 0;
  let i = 0;
  /** The last significant character outside comments (decides whether `/` is a regex). */
  let previous = "";
  let previousWordEnd = -1;
  while (i < n) {
    const c = text[i]!;
    if (c === "/" && text[i + 1] === "/") {
      const end = lineEnd(text, i);
      out.push([i, end]);
      i = end;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      const end = close === -1 ? n : close + 2;
      out.push([i, end]);
      i = end;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      i = quotedEnd(text, i, c);
      previous = c;
      continue;
    }
    if (c === "`" || (c === "}" && templates.length > 0 && templates.at(-1) === braces)) {
      // A template literal's text, from its start or from the end of a `${…}`.
      if (c === "}") templates.pop();
      let k = i + 1;
      while (k < n && text[k] !== "`") {
        if (text[k] === "\\") k++;
        else if (text[k] === "$" && text[k + 1] === "{") {
          templates.push(braces);
          k += 2;
          break;
        }
        k++;
      }
      if (k >= n || text[k] === "`") {
        i = Math.min(n, k + 1);
        previous = "`";
      } else {
        i = k;
        previous = "{";
      }
      continue;
    }
    if (c === "/") {
      const word = previousWordEnd === i - 1 || /\w/.test(previous)
        ? REGEX_AFTER_WORD.test(text.slice(Math.max(0, i - 12), i).trimEnd())
        : false;
      if (previous === "" || REGEX_AFTER.has(previous) || word) {
        i = regexEnd(text, i);
        previous = "/";
        continue;
      }
    }
    if (c === "{") braces++;
    else if (c === "}") braces--;
    if (/\w|\$/.test(c)) {
      while (i < n && /[\w$]/.test(text[i]!)) i++;
      previous = "a";
      previousWordEnd = i - 1;
      continue;
    }
    previous = c;
    i++;
  }
  return out;
}

/** The end of a `'…'` or `"…"` literal starting at `i` (an unterminated one ends its line). */
function quotedEnd(text: string, i: number, quote: string): number {
  let k = i + 1;
  while (k < text.length) {
    const c = text[k]!;
    if (c === "\\") k += 2;
    else if (c === quote) return k + 1;
    else if (c === "\n") return k;
    else k++;
  }
  return text.length;
}

/** The end of a regular-expression literal at `i` (classes `[…]` may hold a `/`). */
function regexEnd(text: string, i: number): number {
  let k = i + 1;
  let inClass = false;
  while (k < text.length) {
    const c = text[k]!;
    if (c === "\\") k += 2;
    else if (c === "\n") return k;
    else {
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) {
        k++;
        while (k < text.length && /[a-z]/i.test(text[k]!)) k++;
        return k;
      }
      k++;
    }
  }
  return text.length;
}

// --- Shell -----------------------------------------------------------------------------

/** A `#` starts a comment only at the start of a word. */
const WORD_BREAK = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

function shellInert(text: string): Span[] {
  const out: Span[] = [];
  const n = text.length;
  /** Heredoc delimiters whose bodies start after the current line. */
  const heredocs: { word: string; tabs: boolean }[] = [];
  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === "\n") {
      i++;
      // Heredoc bodies are data (or code fed to another program), never comments.
      while (heredocs.length > 0) {
        const { word, tabs } = heredocs.shift()!;
        while (i < n) {
          const end = lineEnd(text, i);
          const line = text.slice(i, end).replace(/\r$/, "");
          i = Math.min(n, end + 1);
          if ((tabs ? line.replace(/^\t+/, "") : line) === word) break;
        }
      }
      continue;
    }
    if (c === "#" && (i === 0 || WORD_BREAK.has(text[i - 1]!))) {
      const end = lineEnd(text, i);
      out.push([i, end]);
      i = end;
      continue;
    }
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      i = close === -1 ? n : close + 1;
      continue;
    }
    if (c === '"') {
      i = shellDoubleQuotedEnd(text, i);
      continue;
    }
    if (c === "<" && text[i + 1] === "<" && text[i + 2] !== "<") {
      const m = /^<<(-?)[ \t]*(["']?)([\w.-]+)\2/.exec(text.slice(i, i + 80));
      if (m !== null) {
        heredocs.push({ word: m[3]!, tabs: m[1] === "-" });
        i += m[0].length;
        continue;
      }
    }
    i++;
  }
  return out;
}

/** The end of a `"…"` word at `i`: escapes, and `$(…)` whose own quotes do not close it. */
function shellDoubleQuotedEnd(text: string, i: number): number {
  let k = i + 1;
  let depth = 0;
  while (k < text.length) {
    const c = text[k]!;
    if (c === "\\") k += 2;
    else if (c === "$" && text[k + 1] === "(") {
      depth++;
      k += 2;
    } else if (c === ")" && depth > 0) {
      depth--;
      k++;
    } else if (c === "'" && depth > 0) {
      const close = text.indexOf("'", k + 1);
      k = close === -1 ? text.length : close + 1;
    } else if (c === '"' && depth > 0) {
      k = shellDoubleQuotedEnd(text, k);
    } else if (c === '"') return k + 1;
    else k++;
  }
  return text.length;
}
