/**
 * PowerShell read into statements for the flow reading (powershell_flow.ts): pieces (words,
 * strings, variables, operators), statements split at line ends and `;`, a script block one
 * piece of the statement it stands in, its own statements listed after it; and the names
 * read off pieces (a variable's, a block's parameters).
 */

import { powershellStringEnd } from "./audit_code.ts";

export interface Piece {
  text: string;
  at: number;
  kind: "word" | "string" | "variable" | "op" | "block";
  /**
   * A script block's statements (`{ … }`: kind "block"), also read in place after it: the
   * span `[first, end)` of the list, taken when the block is first called (a slice at each
   * `}` would copy a deep nest's statements once per level), and the block as a function.
   */
  block?: { list: Statement[]; first: number; end: number; fn?: PsFunction };
}

/** A statement's pieces: a script block in it is one piece, its statements listed after it. */
export interface Statement {
  pieces: Piece[];
  /** In a leading `param(…)`: how many of its brackets are open. */
  parens?: number;
}

/**
 * A function of the script or a script block: its parameters' names, in order, its body's
 * statements, and the key its calls are kept under.
 */
export interface PsFunction {
  key: string;
  params: string[];
  body: Statement[];
}

/**
 * The statements, in order: split at line ends and `;` outside strings and outside a
 * hashtable (`@{ … }`, whose entries are one value); a line that ends in `|` or a backtick goes
 * on on the next. A script block (`{ … }`) is one piece of the statement it stands in, which
 * goes on after its `}` (`Invoke-Command { … } -ArgumentList $x`); its own statements follow
 * that statement in the list, read in place as if they ran there, and are kept on the piece
 * for its calls. A leading `param(…)` is a statement of its own (`{ param($c) iex $c }`).
 * Linear in the text: a string is skipped to its end by {@link powershellStringEnd} (an
 * unterminated one ends the text), never matched by a backtracking expression.
 */
export function statements(code: string): Statement[] {
  const out: Statement[] = [];
  let current: Statement | undefined;
  const add = (piece: Piece) => {
    if (current === undefined) out.push(current = { pieces: [] });
    current.pieces.push(piece);
  };
  /** The open braces: `h` a hashtable's, `b` a script block's. */
  const braces: string[] = [];
  /** For each open script block: its piece, and the statement it is in. */
  const open: { piece: Piece; head: Statement | undefined }[] = [];
  const lexer = new RegExp(LEXER.source, "g");
  for (let m = lexer.exec(code); m !== null; m = lexer.exec(code)) {
    let text = m[0];
    if (/^@?["']$/.test(text)) {
      lexer.lastIndex = powershellStringEnd(code, m.index, text);
      text = code.slice(m.index, lexer.lastIndex);
    }
    if (/^`\r?\n$/.test(text)) continue;
    const inTable = braces.at(-1) === "h";
    if (text === "{") {
      const piece: Piece = { text: "{}", at: m.index, kind: "block" };
      add(piece);
      piece.block = { list: out, first: out.length, end: out.length };
      braces.push("b");
      open.push({ piece, head: current });
      current = undefined;
      continue;
    }
    if (text === "}" && !inTable) {
      const block = braces.pop() === "b" ? open.pop() : undefined;
      if (block !== undefined) block.piece.block!.end = out.length;
      current = block?.head;
      continue;
    }
    if (text === "@{") braces.push("h");
    else if (text === "}") braces.pop();
    if (/^(?:\r?\n|;)$/.test(text)) {
      const continued = text.endsWith("\n") && current?.pieces.at(-1)?.text === "|";
      if (!inTable && !continued) current = undefined;
      continue;
    }
    add({ text, at: m.index, kind: kindOf(text) });
    const statement = current!;
    if (statement.pieces.length === 2 && /^param$/i.test(statement.pieces[0]!.text)) {
      statement.parens = 0;
    }
    if (statement.parens !== undefined && /^[()]$/.test(text)) {
      statement.parens += text === "(" ? 1 : -1;
      if (statement.parens === 0) current = undefined;
    }
  }
  for (const { piece } of open) piece.block!.end = out.length;
  return out;
}

/**
 * PowerShell's pieces: line ends, separators, a string's opening quote (its end is found by
 * {@link powershellStringEnd}), `${…}` and `$name` variables, `@name` splats, `::`, `@{`, operators, and
 * words (a word may hold dots and colons: a URL, a type, `env:`; a dot that starts one is a
 * member access, but for a relative path: `.\x.ps1`).
 */
const LEXER =
  /`?\r?\n|[;{}]|@\{|@?["']|\$\{[^}\n]{0,200}\}|\$[\w:]+|@\w+\b(?![.:\\/])|::|\.{1,2}[\\/][^\s;{}|=(),[\]&+"'$]*|[|=(),.[\]&+]|[^\s;{}|=(),.[\]&+"'$][^\s;{}|=(),[\]&+"'$]*/g;

function kindOf(text: string): Piece["kind"] {
  // `$name`, and `@name` splatting a variable's hashtable into a command's parameters.
  if (text.startsWith("$") || /^@\w/.test(text)) return "variable";
  if (/^[@"']/.test(text) && text !== "@{") return "string";
  return /^(?:::|@\{|[|=(),.[\]&+])$/.test(text) ? "op" : "word";
}

/** A script block as a function: its `param(…)`'s names, its statements. */
export function blockFunction(block: Piece): PsFunction {
  if (block.block?.fn !== undefined) return block.block.fn;
  const body = block.block ? block.block.list.slice(block.block.first, block.block.end) : [];
  const first = body[0]?.pieces ?? [];
  const params = /^param$/i.test(first[0]?.text ?? "") ? variablesIn(first) : [];
  const fn = { key: `{}@${block.at}`, params, body };
  if (block.block) block.block.fn = fn;
  return fn;
}

export function variablesIn(pieces: readonly Piece[]): string[] {
  return pieces.filter((p) => p.kind === "variable").map((p) => variableName(p.text));
}

/** The `)` that closes the `(` at `open` (the stage's end when none does). */
export function closeOf(stage: readonly Piece[], open: number): number {
  let depth = 0;
  for (let k = open; k < stage.length; k++) {
    if (stage[k]!.text === "(") depth++;
    else if (stage[k]!.text === ")" && --depth === 0) return k;
  }
  return stage.length;
}

/**
 * `$env:X`, `${env:X}`, `$script:x`, `$using:x` (a remote block's reading of the script's
 * variable): the variable's name, scopes but `env:` dropped.
 */
export function variableName(text: string): string {
  const bare = text.replace(/^[$@]\{?|\}$/g, "");
  return /^env:/i.test(bare)
    ? bare
    : bare.replace(/^(?:script|global|local|private|using):/i, "").toLowerCase();
}

export function unquote(text: string): string {
  return text.replace(/^@?["']|["']@?$/g, "");
}
