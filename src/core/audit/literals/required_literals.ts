/**
 * The literals every match of a regular expression holds, read from its source: a list of
 * factors, each a list of strings one of which every match contains, with A-Z read as a-z.
 * What the reading cannot follow (a class of many characters, a back-reference, syntax it does
 * not know) requires nothing, so the answer is never stronger than the pattern: a text that
 * lacks a factor's every string cannot match. Only printable ASCII of at least three
 * characters is kept: shorter literals are in nearly every text, and the scan reads ASCII.
 */

/** Most strings a part's exact set holds before it is no longer followed. */
const MAX_EXACT = 64;
/** The shortest literal worth requiring. */
const MIN_LITERAL = 3;
/** Most characters of a class read as a set of literals (`[/\\]`, `["']`). */
const MAX_CLASS = 8;

interface Reading {
  /** Every string the part can match, when they are few (folded). */
  exact: Set<string> | null;
  /** Factors every match of the part holds. */
  factors: Set<string>[];
}

const unknown = (): Reading => ({ exact: null, factors: [] });
const empty = (): Reading => ({ exact: new Set([""]), factors: [] });
const literal = (text: string): Reading => ({ exact: new Set([fold(text)]), factors: [] });

/** The factors of `pattern` (none when its source or flags are past what this reads). */
export function requiredLiterals(pattern: RegExp): string[][] {
  const { flags, source } = pattern;
  if (flags.includes("v") || (flags.includes("u") && flags.includes("i"))) return [];
  const reader = { source, at: 0 };
  let reading: Reading;
  try {
    reading = alternation(reader);
    if (reader.at !== source.length) return [];
  } catch {
    return [];
  }
  const factors = reading.exact === null ? reading.factors : [...reading.factors, reading.exact];
  const kept = new Map<string, string[]>();
  for (const factor of factors) {
    const strings = [...factor].sort();
    if (strings.length === 0 || !strings.every(isKept)) continue;
    kept.set(strings.join("\0"), strings);
  }
  return [...kept.values()];
}

function isKept(text: string): boolean {
  return text.length >= MIN_LITERAL && /^[\x20-\x7e\t\n]+$/.test(text);
}

interface Reader {
  source: string;
  at: number;
}

/** `a|b|c`: every string of any branch; one factor when every branch requires one. */
function alternation(reader: Reader): Reading {
  const branches = [sequence(reader)];
  while (reader.source[reader.at] === "|") {
    reader.at++;
    branches.push(sequence(reader));
  }
  if (branches.length === 1) return branches[0]!;
  let exact: Set<string> | null = new Set();
  for (const branch of branches) {
    if (exact === null || branch.exact === null) {
      exact = null;
      break;
    }
    for (const text of branch.exact) exact.add(text);
    if (exact.size > MAX_EXACT) exact = null;
  }
  // Strings few enough to follow say more than any factor: the caller joins them on.
  if (exact !== null) return { exact, factors: [] };
  const union = new Set<string>();
  for (const branch of branches) {
    const best = bestFactor(branch);
    if (best === undefined) return unknown();
    for (const text of best) union.add(text);
  }
  return { exact, factors: [union] };
}

/** A factor's worth: its shortest string (a longer literal is rarer). */
function worth(factor: ReadonlySet<string>): number {
  let shortest = Infinity;
  for (const text of factor) shortest = Math.min(shortest, text.length);
  return shortest;
}

function bestFactor(reading: Reading): Set<string> | undefined {
  const candidates = [...reading.factors];
  if (reading.exact !== null && !reading.exact.has("")) candidates.push(reading.exact);
  let best: Set<string> | undefined;
  for (const factor of candidates) {
    if (best === undefined || worth(factor) > worth(best)) best = factor;
  }
  return best;
}

/** Parts one after another: their exact strings joined while few, their factors kept. */
function sequence(reader: Reader): Reading {
  const factors: Set<string>[] = [];
  let current = new Set([""]);
  let whole = true;
  const flush = () => {
    if (current.size > 0 && !current.has("")) factors.push(current);
    current = new Set([""]);
  };
  while (reader.at < reader.source.length && !"|)".includes(reader.source[reader.at]!)) {
    const part = quantified(reader);
    factors.push(...part.factors);
    if (part.exact === null) {
      flush();
      whole = false;
      continue;
    }
    const joined = new Set<string>();
    for (const head of current) for (const tail of part.exact) joined.add(head + tail);
    if (joined.size > MAX_EXACT) {
      flush();
      whole = false;
      current = part.exact;
    } else current = joined;
  }
  if (whole) return { exact: current, factors };
  flush();
  return { exact: null, factors };
}

