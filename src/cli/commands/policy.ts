/** `skills policy`: the organisation's policy in force here, each rule with its file and line. */

import type { Context } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { policyReport } from "../../runtime/governance/policy_files.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { policySpec } from "../specs/policy.ts";
import { writeJson } from "../ui/render.ts";
import { inert } from "../../core/terminal_text.ts";

export const { help, parse } = defineCommand(policySpec, ({ common }) => common);

type PolicyOptions = OptionsOf<typeof parse>;

function shown(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "(none)" : value.join(", ");
  return String(value);
}

export async function run(options: PolicyOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const report = await policyReport(ctx.env, home, ctx.cwd);
  if (options.json) {
    writeJson(ctx, report);
    return 0;
  }
  const lines = ["Policy files (each can only tighten the ones before it):"];
  for (const file of report.files) {
    lines.push(`  ${file.level.padEnd(8)} ${inert(file.file)}${file.present ? "" : "  (absent)"}`);
  }
  lines.push("");
  if (report.rules.length === 0) {
    lines.push("No rules: no policy file exists here.");
  } else {
    lines.push("Rules in force (every one applies):");
    const width = Math.max(...report.rules.map((r) => r.key.length));
    for (const rule of report.rules) {
      lines.push(
        `  ${rule.key.padEnd(width)}  ${inert(shown(rule.value))}  (${
          inert(rule.file)
        }:${rule.line})`,
      );
    }
  }
  ctx.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
