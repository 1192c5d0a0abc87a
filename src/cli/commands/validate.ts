/** `skills validate <dir>...`: errors and warnings with file:line; exit 1 on any error. */

import { inert } from "../../core/terminal_text.ts";
import { resolve } from "../../runtime/os/paths.ts";
import { formatDiagnostic } from "../../core/manifest/manifest.ts";
import type { Context } from "../../core/io.ts";
import { type InspectResult, inspectSkillDir } from "../../runtime/catalog/loader.ts";
import { linkedFolderName, skillDirsAt } from "../../runtime/catalog/discover.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { validateSpec } from "../specs/validate.ts";
import { style, writeJson } from "../ui/render.ts";
import { UsageError } from "../../core/errors.ts";

export const { help, parse } = defineCommand(
  validateSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    if (!flags.help && positionals.length === 0) {
      throw new UsageError(
        "Missing skill directory",
        "Run `skills validate <dir>...`, e.g. `skills validate ./my-skill`",
      );
    }
    return { ...flags, dirs: positionals, strict: values.strict === true };
  },
);

type ValidateOptions = OptionsOf<typeof parse>;

export async function run(options: ValidateOptions, ctx: Context): Promise<number> {
  const results: InspectResult[] = [];
  for (const dir of options.dirs) {
    const named = resolve(ctx.cwd, dir);
    for (const target of await skillDirsAt(named)) {
      const folderName = linkedFolderName(named, target);
      results.push(await inspectSkillDir(target, { strict: options.strict, folderName }));
    }
  }
  const valid = results.every((r) => !r.diagnostics.some((d) => d.level === "error"));
  const invalid = results.filter((r) => r.diagnostics.some((d) => d.level === "error")).length;
  if (options.json) {
    writeJson(ctx, {
      valid,
      strict: options.strict,
      checked: results.length,
      results: results.map((r) => ({
        path: r.dir,
        name: r.manifest?.name ?? null,
        valid: !r.diagnostics.some((d) => d.level === "error"),
        scripts: r.record?.scripts.length ?? 0,
        errors: r.diagnostics.filter((d) => d.level === "error"),
        warnings: r.diagnostics.filter((d) => d.level === "warning"),
      })),
    });
    return valid ? 0 : 1;
  }
  const s = style(ctx.color);
  for (const r of results) {
    const errors = r.diagnostics.filter((d) => d.level === "error");
    const mark = errors.length === 0 ? s.green("✓") : s.red("✗");
    // A skill whose name could not be read is named by its path, once.
    const label = r.manifest?.name === undefined ? r.dir : `${r.manifest.name} (${r.dir})`;
    const detail = errors.length === 0
      ? `${count(r.record?.scripts.length ?? 0, "script")}, ${
        count(r.manifest?.toolsets.length ?? 0, "toolset")
      }`
      : count(errors.length, "error");
    ctx.stdout.write(`${mark} ${label} - ${detail}\n`);
    // Diagnostics quote the manifest: written inert (core/terminal_text.ts).
    for (const d of r.diagnostics) ctx.stdout.write(`  ${inert(formatDiagnostic(d))}\n`);
  }
  ctx.stdout.write(
    `Checked ${count(results.length, "skill")}: ${
      results.length - invalid
    } valid, ${invalid} invalid\n`,
  );
  return valid ? 0 : 1;
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