/** A part and its quantifier: required once at least, its factors stand. */
function quantified(reader: Reader): Reading {
  const part = atom(reader);
  const { source } = reader;
  let min: number;
  let max: number;
  const next = source[reader.at];
  if (next === "*") [min, max] = [0, Infinity];
  else if (next === "+") [min, max] = [1, Infinity];
  else if (next === "?") [min, max] = [0, 1];
  else if (next === "{") {
    const bounds = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(reader.at));
    if (bounds === null) return part; // a literal brace: the next atom
    min = Number(bounds[1]);
    max = bounds[2] === undefined ? min : bounds[3] === "" ? Infinity : Number(bounds[3]);
    reader.at += bounds[0].length - 1;
  } else return part;
  reader.at++;
  if (source[reader.at] === "?") reader.at++; // lazy: the same strings
  if (min === 1 && max === 1) return part;
  if (min === 0) {
    return max === 1 && part.exact !== null
      ? { exact: new Set([...part.exact, ""]), factors: [] }
      : unknown();
  }
  const factors = [...part.factors];
  if (part.exact !== null && !part.exact.has("")) factors.push(part.exact);
  return { exact: null, factors };
}

function atom(reader: Reader): Reading {
  const c = reader.source[reader.at++]!;
  if (c === "(") return group(reader);
  if (c === "[") return charClass(reader);
  if (c === "\\") return escape(reader);
  if (c === "." || c === ")" || c === "|") {
    if (c !== ".") throw new SyntaxError("unbalanced");
    return unknown();
  }
  if (c === "^" || c === "$") return empty();
  return literal(c);
}

/** `(…)`, `(?:…)`, `(?<name>…)`; a look-around holds nothing a match must contain. */
function group(reader: Reader): Reading {
  const rest = reader.source.slice(reader.at, reader.at + 3);
  let around = false;
  if (rest.startsWith("?:")) reader.at += 2;
  else if (/^\?<?[=!]/.test(rest)) {
    reader.at += rest[1] === "<" ? 3 : 2;
    around = true;
  } else if (rest.startsWith("?<")) {
    const close = reader.source.indexOf(">", reader.at);
    if (close < 0) throw new SyntaxError("unnamed group");
    reader.at = close + 1;
  } else if (rest.startsWith("?")) throw new SyntaxError("unknown group");
  const inner = alternation(reader);
  if (reader.source[reader.at++] !== ")") throw new SyntaxError("unclosed group");
  return around ? empty() : inner;
}

function escape(reader: Reader): Reading {
  const c = reader.source[reader.at++];
  if (c === undefined) throw new SyntaxError("trailing backslash");
  if (c === "b" || c === "B") return empty();
  if (c === "n") return literal("\n");
  if (c === "t") return literal("\t");
  if (/[A-Za-z0-9]/.test(c)) {
    // Classes (\s, \w, \p{…}), back-references and characters by number: not followed.
    skipEscapeBody(reader, c);
    return unknown();
  }
  return literal(c);
}

/** Past the rest of `\u{…}`, `\uXXXX`, `\xXX`, `\cX`, `\p{…}`, `\k<…>`. */
function skipEscapeBody(reader: Reader, c: string): void {
  const { source } = reader;
  const closing = (close: string) => {
    const end = source.indexOf(close, reader.at);
    if (end < 0) throw new SyntaxError("unclosed escape");
    reader.at = end + 1;
  };
  if ((c === "u" || c === "p" || c === "P") && source[reader.at] === "{") closing("}");
  else if (c === "k" && source[reader.at] === "<") closing(">");
  else if (c === "u") reader.at += 4;
  else if (c === "x") reader.at += 2;
  else if (c === "c") reader.at += 1;
}

/** `[…]`: its few plain characters, or nothing followed (ranges, negation, escapes of classes). */
function charClass(reader: Reader): Reading {
  const { source } = reader;
  const chars = new Set<string>();
  let plain = source[reader.at] !== "^";
  if (!plain) reader.at++;
  // In JavaScript a `]` always closes (`[]` matches nothing, `[^]` anything).
  while (reader.at < source.length && source[reader.at] !== "]") {
    let c = source[reader.at++]!;
    if (c === "\\") {
      c = source[reader.at++] ?? "";
      if (/[A-Za-z0-9]/.test(c)) {
        skipEscapeBody(reader, c);
        plain = false;
        continue;
      }
    } else if (c === "-" && chars.size > 0 && source[reader.at] !== "]") plain = false;
    chars.add(fold(c));
  }
  if (source[reader.at++] !== "]") throw new SyntaxError("unclosed class");
  return plain && chars.size > 0 && chars.size <= MAX_CLASS
    ? { exact: chars, factors: [] }
    : unknown();
}

/** A-Z read as a-z: what the scan does to the text. */
function fold(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
