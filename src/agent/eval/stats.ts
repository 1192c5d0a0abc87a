/**
 * The numbers of an eval (pure): mean and sample standard deviation as the guide's
 * `benchmark.json` reports them, trigger precision/recall/F1, and the fixed, seeded,
 * stratified 60/40 train/validation split of a query set.
 */

interface Stat {
  mean: number;
  stddev: number;
  min: number;
  max: number;
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** Mean, sample standard deviation (n − 1; 0 for one value), min and max, to 4 places. */
export function statOf(values: readonly number[]): Stat {
  if (values.length === 0) return { mean: 0, stddev: 0, min: 0, max: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.length > 1
    ? values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1)
    : 0;
  return {
    mean: round4(mean),
    stddev: round4(Math.sqrt(variance)),
    min: round4(Math.min(...values)),
    max: round4(Math.max(...values)),
  };
}

interface RunNumbers {
  pass_rate: number;
  time_seconds: number;
  tokens: number;
}

export interface ConfigSummary {
  pass_rate: Stat;
  time_seconds: Stat;
  tokens: Stat;
}

export function configSummary(runs: readonly RunNumbers[]): ConfigSummary {
  return {
    pass_rate: statOf(runs.map((r) => r.pass_rate)),
    time_seconds: statOf(runs.map((r) => r.time_seconds)),
    tokens: statOf(runs.map((r) => r.tokens)),
  };
}

/** The guide's `delta`: the skill's configuration minus the baseline's, by mean. */
export function deltaOf(skill: ConfigSummary, baseline: ConfigSummary) {
  return {
    pass_rate: round4(skill.pass_rate.mean - baseline.pass_rate.mean),
    time_seconds: round4(skill.time_seconds.mean - baseline.time_seconds.mean),
    tokens: round4(skill.tokens.mean - baseline.tokens.mean),
  };
}

const TRIGGER_THRESHOLD = 0.5;
const SPLIT_SEED = 42;
const VALIDATION_SHARE = 0.4;

export type Split = "train" | "validation";

/** A small seeded generator (mulberry32): the same split on every machine and every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Each query's split, by index: within the should-trigger and the should-not-trigger
 * queries apart, a seeded shuffle puts 40 % (at least one of a class of two or more) in
 * validation, so both splits hold a proportional mix and the split never changes.
 */
export function splitQueries(
  shouldTrigger: readonly boolean[],
  seed = SPLIT_SEED,
): Split[] {
  const random = seeded(seed);
  const splits: Split[] = shouldTrigger.map(() => "train");
  for (const label of [true, false]) {
    const members = shouldTrigger.flatMap((s, i) => s === label ? [i] : []);
    for (let i = members.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [members[i], members[j]] = [members[j]!, members[i]!];
    }
    const count = members.length < 2
      ? 0
      : Math.max(1, Math.floor(members.length * VALIDATION_SHARE));
    for (const index of members.slice(0, count)) splits[index] = "validation";
  }
  return splits;
}

export interface TriggerMetrics {
  queries: number;
  passed: number;
  pass_rate: number;
  true_positives: number;
  false_positives: number;
  false_negatives: number;
  true_negatives: number;
  /** 1 when nothing triggered (no trigger was wrong). */
  precision: number;
  /** 1 when no query should trigger. */
  recall: number;
  f1: number;
}

/** Precision, recall and F1 of the queries' verdicts (triggered = rate ≥ the threshold). */
export function triggerMetrics(
  results: readonly { should_trigger: boolean; trigger_rate: number; pass: boolean }[],
): TriggerMetrics {
  let tp = 0, fp = 0, fn = 0, tn = 0;
  for (const r of results) {
    const triggered = r.trigger_rate >= TRIGGER_THRESHOLD;
    if (r.should_trigger && triggered) tp++;
    else if (r.should_trigger) fn++;
    else if (triggered) fp++;
    else tn++;
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  const passed = results.filter((r) => r.pass).length;
  return {
    queries: results.length,
    passed,
    pass_rate: results.length === 0 ? 0 : round4(passed / results.length),
    true_positives: tp,
    false_positives: fp,
    false_negatives: fn,
    true_negatives: tn,
    precision: round4(precision),
    recall: round4(recall),
    f1: round4(f1),
  };
}

/** Whether a query passed: should trigger and rate ≥ 0.5, or should not and rate < 0.5. */
export function queryPasses(shouldTrigger: boolean, rate: number): boolean {
  return shouldTrigger ? rate >= TRIGGER_THRESHOLD : rate < TRIGGER_THRESHOLD;
}
