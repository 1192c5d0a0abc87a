/**
 * Live catalogs (`skills mcp`, `skills chat`, the library follow skills added and removed
 * meanwhile). Two rows: the cost of one look when nothing changed — paid twice a second and
 * before every tool call — against loading the catalog (what a look saves), over 200
 * installed skills; and how long after `skills add` exits an MCP client over stdio receives
 * `notifications/tools/list_changed` (the poll interval plus one reload), against the
 * `skills add` itself.
 */

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { BenchContext } from "../main.ts";
import type { BenchRow, Measured } from "../lib.ts";
import { median } from "../lib.ts";
import { CatalogWatch } from "../../src/agent/surface/catalog_watch.ts";
import { loadCatalog } from "../../src/runtime/catalog/catalog.ts";
import { installSkill, skillMd } from "../../tests/helpers/installed_skills.ts";

const SKILLS = 200;
const LOOKS = 2000;

function measured(values: number[], digits = 1): Measured {
  const round = (ms: number) => Math.round(ms * 10 ** digits) / 10 ** digits;
  return {
    medianMs: round(median(values)),
    minMs: round(Math.min(...values)),
    maxMs: round(Math.max(...values)),
    peakRssMiB: null,
    runs: values.length,
  };
}

async function lookRow(ctx: BenchContext): Promise<BenchRow> {
  const home = join(ctx.tmp, "live-catalog-home");
  for (let i = 0; i < SKILLS; i++) {
    const name = `skill-${i}`;
    await installSkill(home, name, { "SKILL.md": skillMd(name, [], `# ${name}`) });
  }
  await loadCatalog(home); // bundled skills materialised, listing cache filled
  const loads: number[] = [];
  for (let i = 0; i < Math.min(ctx.runs, 7); i++) {
    const started = performance.now();
    await loadCatalog(home);
    loads.push(performance.now() - started);
  }
  const initial = await loadCatalog(home);
  const watch = new CatalogWatch({
    home,
    initial: { catalog: initial, active: new Set() },
    load: async () => ({ catalog: await loadCatalog(home), active: new Set() }),
  });
  await watch.check(); // the first look loads once
  const looks: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    for (let i = 0; i < LOOKS; i++) await watch.check();
    looks.push((performance.now() - started) / LOOKS);
  }
  const value = measured(looks, 4);
  return {
    name: `catalog watch: one look with nothing changed (${SKILLS} installed skills)`,
    value,
    baselineName: "loading the catalog (listing cache warm)",
    baseline: measured(loads),
    target: "≤ 0.1 ms",
    pass: value.medianMs <= 0.1,
    note: `mean of ${LOOKS} looks per run`,
  };
}

async function notifyRow(ctx: BenchContext): Promise<BenchRow> {
  const root = join(ctx.tmp, "live-catalog-mcp");
  const home = join(root, "home");
  await Deno.mkdir(home, { recursive: true });
  const env = { HOME: ctx.tmp, DENO_DIR: ctx.denoDir, SKILLS_HOME: home, AGENT_SKILLS: "all" };
  const transport = new StdioClientTransport({
    command: ctx.cli.cmd,
    args: [...ctx.cli.args, "mcp"],
    env: { ...env, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    cwd: root,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  let changed = Promise.withResolvers<number>();
  client.setNotificationHandler(
    ToolListChangedNotificationSchema,
    () => void changed.resolve(performance.now()),
  );
  await client.connect(transport);
  const adds: number[] = [];
  const delays: number[] = [];
  try {
    for (let i = 0; i < Math.min(ctx.runs, 5); i++) {
      const name = `late-${i}`;
      const source = join(root, "sources", name);
      await Deno.mkdir(source, { recursive: true });
      await Deno.writeTextFile(join(source, "SKILL.md"), skillMd(name, [], `# ${name}`));
      changed = Promise.withResolvers<number>();
      const started = performance.now();
      const add = await new Deno.Command(ctx.cli.cmd, {
        args: [...ctx.cli.args, "add", source, "--yes"],
        env,
        cwd: root,
        stdout: "null",
        stderr: "null",
      }).output();
      const exited = performance.now();
      if (!add.success) throw new Error(`skills add ${name} failed`);
      adds.push(exited - started);
      delays.push(Math.max(0, (await changed.promise) - exited));
    }
  } finally {
    await client.close();
  }
  const value = measured(delays);
  return {
    name: "skills mcp (stdio): skills add exits → tools/list_changed received",
    value,
    baselineName: "the skills add itself",
    baseline: measured(adds),
    target: "≤ 1 s",
    pass: value.medianMs <= 1000,
  };
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  return [await lookRow(ctx), await notifyRow(ctx)];
}
