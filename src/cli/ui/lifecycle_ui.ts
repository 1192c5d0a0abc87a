/**
 * Terminal interaction shared by add/update/remove/trust: summaries, confirmations that
 * refuse without a terminal unless --yes, the numbered skill chooser, progress lines.
 * Everything here writes to stderr; stdout stays data.
 */

import { inert, oneLine } from "../../core/terminal_text.ts";
import { declined, SkillError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { confirm } from "./tty.ts";
import type { Fetched } from "../../runtime/lifecycle/fetch_source.ts";

export function progress(ctx: Pick<Context, "stderr">): (message: string) => void {
  return (message) => ctx.stderr.write(`${message}\n`);
}

/** Rejects as soon as the command is interrupted (Ctrl-C) while waiting for input. */
function untilAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Asks a yes/no question unless `yes`. Without a terminal (and without --yes) it refuses
 * with `confirmation_required`, naming the action that was not taken.
 */
export async function confirmAction(
  ctx: Context,
  question: string,
  options: { yes: boolean; action: string },
): Promise<boolean> {
  if (options.yes) return true;
  if (!ctx.isTty) {
    throw new SkillError("confirmation_required", `${options.action}: confirmation required`, {
      hint: "stdin is not a terminal; pass --yes to confirm without a prompt",
    });
  }
  return await untilAborted(ctx.signal, confirm(ctx, question));
}

type Selection = { kind: "indices"; indices: number[] } | { kind: "cancel" } | {
  kind: "invalid";
  reason: string;
};

/** Pure: `1,3`, `2-4`, `*`/`all`, empty (cancel) → zero-based indices. */
export function parseSelection(input: string, count: number): Selection {
  const text = input.trim().toLowerCase();
  if (text === "" || text === "q" || text === "n" || text === "no") return { kind: "cancel" };
  if (text === "*" || text === "all" || text === "a") {
    return { kind: "indices", indices: [...Array(count).keys()] };
  }
  const indices = new Set<number>();
  for (const part of text.split(/[\s,]+/).filter((p) => p !== "")) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (range === null) return { kind: "invalid", reason: `'${part}' is not a number or range` };
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (from < 1 || to > count || from > to) {
      return { kind: "invalid", reason: `'${part}' is not between 1 and ${count}` };
    }
    for (let i = from; i <= to; i++) indices.add(i - 1);
  }
  return { kind: "indices", indices: [...indices].sort((a, b) => a - b) };
}

/**
 * Asks which of several skills to install (a numbered list on stderr). Returns the chosen
 * zero-based indices; an empty answer cancels. Three invalid answers give up.
 */
export async function chooseFromList(
  ctx: Context,
  title: string,
  items: readonly { label: string; detail: string }[],
): Promise<number[]> {
  const width = Math.max(...items.map((i) => i.label.length));
  const lines = items.map((item, i) =>
    `  ${String(i + 1).padStart(String(items.length).length)}) ${
      item.label.padEnd(width)
    }  ${item.detail}`
  );
  ctx.stderr.write(`${title}\n${lines.join("\n")}\n`);
  for (let attempt = 0; attempt < 3; attempt++) {
    ctx.stderr.write("Install which? (e.g. 1,3 or 2-4; * for all; empty to cancel): ");
    const answer = await untilAborted(ctx.signal, ctx.readLine());
    if (answer === null) {
      ctx.stderr.write("\n");
      break;
    }
    const selection = parseSelection(answer, items.length);
    if (selection.kind === "indices") return selection.indices;
    if (selection.kind === "cancel") break;
    ctx.stderr.write(`${selection.reason}\n`);
  }
  throw declined("Nothing selected; nothing was installed");
}

/** `label: value` lines with aligned values, skipping empty values. */
export function fields(rows: readonly [string, string | null | undefined][]): string {
  const shown = rows.filter(([, v]) => v !== null && v !== undefined && v !== "");
  const width = Math.max(...shown.map(([k]) => k.length)) + 1;
  // Values come from skills (manifest fields): shown inert, never as terminal controls.
  return shown.map(([k, v]) => `  ${`${k}:`.padEnd(width)} ${inert(oneLine(v!))}`).join("\n") +
    "\n";
}

export function listOrNone(values: readonly string[]): string {
  return values.length === 0 ? "none" : values.join(", ");
}

/** The MCP servers a skill says its instructions call, and whose they are to provide. */
export function mcpServersLine(servers: readonly string[]): string {
  return `${
    servers.join(", ")
  } (its instructions call them; your agent's MCP settings provide them)`;
}

/** At most this many file names are listed for a warning several files share. */
const FOLDED_NAMES = 3;

/**
 * A skill's warnings as lines to show: each names the file it is about (relative to the
 * skill), and a warning that several files share is one line with a count instead of one
 * line per file.
 */
export function warningLines(
  skill: string,
  dir: string,
  warnings: readonly { file: string; line?: number; message: string }[],
): string[] {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  const where = (w: { file: string; line?: number }) => {
    const rel = w.file.startsWith(prefix) ? w.file.slice(prefix.length) : w.file;
    return w.line === undefined ? rel : `${rel}:${w.line}`;
  };
  const byMessage = new Map<string, string[]>();
  for (const w of warnings) {
    const files = byMessage.get(w.message) ?? [];
    files.push(where(w));
    byMessage.set(w.message, files);
  }
  // File names and what a warning quotes (a link's target) are the skill's: shown inert.
  return [...byMessage].map(([message, files]) => {
    if (files.length === 1) return inert(`${skill}: ${files[0]}: ${message}`);
    return inert(`${skill}: ${files.length} files: ${message} (${firstFew(files)})`);
  });
}

/** The first few of `names`, and how many more there are: `a, b, c, and 4 more`. */
export function firstFew(names: readonly string[]): string {
  const more = names.length > FOLDED_NAMES ? `, and ${names.length - FOLDED_NAMES} more` : "";
  return names.slice(0, FOLDED_NAMES).join(", ") + more;
}

/** The commit line of an install summary: `<sha> (branch main)`, or a local directory. */
export function commitLabel(fetched: Pick<Fetched, "commit">): string {
  const c = fetched.commit;
  if (c === null) return "local directory";
  const follows = c.tag !== null
    ? `tag ${c.tag}`
    : c.branch !== null
    ? `branch ${c.branch}`
    : `pinned to ${c.ref}`;
  return `${c.sha} (${follows})`;
}
