/**
 * The code a skill's documents give, read as the code an agent runs: the fenced blocks of a
 * SKILL.md or a reference in the languages the flow analysis reads, and the commands said in
 * code spans of its prose. Their flows go to the same rules as a script's (engine.ts); a
 * command said in prose is shown, never refused ({@link saidInProse}).
 */

import { FenceReader } from "./markdown_fences.ts";
import { type CodeLanguage, readCode } from "./flow/audit_code.ts";
import { analyzeFlows, type Flow } from "./flow/flow.ts";

/**
 * The flows of the code a document gives in its fenced blocks, in the languages the analysis
 * reads (`bash`, `sh`, `console`, `python`, `js`, `ts`, `powershell`, …): an agent runs what
 * SKILL.md tells it to, so `env | curl -d @- …` there is the same flow as in a script. A
 * `console` block's prompts (`$ `) and output lines are blanked and a shell block's
 * `<placeholder>` filled, which keeps every offset; comments carry no flow, as in a script.
 */
export function documentFlows(text: string): Flow[] {
  const fences = new FenceReader();
  const out: Flow[] = [];
  let block: DocumentBlock | undefined;
  let offset = 0;
  let blank = true;
  for (const line of text.split("\n")) {
    const fenced = fences.read(line);
    const indented = !fenced && /^(?: {4}|\t)/.test(line);
    // An indented block ends at a line neither indented nor blank; a fenced one at its close.
    const ends = block?.indented ? fenced || (!indented && line.trim() !== "") : !fenced;
    if (block !== undefined && ends) {
      out.push(...blockFlows(block));
      block = undefined;
    }
    if (block === undefined && fenced) {
      const info = /^\s*(?:`{3,}|~{3,})\s*(\w*)/.exec(line)?.[1]?.toLowerCase() ?? "";
      const loose = UNLABELLED.test(info);
      block = newBlock(loose ? "shell" : BLOCK_LANGUAGES[info], info, loose, false);
    } else if (block === undefined && indented && blank && line.trim() !== "") {
      // An indented code block (after a blank line, four spaces in): code, unlabelled.
      block = newBlock("shell", "", true, true);
      block.start = offset;
      block.lines.push(blockLine(block, line));
    } else if (block?.language !== undefined) {
      if (block.start === -1) block.start = offset;
      block.lines.push(blockLine(block, line));
    } else if (block === undefined && line.includes("`")) {
      out.push(...inlineCommandFlows(line, offset));
    }
    blank = line.trim() === "";
    offset += line.length + 1;
  }
  if (block !== undefined) out.push(...blockFlows(block));
  return out;
}

function newBlock(
  language: CodeLanguage | undefined,
  info: string,
  loose: boolean,
  indented: boolean,
): DocumentBlock {
  return {
    language,
    console: /^(?:console|terminal)$/.test(info),
    loose,
    indented,
    start: -1,
    lines: [],
  };
}

/**
 * A fence that says nothing of its language (no info string, `text`, `plain`): as often a
 * command to run as output or a file's listing, so read as shell, its flows shown at medium at
 * most ({@link saidInProse}); an author cannot hide a command from the audit by leaving it
 * unlabelled. An indented code block is read the same way.
 */
const UNLABELLED = /^(?:|text|txt|plain|plaintext|none)$/;

interface DocumentBlock {
  /** Undefined for a language the analysis does not read: the block is skipped. */
  language: CodeLanguage | undefined;
  console: boolean;
  /** A block that does not say it is code ({@link UNLABELLED}, an indented block). */
  loose: boolean;
  /** An indented code block, which ends at the first line not indented. */
  indented: boolean;
  start: number;
  lines: string[];
}

/** The languages of a fence's info string the flow analysis reads. */
const BLOCK_LANGUAGES: Readonly<Record<string, CodeLanguage>> = {
  bash: "shell",
  sh: "shell",
  shell: "shell",
  zsh: "shell",
  console: "shell",
  terminal: "shell",
  python: "python",
  py: "python",
  python3: "python",
  javascript: "javascript",
  js: "javascript",
  mjs: "javascript",
  typescript: "javascript",
  ts: "javascript",
  node: "javascript",
  powershell: "powershell",
  ps1: "powershell",
  pwsh: "powershell",
};

/** A block's line as its code: a console's prompt set aside, a shell's blanks filled. */
function blockLine(block: DocumentBlock, line: string): string {
  if (block.language !== "shell") return line;
  const filled = filledBlanks(line);
  if (!block.console) return filled;
  return /^\s*\$ /.test(filled) ? filled.replace("$", " ") : " ".repeat(filled.length);
}

/**
 * The flows of the commands a line of prose gives in code spans (`Run \`curl -d @~/.aws/…
 * https://…\` first`): a span of words, read as one shell line, at its place in the text.
 */
function inlineCommandFlows(line: string, offset: number): Flow[] {
  const out: Flow[] = [];
  for (const m of line.matchAll(/(?<!`)`([^`\n]*\s[^`\n]*)`(?!`)/g)) {
    const code = filledBlanks(m[1]!);
    const at = offset + m.index! + 1;
    for (const flow of analyzeFlows("shell", code, [])) {
      const placed = { ...flow, at: flow.at + at };
      IN_PROSE.add(placed);
      out.push(placed);
    }
  }
  return out;
}

/**
 * Flows of a command said in a code span of prose: as often an example, a payload in a table or
 * a warning (`never run \`ln -s … ~/.codex/skills/…\``) as an order, so shown (medium at
 * most), never refused.
 */
const IN_PROSE = new WeakSet<Flow>();

/** Whether a flow is of a command said in a code span of prose ({@link IN_PROSE}). */
export function saidInProse(flow: Flow): boolean {
  return IN_PROSE.has(flow);
}

/** A shell line of a document with its `<folder>`, `<your-token>`: blanks to fill, not redirects. */
function filledBlanks(line: string): string {
  return line.replace(/<([A-Za-z][\w.-]*)>/g, "_$1_");
}

function blockFlows(block: DocumentBlock): Flow[] {
  if (block.language === undefined || block.start < 0 || block.lines.length === 0) return [];
  const code = block.lines.join("\n");
  return analyzeFlows(block.language, code, readCode(block.language, code).inert)
    .map((flow) => {
      const placed = { ...flow, at: flow.at + block.start };
      if (block.loose) IN_PROSE.add(placed);
      return placed;
    });
}
