/**
 * `skills audit` of a 1,000-file skill (target ≤ 1 s), and of a collection of 864 skills
 * (the size of Composio's, target: seconds), each against `skills validate` of the same
 * input in the same run: both start the CLI and read the skills; the audit reads every file
 * whole, applies every rule and runs the data-flow analysis of every script. The skills are
 * made of what real ones ship: scripts, Markdown references (with links and URLs) and JSON
 * assets.
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

const COLLECTION = 864;

/**
 * 864 skills as a collection ships them: each a SKILL.md of a few sections naming its API;
 * every third with a Python script that reads its key and calls that API, every third with a
 * shell helper, every other with a reference document.
 */
async function collection(root: string): Promise<string> {
  const dir = join(root, "audit-collection");
  for (let i = 0; i < COLLECTION; i++) {
    const name = `service-${i}-automation`;
    const skill = join(dir, name);
    await Deno.mkdir(join(skill, "scripts"), { recursive: true });
    await Deno.mkdir(join(skill, "references"), { recursive: true });
    const body = Array.from(
      { length: 12 },
      (_, j) =>
        `## Step ${j}\n\nCall \`SERVICE_${i}_ACTION_${j}\` with the fields the user gave; see https://docs.service-${i}.com/api/${j} for the parameters. Confirm before deleting anything.\n`,
    ).join("\n");
    await Deno.writeTextFile(
      join(skill, "SKILL.md"),
      `---\nname: ${name}\ndescription: Automates Service ${i} tasks through its API. Use when the user asks about Service ${i}.\n---\n# Service ${i}\n\n${body}`,
    );
    if (i % 3 === 0) {
      await Deno.writeTextFile(
        join(skill, "scripts", "call.py"),
        `import json, os, sys, urllib.request\n\nBASE = "https://api.service-${i}.com/v1"\nkey = os.environ["SERVICE_${i}_API_KEY"]\n\ndef call(path, body):\n    req = urllib.request.Request(BASE + path, data=json.dumps(body).encode(), headers={"Authorization": f"Bearer {key}"})\n    with urllib.request.urlopen(req) as resp:\n        return json.loads(resp.read())\n\nif __name__ == "__main__":\n    print(json.dumps(call(sys.argv[1], json.loads(sys.argv[2]))))\n`,
      );
    } else if (i % 3 === 1) {
      await Deno.writeTextFile(
        join(skill, "scripts", "list.sh"),
        `#!/bin/sh\nset -e\nBASE=https://api.service-${i}.com/v1\ncurl -fsS -H "Authorization: Bearer $SERVICE_${i}_TOKEN" "$BASE/items" | jq -r '.items[].id'\n`,
      );
    }
    if (i % 2 === 0) {
      await Deno.writeTextFile(
        join(skill, "references", "fields.md"),
        `# Fields\n\n| field | meaning |\n|---|---|\n` +
          Array.from({ length: 30 }, (_, j) => `| f${j} | field ${j} of Service ${i} |\n`).join(""),
      );
    }
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
  const many = await collection(ctx.tmp);
  const pair = await measurePair(
    { cmd: ctx.cli.cmd, args: [...ctx.cli.args, "validate", many], env },
    { cmd: ctx.cli.cmd, args: [...ctx.cli.args, "audit", many, "--fail-on", "none"], env },
    ctx.runs,
  );
  return [{
    name: `skills audit, a collection of ${COLLECTION} skills`,
    value: pair.value,
    baselineName: "skills validate of it",
    baseline: pair.baseline,
    target: "≤ 10 s",
    pass: pair.value.medianMs <= 10_000,
    note:
      "every file of every skill read and matched; the data-flow analysis of every script (a third Python, a third shell)",
  }, {
    name: `skills audit, one skill of ${FILES} files`,
    value,
    baselineName: "skills validate of it",
    baseline,
    target: "≤ 1 s",
    pass: value.medianMs <= 1000,
    note: "every file read whole and matched against every rule (endpoints listed as info)",
  }];
}
