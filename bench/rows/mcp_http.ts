/**
 * `skills mcp --http` under load: 32 concurrent sessions (the official MCP SDK client over
 * Streamable HTTP, bearer token), each doing `tools/list` then `script_run` of
 * hello-extended's advanced_greeting. Latency is per session, from the first request to
 * the script's result (connection set-up excluded), over a few rounds; p50, p99 and the
 * error count (target: 0) are reported. Baseline: one session alone doing the same.
 */

import { join } from "node:path";
import type { BenchContext } from "../main.ts";
import type { BenchRow, Measured } from "../lib.ts";
import { connectHttp, startHttpMcp, TEST_TOKEN } from "../../tests/mcp/http_fixture.ts";
import { envelopeOf } from "../../tests/helpers/mcp_client.ts";

const SESSIONS = 32;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function measured(values: number[], at: number): Measured {
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    medianMs: round(percentile(values, at)),
    minMs: round(Math.min(...values)),
    maxMs: round(Math.max(...values)),
    peakRssMiB: null,
    runs: values.length,
  };
}

export async function rows(ctx: BenchContext): Promise<BenchRow[]> {
  const home = join(ctx.tmp, "mcp-http-home");
  await Deno.mkdir(home, { recursive: true });
  await using server = await startHttpMcp({
    HOME: ctx.tmp,
    DENO_DIR: ctx.denoDir,
    SKILLS_HOME: home,
    AGENT_SKILLS: "hello-extended",
    SKILLS_MCP_TOKEN: TEST_TOKEN,
  });
  let errors = 0;

  /** One session's work: tools/list, then the hello script; its latency in ms. */
  const session = async (): Promise<number | null> => {
    await using connection = await connectHttp(server.url, TEST_TOKEN);
    const started = performance.now();
    try {
      const { tools } = await connection.client.listTools();
      if (!tools.some((t) => t.name === "script_run")) throw new Error("no script_run");
      const run = envelopeOf(
        await connection.client.callTool({
          name: "script_run",
          arguments: {
            skill_name: "hello-extended",
            script_name: "advanced_greeting",
            args: ["--name", "Ada"],
          },
        }),
      );
      if (!run.success) throw new Error(JSON.stringify(run));
      return performance.now() - started;
    } catch (error) {
      errors++;
      console.error(`bench: mcp_http: ${(error as Error).message}`);
      return null;
    }
  };

  await session(); // warm-up: bundled skills materialised, caches filled
  const alone: number[] = [];
  for (let i = 0; i < Math.min(ctx.runs, 5); i++) {
    const latency = await session();
    if (latency !== null) alone.push(latency);
  }
  const concurrent: number[] = [];
  const rounds = Math.min(ctx.runs, 3);
  for (let round = 0; round < rounds; round++) {
    const latencies = await Promise.all(Array.from({ length: SESSIONS }, session));
    for (const latency of latencies) if (latency !== null) concurrent.push(latency);
  }
  if (concurrent.length === 0 || alone.length === 0) {
    throw new Error(`skills mcp --http: every session failed\n${server.stderr()}`);
  }

  const p50 = measured(concurrent, 50);
  const p99 = measured(concurrent, 99);
  const baseline = measured(alone, 50);
  console.error(
    `bench: mcp_http: ${SESSIONS} sessions × ${rounds} rounds: p50 ${p50.medianMs} ms, ` +
      `p99 ${p99.medianMs} ms, errors ${errors} (one session alone: ${baseline.medianMs} ms)`,
  );
  const name = `skills mcp --http, ${SESSIONS} concurrent sessions: tools/list + script_run`;
  const note = `${concurrent.length} sessions measured, errors: ${errors}`;
  return [
    {
      name: `${name}, p50`,
      value: p50,
      baselineName: "one session alone, p50",
      baseline,
      target: "errors = 0",
      pass: errors === 0,
      note,
    },
    {
      name: `${name}, p99`,
      value: p99,
      baselineName: "one session alone, p50",
      baseline,
      target: "errors = 0; p99 ≤ 10 s",
      pass: errors === 0 && p99.medianMs <= 10_000,
      note,
    },
  ];
}
