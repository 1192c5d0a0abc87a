/** `skills scripts [<skill>] [--json]`: the scripts of one skill, or of every skill. */

import { SkillError, UsageError } from "../../core/errors.ts";
import { findSkill, loadCatalog } from "../../runtime/catalog/catalog.ts";
import type { Context } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { scriptList } from "../../runtime/exec/script_service.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { scriptsSpec } from "../specs/scripts.ts";
import { table, writeJson } from "../ui/render.ts";

export const help = renderHelp(scriptsSpec);

interface ScriptsOptions extends ParsedCommon {
  skill: string | undefined;
}

export function parse(argv: readonly string[]): ScriptsOptions {
  const { values, positionals } = parseSpec(scriptsSpec, argv);
  const flags = commonFlags(values);
  if (positionals.length > 1) {
    throw new UsageError(
      `Expected at most one skill name, got ${positionals.length}`,
      "Run `skills scripts --help` for usage",
    );
  }
  return { ...flags, skill: positionals[0] };
}

export async function run(options: ScriptsOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const catalog = await loadCatalog(home, { cwd: ctx.cwd, env: ctx.env });
  // Resolve the name first so a bad one fails with its hint (exit 2 / 1).
  if (options.skill !== undefined) findSkill(catalog, options.skill);
  const envelope = scriptList(catalog, options.skill);
  if (!envelope.success) throw new SkillError("execution_failed", envelope.message);
  if (options.json) {
    writeJson(ctx, envelope.result);
    return 0;
  }
  const rows: string[][] = [];
  for (const [skill, scripts] of Object.entries(envelope.result)) {
    for (const script of scripts) {
      rows.push(
        options.skill === undefined
          ? [skill, script.name, script.interpreter, script.path]
          : [script.name, script.interpreter, script.path],
      );
    }
  }
  if (rows.length === 0) {
    ctx.stderr.write(
      options.skill === undefined ? "No skill has scripts.\n" : "This skill has no scripts.\n",
    );
    return 0;
  }
  const header = options.skill === undefined
    ? ["SKILL", "SCRIPT", "RUNS WITH", "PATH"]
    : ["SCRIPT", "RUNS WITH", "PATH"];
  ctx.stdout.write(table(header, rows));
  ctx.stderr.write(`${envelope.message}\n`);
  return 0;
}
