/** `skills ps [--all] [--json]`: the services that keep running (runtime/services). */

import { inert } from "../../core/terminal_text.ts";
import type { Context } from "../../core/io.ts";
import { listServices } from "../../runtime/services/control.ts";
import { type ListedService, pendingChanges } from "../../runtime/services/state.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { psSpec } from "../specs/ps.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(psSpec, ({ values, common }) => ({
  ...common,
  all: values.all === true,
}));

type PsOptions = OptionsOf<typeof parse>;

export async function run(options: PsOptions, ctx: Context): Promise<number> {
  const listed = (await listServices(skillsHome(ctx.env, ctx.cwd), ctx.env))
    .filter((service) => options.all || service.alive);
  if (options.json) {
    writeJson(ctx, { services: listed.map(asJson) });
    return 0;
  }
  if (listed.length === 0) {
    ctx.stderr.write(
      options.all ? "No services.\n" : "No services running (skills ps --all lists ended ones).\n",
    );
    return 0;
  }
  for (const service of listed) ctx.stdout.write(describe(service));
  return 0;
}

function asJson(service: ListedService) {
  return {
    id: service.id,
    skill: service.skill,
    script: service.script,
    args: service.args,
    status: service.alive ? "running" : "ended",
    pid: service.alive ? service.pid : null,
    urls: service.ports.map((port) => `http://127.0.0.1:${port.host}/`),
    ports: service.ports,
    started_at: service.started_at,
    uptime_seconds: uptimeSeconds(service),
    cwd: service.cwd,
    live: service.live,
    idle_seconds: service.idle_seconds,
    max_seconds: service.max_seconds,
    declared: service.declared ?? null,
    // The receipt so far: what it wrote outside its live folders, applied when it stops.
    pending: service.alive ? pendingChanges(service) ?? null : null,
    ended_at: service.ended_at ?? null,
    end_reason: service.end_reason ?? null,
    receipt: service.receipt ?? null,
  };
}

function uptimeSeconds(service: ListedService): number {
  const end = service.alive ? Date.now() : Date.parse(service.ended_at ?? service.started_at);
  return Math.max(0, Math.round((end - Date.parse(service.started_at)) / 1000));
}

/** `1h 02m`, `3m 05s`, `12s`. */
function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/** One service's lines: what, where, how long, what it writes (names are the skill's: inert). */
function describe(service: ListedService): string {
  const head = `${service.id}  ${inert(service.skill)} ${inert(service.script)}  ${
    service.alive
      ? `running ${duration(uptimeSeconds(service))}`
      : `ended (${inert(service.end_reason ?? "unknown")}) after ${
        duration(uptimeSeconds(service))
      }`
  }\n`;
  const lines = [
    ...service.ports.map((port) =>
      `  http://127.0.0.1:${port.host}/${
        port.host === port.sandbox ? "" : `  (port ${port.sandbox} in its sandbox)`
      }`
    ),
    `  workspace ${inert(service.cwd)}${
      service.live.length === 0
        ? ""
        : `; writes live: ${service.live.map((dir) => inert(dir)).join(", ")}`
    }`,
  ];
  const pending = service.alive ? pendingChanges(service, 5) : undefined;
  if (pending !== undefined && pending.total > 0) {
    const more = pending.total > pending.paths.length ? `, … (${pending.total} in all)` : "";
    lines.push(
      `  written so far, applied when it stops: ${
        pending.paths.map((p) => inert(p)).join(", ")
      }${more}`,
    );
  }
  const changes = receiptChanges(service.receipt);
  if (changes !== undefined) lines.push(`  applied when it stopped: ${changes}`);
  return `${head}${lines.join("\n")}\n`;
}

/** `2 created, 1 changed` from a finished service's receipt, when it has a workspace diff. */
function receiptChanges(receipt: unknown): string | undefined {
  const files = (receipt as { files?: Record<string, unknown> } | undefined)?.files;
  if (files === undefined || files === null) return undefined;
  const count = (key: string) => Array.isArray(files[key]) ? files[key].length : 0;
  const parts = (["created", "changed", "deleted"] as const)
    .map((key) => [count(key), key] as const)
    .filter(([n]) => n > 0)
    .map(([n, key]) => `${n} ${key}`);
  return parts.length === 0 ? "no changes" : parts.join(", ");
}
