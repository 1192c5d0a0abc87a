/**
 * The `fetch` every model request of an eval goes through, one per run ("scope": the
 * output run, its grading, one trigger run), so a run's requests are numbered in the order
 * that run made them, whatever the other jobs do meanwhile:
 *
 * - live: HTTP 429 (and 503) are retried after the server's `Retry-After` (or an
 *   exponential backoff), at most {@link MAX_ATTEMPTS} times; each request is counted;
 * - `--record DIR`: live, and each response body (never a request: the key travels in
 *   the headers, and no header is kept) is written to `DIR/<scope>.json` with its time;
 * - `--replay DIR`: no network at all; each request is answered from that file in order.
 *
 * A run's timing is kept in its tape too, so a replay reports the recorded times. The model
 * an eval talks to is the provider `skills chat` uses (SKILLS_MODEL and its key), each run
 * through its own tape; on `--replay` the provider comes from the recording, so no
 * configuration, key or network is needed.
 */

import { dirname, join } from "node:path";
import type { LanguageModel } from "ai";
import { SkillError } from "../../core/errors.ts";
import {
  createLanguageModel,
  type ProviderConfig,
  resolveProviderConfig,
} from "../chat/providers.ts";

const MAX_ATTEMPTS = 5;
const MAX_WAIT_MS = 60_000;

export type TapeMode =
  | { kind: "live" }
  | { kind: "record"; dir: string }
  | { kind: "replay"; dir: string };

interface TapeEntry {
  status: number;
  content_type: string;
  body: string;
  duration_ms: number;
}

interface TapeFile {
  scope: string;
  responses: TapeEntry[];
  /** What the run reported (timing.json), replayed as recorded. */
  timing?: Record<string, unknown>;
}

export interface TapeHooks {
  /** Each request sent to a provider (not on replay). */
  onRequest?: () => void;
  /** A rate-limited request about to be retried. */
  onRetry?: (status: number, waitMs: number, attempt: number) => void;
  /** Waits (tests and the bench pass a faster clock). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** How long to wait before retrying: `retry-after-ms`, `Retry-After` (seconds or a date), else 2^n s. */
export function retryDelay(headers: Headers, attempt: number, now = Date.now()): number {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) {
    return Math.min(ms, MAX_WAIT_MS);
  }
  const after = headers.get("retry-after");
  if (after !== null) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_WAIT_MS);
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.min(Math.max(0, date - now), MAX_WAIT_MS);
  }
  return Math.min(1000 * 2 ** (attempt - 1), MAX_WAIT_MS);
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/** A scope as a file path under the tape folder (its parts are names we chose). */
function tapePath(dir: string, scope: string): string {
  return join(dir, ...scope.split("/")) + ".json";
}

export class ModelTape {
  readonly fetch: typeof globalThis.fetch;
  readonly #entries: TapeEntry[] = [];
  #replay: TapeFile | undefined;
  #next = 0;

  private constructor(
    readonly scope: string,
    readonly mode: TapeMode,
    inner: typeof globalThis.fetch,
    readonly hooks: TapeHooks,
  ) {
    this.fetch = mode.kind === "replay"
      ? (input, init) => Promise.resolve(this.#replayed(input, init))
      : (input, init) => this.#live(inner, input, init);
  }

  static async open(
    scope: string,
    mode: TapeMode,
    hooks: TapeHooks = {},
    inner: typeof globalThis.fetch = globalThis.fetch,
  ): Promise<ModelTape> {
    const tape = new ModelTape(scope, mode, inner, hooks);
    if (mode.kind === "replay") tape.#replay = await readTape(mode.dir, scope);
    return tape;
  }

  /** The timing the recording kept for this run (replay only). */
  get recordedTiming(): Record<string, unknown> | undefined {
    return this.#replay?.timing;
  }

  /** Writes the recording (record mode; nothing otherwise). */
  async save(timing?: Record<string, unknown>): Promise<void> {
    if (this.mode.kind !== "record") return;
    const path = tapePath(this.mode.dir, this.scope);
    await Deno.mkdir(dirname(path), { recursive: true });
    const file: TapeFile = {
      scope: this.scope,
      responses: this.#entries,
      ...(timing ? { timing } : {}),
    };
    await Deno.writeTextFile(path, JSON.stringify(file, null, 2) + "\n");
  }

  #replayed(_input: RequestInfo | URL, init?: RequestInit): Response {
    init?.signal?.throwIfAborted();
    const entry = this.#replay?.responses[this.#next++];
    if (entry === undefined) {
      throw new SkillError(
        "not_found",
        `The recording has no response ${this.#next} for ${this.scope}`,
        {
          hint: "The evals or the skill changed since it was recorded: record again with --record",
        },
      );
    }
    return new Response(entry.body, {
      status: entry.status,
      headers: { "content-type": entry.content_type },
    });
  }

