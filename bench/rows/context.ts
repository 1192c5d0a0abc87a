/**
 * Fixed context overhead (tokens of system prompt + tool definitions sent before the first
 * user message) with 0 / 1 / 2 / 20 active skills, as `skills context --json` reports it
 * from the captured provider request. 20 = the two bundled skills plus 18 small installed
 * ones, registered with their real digests.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import type { BenchRow } from "../lib.ts";
import { type RegistryEntry, upsertEntry } from "../../src/core/records/registry.ts";
import { computeDigest } from "../../src/runtime/trust/file_hashes.ts";
import { updateRegistry } from "../../src/runtime/store/registry.ts";

const EXTRA_SKILLS = 18;

async function installSmallSkills(home: string, count: number): Promise<void> {
  await Deno.mkdir(home, { recursive: true });
  const now = new Date().toISOString();
  const entries: RegistryEntry[] = [];
  for (let i = 1; i <= count; i++) {
    const name = `ctx-skill-${String(i).padStart(2, "0")}`;
    const dir = join(home, name);
    await Deno.mkdir(join(dir, "scripts"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: Small benchmark skill ${i} that converts one unit into another.\n---\n\n# ${name}\n\nRun the \`convert\` script with --help first.\n`,
    );
    await Deno.writeTextFile(
      join(dir, "scripts", "convert.py"),
      "# /// script\n# dependencies = []\n# ///\nprint('ok')\n",
    );
    entries.push({
      name,
      name_canonical: name,
      source: { type: "local" as const, url: dir, subpath: "" },
      commit_sha: null,
      branch: null,
      tag: null,
      ref: null,
      installed_path: dir,
      trusted: true,
      trusted_digest: await computeDigest(dir),
      installed_at: now,
      updated_at: now,
    });
  }
  await updateRegistry(home, (registry) => {
    let next = registry;
    for (const entry of entries) next = upsertEntry(next, entry);
    return { registry: next, result: undefined };
  });
}

async function contextTokens(ctx: BenchContext, home: string, skills: string): Promise<number> {
  const output = await new Deno.Command(ctx.cli.cmd, {
    args: [...ctx.cli.args, "context", "--json"],
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: ctx.tmp,
      DENO_DIR: ctx.denoDir,
      SKILLS_HOME: home,
      AGENT_SKILLS: skills,
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (output.code !== 0) {
    throw new Error(`skills context failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  const doc = JSON.parse(new TextDecoder().decode(output.stdout));
  const expected = skills === "none"
    ? 0
    : skills === "all"
    ? 2 + EXTRA_SKILLS
    : skills.split(",").length;
  if (doc.active.length !== expected) {
    throw new Error(`expected ${expected} active skills, got ${doc.active.length}`);
  }
  return doc.total;
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const home = join(ctx.tmp, "context-home");
  await installSmallSkills(home, EXTRA_SKILLS);
  const cases: [string, string, number | null][] = [
    ["0 active skills", "none", 150],
    ["1 active skill (kalshi-markets)", "kalshi-markets", 700],
    ["2 active skills (+ hello-extended)", "kalshi-markets,hello-extended", 800],
    [`20 active skills (+ ${EXTRA_SKILLS} small installed)`, "all", null],
  ];
  const result: BenchRow[] = [];
  for (const [label, skills, budget] of cases) {
    const tokens = await contextTokens(ctx, home, skills);
    result.push({
      name: `fixed context overhead, ${label}`,
      value: { tokens },
      baselineName: null,
      baseline: null,
      target: budget === null ? "tokens, printed" : `≤ ${budget} tokens`,
      pass: budget === null ? null : tokens <= budget,
      note: "o200k_base, system prompt + tool definitions of the captured first request",
    });
  }
  return result;
}
