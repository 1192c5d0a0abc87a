/**
 * Benchmark helpers: run a command N times after a warm-up and report the median wall
 * time and the peak RSS (from GNU time's %M; none where /usr/bin/time is missing).
 */

export interface Sample {
  wallMs: number;
  peakRssKiB: number | null;
  code: number;
}

export interface Measured {
  medianMs: number;
  minMs: number;
  maxMs: number;
  peakRssMiB: number | null;
  runs: number;
  /** The machine's 1-minute load average when its sampling started (Linux). */
  load?: number;
  /** … and when it ended. */
  loadEnd?: number;
}

export interface BenchRow {
  /** What is measured, e.g. "skills --version". */
  name: string;
  value: Measured | { tokens: number } | null;
  baselineName: string | null;
  baseline: Measured | null;
  /**
   * A second baseline from the same run that no disk can slow down, beside a disk-bound one
   * (a `git clone` fsyncs its pack): the same clone with `core.fsync=none` into a tmpfs.
   * Where a row has one, its target must hold against both.
   */
  cpuBaselineName?: string;
  cpuBaseline?: Measured;
  /** The CPU model (/proc/cpuinfo's model name) the row was measured on. */
  cpu?: string;
  /** Human-readable target, e.g. "≤ 2× baseline". */
  target: string;
  /** When this row was measured (ISO); rows refreshed alone keep their own date. */
  measured_at?: string;
  /** The machine's 1-minute load average when it was measured (Linux). */
  load_average?: number;
  /** The bench/rows/ module that made it (a refresh replaces that module's rows). */
  module?: string;
  /** Whether the target holds for this run (null when there is nothing to judge). */
  pass: boolean | null;
  note?: string;
}

export interface CommandSpec {
  cmd: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
}

const HAS_GNU_TIME = (() => {
  try {
    return Deno.statSync("/usr/bin/time").isFile;
  } catch {
    return false;
  }
})();

