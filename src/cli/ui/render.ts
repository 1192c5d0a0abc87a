/** Rendering helpers: JSON documents on stdout, aligned tables, colour that honours NO_COLOR. */

import { inert, oneLine } from "../../core/terminal_text.ts";
import type { Context } from "../../core/io.ts";

export function writeJson(ctx: Pick<Context, "stdout">, value: unknown): void {
  ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Our own lines keep their breaks; every other control character is shown as an escape. */
const MULTILINE = { multiline: true };

/**
 * `error: …` (red where colour is on) and its `hint: …` on stderr, as every command reports
 * a failure. Messages quote skills (names, paths, manifest values, a script's own `error`):
 * both are shown inert.
 */
export function writeError(
  ctx: Pick<Context, "stderr" | "color">,
  message: string,
  hint?: string,
): void {
  const label = ctx.color ? "\x1b[31merror\x1b[0m" : "error";
  ctx.stderr.write(`${label}: ${inert(message, MULTILINE)}\n`);
  if (hint !== undefined && hint !== "") writeHint(ctx, hint);
}

/** `hint: …` on stderr, inert (see {@link writeError}). */
export function writeHint(ctx: Pick<Context, "stderr">, hint: string): void {
  ctx.stderr.write(`hint: ${inert(hint, MULTILINE)}\n`);
}

interface Style {
  dim(text: string): string;
  bold(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

export function style(enabled: boolean): Style {
  const wrap = (code: string) => (text: string) => enabled ? `\x1b[${code}m${text}\x1b[0m` : text;
  return {
    dim: wrap("2"),
    bold: wrap("1"),
    green: wrap("32"),
    red: wrap("31"),
    yellow: wrap("33"),
  };
}

/** Left-aligned columns separated by two spaces. */
export function table(header: readonly string[], cells: readonly (readonly string[])[]): string {
  // Cells often hold text from skills (descriptions): shown inert, never as terminal controls.
  const rows = cells.map((row) => row.map((cell) => inert(oneLine(cell))));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/** A commit (8 hex digits) or an OCI manifest digest (`sha256:` and 8) for a table cell. */
export function shortSha(sha: string | null | undefined): string {
  if (!sha) return "-";
  return sha.startsWith("sha256:") ? sha.slice(0, 15) : sha.slice(0, 8);
}