  async #live(
    inner: typeof globalThis.fetch,
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> {
    const sleep = this.hooks.sleep ?? defaultSleep;
    for (let attempt = 1;; attempt++) {
      const started = performance.now();
      this.hooks.onRequest?.();
      const response = await inner(input, init);
      const limited = response.status === 429 || response.status === 503;
      if (limited && attempt < MAX_ATTEMPTS) {
        await response.body?.cancel();
        const wait = retryDelay(response.headers, attempt);
        this.hooks.onRetry?.(response.status, wait, attempt);
        await sleep(wait, init?.signal ?? undefined);
        continue;
      }
      if (this.mode.kind !== "record") return response;
      const body = await response.text();
      const contentType = response.headers.get("content-type") ?? "application/json";
      this.#entries.push({
        status: response.status,
        content_type: contentType,
        body,
        duration_ms: Math.round(performance.now() - started),
      });
      return new Response(body, { status: response.status, headers: response.headers });
    }
  }
}

async function readTape(dir: string, scope: string): Promise<TapeFile> {
  const path = tapePath(dir, scope);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    throw new SkillError("not_found", `The recording in ${dir} has no run ${scope}`, {
      hint: "Replay with the evals, --runs and skills it was recorded with, or record again",
    });
  }
  const parsed = JSON.parse(text) as TapeFile;
  if (!Array.isArray(parsed?.responses)) {
    throw new SkillError("parse_error", `Invalid recording ${path}: no responses list`);
  }
  return parsed;
}

/** What `--record` writes beside the runs: the model, so a replay needs no configuration. */
interface TapeMeta {
  provider: string;
  model: string;
  format: string;
  kind: "outputs" | "triggers";
}

async function writeTapeMeta(dir: string, meta: TapeMeta): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "recording.json"), JSON.stringify(meta, null, 2) + "\n");
}

async function readTapeMeta(dir: string): Promise<TapeMeta> {
  const path = join(dir, "recording.json");
  try {
    return JSON.parse(await Deno.readTextFile(path)) as TapeMeta;
  } catch {
    throw new SkillError("not_found", `No recording in ${dir}: ${path} is missing`, {
      hint: "Record one first with --record DIR",
    });
  }
}

export interface EvalModels {
  provider: ProviderConfig;
  mode: TapeMode;
  /** A model whose requests go through the tape of `scope` (one run or one grading). */
  open(scope: string): Promise<{ model: LanguageModel; tape: ModelTape }>;
}

export async function evalModels(
  env: Readonly<Record<string, string | undefined>>,
  mode: TapeMode,
  kind: TapeMeta["kind"],
  hooks: TapeHooks = {},
): Promise<EvalModels> {
  let provider: ProviderConfig;
  if (mode.kind === "replay") {
    const meta = await readTapeMeta(mode.dir);
    provider = resolveProviderConfig(
      { SKILLS_MODEL: `${meta.provider}:${meta.model}`, SKILLS_BASE_URL: "http://127.0.0.1:9/v1" },
      { requireKey: false },
    );
  } else {
    provider = resolveProviderConfig(env);
  }
  if (mode.kind === "record") {
    await writeTapeMeta(mode.dir, {
      provider: provider.provider,
      model: provider.model,
      format: provider.format,
      kind,
    });
  }
  return {
    provider,
    mode,
    open: async (scope) => {
      const tape = await ModelTape.open(scope, mode, hooks);
      return { model: createLanguageModel(provider, tape.fetch), tape };
    },
  };
}
