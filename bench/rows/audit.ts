/**
 * `skills audit` of a 1,000-file skill (target ≤ 1 s), against `skills validate` of the
 * same skill in the same run: both start the CLI and read the skill; the audit reads every
 * file whole and applies every rule to it. The skill is made of what large skills ship:
 * scripts, Markdown references (with links and URLs) and JSON assets.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import { type BenchRow, measurePair } from "../lib.ts";

const FILES = 1000;

/** SKILL.md plus 999 files: a third scripts, a third references, a third assets. */
async function bigSkill(root: string): Promise<string> {
  const dir = join(root, "audit-bench");
  for (const sub of ["scripts", "references", "assets"]) {
    await Deno.mkdir(join(dir, sub), { recursive: true });
  }
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    `---\nname: audit-bench\ndescription: A large skill for the audit benchmark. Use when measuring.\npermissions:\n  env: [AUDIT_BENCH_*]\n---\n# Audit bench\n\nSee references/ref-0.md and scripts/tool_0.py.\n`,
  );
  const script = (i: number) =>
    `# /// script\n# requires-python = ">=3.9"\n# dependencies = []\n# ///\n"""Tool ${i}."""\nimport argparse, json, urllib.request\n\nBASE = "https://api.service-${
      i % 7
    }.net/v1"\n\n` +
    Array.from({ length: 30 }, (_, j) => `def step_${j}(x):\n    return x + ${j}\n`).join("") +
    `\nif __name__ == "__main__":\n    print(json.dumps({"ok": True}))\n`;
  const reference = (i: number) =>
    `# Reference ${i}\n\n` +
    Array.from(
      { length: 40 },
      (_, j) =>
        `Paragraph ${j}: call \`tool_${i}\` with --json; details at https://docs.service-${
          i % 5
        }.org/page/${j}.\n`,
    ).join("");
  const asset = (i: number) =>
    JSON.stringify({ id: i, values: Array.from({ length: 100 }, (_, j) => j * i) }, null, 2);
  for (let i = 0; i < FILES - 1; i++) {
    const kind = i % 3;
    if (kind === 0) await Deno.writeTextFile(join(dir, "scripts", `tool_${i}.py`), script(i));
    else if (kind === 1) {
      await Deno.writeTextFile(join(dir, "references", `ref-${i}.md`), reference(i));
    } else await Deno.writeTextFile(join(dir, "assets", `data-${i}.json`), asset(i));
  }
  return dir;
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = await bigSkill(ctx.tmp);
  const env = { SKILLS_HOME: join(ctx.tmp, "audit-home") };
  const { baseline, value } = await measurePair(
    { cmd: ctx.cli.cmd, args: [...ctx.cli.args, "validate", dir], env },
    { cmd: ctx.cli.cmd, args: [...ctx.cli.args, "audit", dir, "--fail-on", "none"], env },
    ctx.runs,
  );
  return [{
    name: `skills audit, one skill of ${FILES} files`,
    value,
    baselineName: "skills validate of it",
    baseline,
    target: "≤ 1 s",
    pass: value.medianMs <= 1000,
    note: "every file read whole and matched against every rule (endpoints listed as info)",
  }];
}
