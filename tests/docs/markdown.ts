/**
 * Reading the documentation the way the doc tests need it: fenced blocks with the marker
 * comment before them, headings as GitHub anchors, and links. Small on purpose: the
 * documents are ours, written in the subset deno fmt keeps.
 */

import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";

/** README.md and every document under docs/, as paths relative to the repository. */
export function documents(): string[] {
  const docs = [...Deno.readDirSync(join(REPO_ROOT, "docs"))]
    .filter((e) => e.isFile && e.name.endsWith(".md"))
    .map((e) => `docs/${e.name}`)
    .sort();
  return ["README.md", ...docs];
}

export interface Block {
  /** The info string's first word: `sh`, `json`, … */
  lang: string;
  /** 1-based line of the block's first content line. */
  line: number;
  lines: string[];
  /** The words of `<!-- doctest: … -->` standing before the block (blank lines between allowed). */
  marker: string;
}

const MARKER = /^<!--\s*doctest:\s*(.*?)\s*-->$/;

export function fencedBlocks(text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (open === null) continue;
    let marker = "";
    for (let j = i - 1; j >= 0; j--) {
      if (lines[j]!.trim() === "") continue;
      marker = MARKER.exec(lines[j]!.trim())?.[1] ?? "";
      break;
    }
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.startsWith("```")) end++;
    blocks.push({ lang: open[1] ?? "", line: start + 1, lines: lines.slice(start, end), marker });
    i = end;
  }
  return blocks;
}

/**
 * The shell a block holds: a shell block itself, or the `run: |` scripts of a YAML block (a CI
 * step), as a `sh` block whose other lines are blank so line numbers still point into the file.
 */
export function shellOf(block: Block): Block {
  if (block.lang !== "yaml" && block.lang !== "yml") return block;
  const lines = block.lines.map(() => "");
  let indent = -1;
  block.lines.forEach((line, i) => {
    const depth = line.length - line.trimStart().length;
    if (indent >= 0 && line.trim() !== "" && depth <= indent) indent = -1;
    if (indent >= 0) lines[i] = line.trim();
    if (/^\s*(?:-\s+)?run:\s*\|\s*$/.test(line)) {
      indent = depth + (line.trimStart().startsWith("-") ? 2 : 0);
    }
  });
  return { ...block, lang: "sh", lines };
}

/** Lines with `\` continuations joined, each with its 1-based line number. */
export function commandLines(block: Block): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let pending: { line: number; text: string } | null = null;
  block.lines.forEach((raw, i) => {
    const line = block.line + i;
    const joined: { line: number; text: string } = pending === null
      ? { line, text: raw }
      : { line: pending.line, text: `${pending.text} ${raw.trim()}` };
    if (joined.text.endsWith("\\")) {
      pending = { line: joined.line, text: joined.text.slice(0, -1).trimEnd() };
      return;
    }
    pending = null;
    if (joined.text.trim() !== "" && !joined.text.trim().startsWith("#")) out.push(joined);
  });
  return out;
}

/** Does this shell line start `skills` (after `VAR=value` words, or after a `|`)? */
export function runsSkills(text: string): boolean {
  // A value may be `$(command)`, quoted, or a plain word; `|` inside `$( )` is not a pipe here.
  const value = /(?:\$\([^)]*\)|"[^"]*"|'[^']*'|[^\s|&])*/.source;
  const assignments = new RegExp(`^\\s*(?:[A-Z_][A-Z0-9_]*=${value}\\s+)*skills(?:\\s|$)`);
  return text.split(/\||&&/).some((part) => assignments.test(part));
}

/** The text outside fenced blocks and inline code, where links and headings live. */
function prose(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fenced = false;
  text.split("\n").forEach((line, i) => {
    if (line.startsWith("```")) {
      fenced = !fenced;
      return;
    }
    if (!fenced) out.push({ line: i + 1, text: line });
  });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a document offers, numbered as GitHub numbers repeated headings. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text: line } of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

export interface Link {
  line: number;
  target: string;
}

/** Markdown links `[text](target)` outside code. */
export function links(text: string): Link[] {
  const out: Link[] = [];
  for (const { line, text: raw } of prose(text)) {
    const withoutCode = raw.replace(/`[^`]*`/g, "");
    for (const m of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) out.push({ line, target: m[1]! });
  }
  return out;
}