export async function sample(spec: CommandSpec): Promise<Sample> {
  const useTime = HAS_GNU_TIME;
  const rssFile = useTime ? await Deno.makeTempFile() : "";
  const cmd = useTime ? "/usr/bin/time" : spec.cmd;
  const args = useTime ? ["-f", "%M", "-o", rssFile, spec.cmd, ...spec.args] : spec.args;
  const start = performance.now();
  const child = new Deno.Command(cmd, {
    args,
    cwd: spec.cwd,
    env: spec.env,
    stdin: spec.stdin === undefined ? "null" : "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  if (spec.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(spec.stdin));
    await writer.close();
  }
  const status = await child.status;
  const wallMs = performance.now() - start;
  let peakRssKiB: number | null = null;
  if (useTime) {
    const text = await Deno.readTextFile(rssFile).catch(() => "");
    const last = text.trim().split("\n").pop() ?? "";
    peakRssKiB = /^\d+$/.test(last) ? Number(last) : null;
    await Deno.remove(rssFile).catch(() => {});
  }
  return { wallMs, peakRssKiB, code: status.code };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

type SpecSource = CommandSpec | ((run: number) => CommandSpec);

async function checkedSample(
  spec: SpecSource,
  run: number,
  expectCode: number,
): Promise<Sample> {
  const current = typeof spec === "function" ? spec(run) : spec;
  const s = await sample(current);
  if (s.code !== expectCode) {
    throw new Error(
      `${current.cmd} ${current.args.join(" ")} exited ${s.code} (expected ${expectCode})`,
    );
  }
  return s;
}

/**
 * `skills run` reuses what it resolved once the skill's files are two seconds old (its run
 * plan: src/runtime/exec/run_plan.ts). Each command runs once, then again past that, so that
 * what is measured is a run of a skill that ran before — every run of a version but its first.
 */
export async function keepRunPlans(specs: readonly CommandSpec[]): Promise<void> {
  for (const spec of specs) await checkedSample(spec, -1, 0);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  for (const spec of specs) await checkedSample(spec, -1, 0);
}

/** The CPU time counters of /proc/stat's first line: [idle + iowait, all], off Linux undefined. */
function cpuTimes(): [number, number] | undefined {
  try {
    const fields = Deno.readTextFileSync("/proc/stat").split("\n")[0]!.trim().split(/\s+/)
      .slice(1, 9).map(Number);
    return [fields[3]! + fields[4]!, fields.reduce((sum, n) => sum + n, 0)];
  } catch {
    return undefined;
  }
}

/** Idle share of the CPUs that counts as a settled machine. */
const SETTLED_IDLE = 0.9;

/**
 * Waits until the machine is settled — the CPUs at least 90% idle over a quarter second — or
 * 15 s have passed: the work a row before left running (a registry flushing, 32 sessions'
 * processes ending, the kernel writing back a thousand skills) is not measured as this
 * row's. Every measurement starts with it, so a figure and its baseline wait alike.
 */
export async function settle(maxMs = 15_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let before = cpuTimes();
  if (before === undefined) return;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = cpuTimes()!;
    const total = after[1] - before[1];
    if (total > 0 && (after[0] - before[0]) / total >= SETTLED_IDLE) return;
    before = after;
  }
}

/**
 * Runs `spec` once to warm up, then `runs` times; fails loudly if the command fails. A
 * function gives each run its own spec (run -1 is the warm-up), e.g. a fresh target dir.
 */
export async function measure(spec: SpecSource, runs = 7, expectCode = 0): Promise<Measured> {
  await settle();
  const load = loadAverage();
  const samples: Sample[] = [];
  for (let i = -1; i < runs; i++) {
    const s = await checkedSample(spec, i, expectCode);
    if (i >= 0) samples.push(s);
  }
  return summarize(samples, runs, load, loadAverage());
}

/**
 * A value and its baseline, sampled alternately (baseline, value, baseline, ...) after one
 * warm-up of each, so that a machine getting busier or quieter during the run weighs on
 * both sides of the ratio alike.
 */
export async function measurePair(
  baseline: SpecSource,
  value: SpecSource,
  runs = 7,
): Promise<{ baseline: Measured; value: Measured }> {
  const [b, v] = await measureAlternately([baseline, value], runs);
  return { baseline: b!, value: v! };
}

/**
 * Several commands sampled in turn (first, second, ..., first, ...) after one warm-up of
 * each, for rows that share one baseline: each figure in the order of `specs`.
 */
export async function measureAlternately(
  specs: readonly SpecSource[],
  runs = 7,
): Promise<Measured[]> {
  await settle();
  const load = loadAverage();
  const samples: Sample[][] = specs.map(() => []);
  for (let i = -1; i < runs; i++) {
    for (const [at, spec] of specs.entries()) {
      const s = await checkedSample(spec, i, 0);
      if (i >= 0) samples[at]!.push(s);
    }
  }
  const loadEnd = loadAverage();
  return samples.map((taken) => summarize(taken, runs, load, loadEnd));
}

function summarize(
  samples: readonly Sample[],
  runs: number,
  load?: number,
  loadEnd?: number,
): Measured {
  const walls = samples.map((s) => s.wallMs);
  const rss = samples.map((s) => s.peakRssKiB).filter((v): v is number => v !== null);
  return {
    medianMs: round(median(walls)),
    minMs: round(Math.min(...walls)),
    maxMs: round(Math.max(...walls)),
    peakRssMiB: rss.length ? round(Math.max(...rss) / 1024) : null,
    runs,
    ...(load === undefined ? {} : { load }),
    ...(loadEnd === undefined ? {} : { loadEnd }),
  };
}

/**
 * The machine's 1-minute load average now (Linux; undefined elsewhere): on a shared 2-core
 * machine a load of 15 stretches every figure several times over, so each figure keeps it.
 */
export function loadAverage(): number | undefined {
  try {
    return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  } catch {
    return undefined;
  }
}

/** The CPU's model name (/proc/cpuinfo), so a figure says which machine made it. */
export function cpuModel(): string {
  try {
    const line = Deno.readTextFileSync("/proc/cpuinfo").split("\n")
      .find((l) => l.startsWith("model name"));
    return line?.split(":").slice(1).join(":").trim() || "unknown";
  } catch {
    return `unknown (${Deno.build.os}/${Deno.build.arch})`;
  }
}

/**
 * A fresh scratch folder on a tmpfs (/dev/shm) where there is one, else under `fallback`: where
 * the CPU-bound baselines write, so that no disk weighs on them.
 */
export function tmpfsDir(fallback: string): string {
  try {
    if (Deno.statSync("/dev/shm").isDirectory) {
      return Deno.makeTempDirSync({ dir: "/dev/shm", prefix: "skills-bench-" });
    }
  } catch { /* no tmpfs */ }
  return Deno.makeTempDirSync({ dir: fallback });
}

/** `ratio ≤ budget` against the row's baseline and, where it has one, its CPU-bound baseline. */
export function withinRatio(value: Measured, budget: number, ...baselines: Measured[]): boolean {
  return baselines.every((b) => value.medianMs <= budget * b.medianMs);
}

export function round(value: number): number {
  return Math.round(value * 10) / 10;
}
