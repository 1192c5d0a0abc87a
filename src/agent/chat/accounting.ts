/**
 * Token accounting from real requests: the configured provider client builds the request
 * it would send (same model step as the chat loop), a capturing `fetch` records the body
 * and answers with an empty response — no network — and the body is tokenized.
 *
 * `skills context`'s report is kept (runtime/store/keyed_cache.ts, `.cache/context/`) under
 * the SHA-256 of everything it is computed from: the provider's configuration, the system
 * prompt and tool definitions, every activation's result and mounted tools, and the hash of
 * the code that captures and counts (src/generated/accounting_build.js: this folder and
 * deno.lock, which pins the AI SDK and the tokenizer). The activations still run — the
 * skills are checked and read as before — but an unchanged set is counted without loading
 * the AI SDK (~0.35 s of CPU) or the tokenizer. Anything changed is another key.
 *
 * The tokenizer (o200k_base from the compact vocabulary of ./o200k.ts: ~4 MiB of typed
 * arrays, indexed on the first count) is imported once the requests are captured. Where it
 * loaded mattered while it was gpt-tokenizer's own tables (~20 MiB of objects that all
 * survive, doubling V8's young generation once loaded early, twice loaded late: 181 against
 * 184 MiB of peak RSS for 1,000 skills); typed arrays live outside that heap.
 */

import type { ModelMessage } from "ai";
import type { CompletedToolCall } from "./chat_loop.ts";
import type { ProviderConfig } from "./provider_config.ts";
import type { RequestTokens } from "./tokens.ts";
import type { ToolDefinition, ToolSurface } from "../surface/tool_surface.ts";
// @ts-types="../../generated/accounting_build.d.ts"
import { ACCOUNTING_BUILD } from "../../generated/accounting_build.js";
import { cacheKey, readKeyed, writeKeyed } from "../../runtime/store/keyed_cache.ts";

/**
 * How many activations one captured request carries (see measureContext). Each capture
 * costs the provider client's own setup garbage whatever its size, so fewer, larger ones
 * leave less: 1,000 skills in one request peaked ~2 MiB lower than in ten.
 */
const ACTIVATION_BATCH = 1000;

/** The first user message used when measuring; only its own tokens depend on it. */
const PROBE_MESSAGE = "Hello";

/** Builds and captures the request for `messages` with the surface's prompt and tools. */
export async function captureRequestBody(
  config: ProviderConfig,
  surface: Pick<ToolSurface, "systemPrompt" | "listTools">,
  messages: ModelMessage[],
): Promise<unknown> {
  // Here, not at the top: a report kept for these inputs needs no provider client.
  const { captureFetch, createLanguageModel } = await import("./providers.ts");
  const { runModelStep } = await import("./model_step.ts");
  const capture = captureFetch(config.format);
  const model = createLanguageModel(config, capture.fetch);
  await runModelStep({
    model,
    instructions: surface.systemPrompt,
    messages,
    tools: surface.listTools(),
    stream: true,
    maxRetries: 0,
  });
  const first = capture.requests[0];
  if (first === undefined) throw new Error("the provider client sent no request");
  return first.body;
}

/** Tokens of the next request: the fixed overhead and the conversation so far. */
export async function measureConversation(
  config: ProviderConfig,
  surface: Pick<ToolSurface, "systemPrompt" | "listTools">,
  messages: ModelMessage[],
): Promise<RequestTokens> {
  const probe: ModelMessage = { role: "user", content: PROBE_MESSAGE };
  const withProbe = await captureRequestBody(config, surface, [...messages, probe]);
  const { requestTokens } = await import("./tokens.ts");
  const tokens = requestTokens(withProbe);
  if (messages.length === 0) {
    return { ...tokens, conversation: 0, total: tokens.fixed };
  }
  // The probe is not part of the conversation: subtract what it adds.
  const probeOnly = requestTokens(await captureRequestBody(config, surface, [probe]));
  const conversation = Math.max(0, tokens.conversation - probeOnly.conversation);
  return { ...tokens, conversation, total: tokens.fixed + conversation };
}

interface SkillCost {
  name: string;
  /**
   * The skill's share of the fixed overhead: its own catalog entry (prompt element and its
   * name in the tool schemas); with a single active skill, the total minus the total
   * without it.
   */
  fixed: number;
  /** What one `activate_skill` call and its result add to the next request. */
  activation: number;
  /** Tools mounted by the activation (typed toolsets). */
  toolsAdded: string[];
  /** Set when the activation failed (its error envelope was measured). */
  activationError?: string;
}

interface ContextReport {
  model: string;
  format: ProviderConfig["format"];
  /** The tokenizer's encoding (`o200k_base`). */
  encoding: string;
  active: string[];
  fixed: RequestTokens;
  tools: string[];
  skills: SkillCost[];
}

/** Where `skills context` keeps its reports, under `$SKILLS_HOME/.cache/`. */
const REPORT_FOLDER = "context";
/** Reports kept: the last few sets of skills measured (each changed input writes another). */
const KEEP_REPORTS = 16;
/** A kept report larger than this is not read (1,000 skills: ~150 KB). */
const MAX_REPORT_BYTES = 16 * 1024 * 1024;

/**
 * Measures the fixed overhead with `active` skills, each skill's share of it, and what
 * each activation adds. `openSurface` builds a fresh surface for a set of active skills.
 * With `home`, the report is kept under the digest of its inputs and read back for the same
 * inputs (see the module's comment).
 *
 * Linear in the number of skills: each activation is run once, on one shared surface that
 * is rolled back after every activation; the fixed request is captured once; a skill's
 * share is the tokens of its own entry (its `<skill>` element in the prompt and its name in
 * the tool schemas); the activations are measured as the messages and tools they add to a
 * request, one captured request per batch. Every request is counted once all are captured.
 */
export async function measureContext(
  config: ProviderConfig,
  active: readonly string[],
  openSurface: (active: ReadonlySet<string>) => Promise<ToolSurface>,
  options: { home?: string } = {},
): Promise<ContextReport> {
  const surface = await openSurface(new Set(active));
  try {
    const activations = await activateEach(surface, active);
    const without = active.length === 1 ? await surfaceWithNone(openSurface) : undefined;
    const fixedInputs = { systemPrompt: surface.systemPrompt, tools: surface.listTools() };
    const key = options.home === undefined
      ? undefined
      : reportKey(config, active, fixedInputs, activations, without);
    const kept = key === undefined
      ? undefined
      : readKeyed(options.home!, REPORT_FOLDER, key, MAX_REPORT_BYTES);
    if (isReport(kept, active)) return kept;
    const report = await countReport(config, active, fixedInputs, activations, without);
    if (key !== undefined) writeKeyed(options.home!, REPORT_FOLDER, key, report, KEEP_REPORTS);
    return report;
  } finally {
    await surface.close();
  }
}

/** What a request is built from: the system prompt and the tool definitions. */
interface FixedInputs {
  systemPrompt: string;
  tools: ToolDefinition[];
}

/** The key of a report: the SHA-256 of everything it is computed from. */
function reportKey(
  config: ProviderConfig,
  active: readonly string[],
  fixed: FixedInputs,
  activations: readonly Activation[],
  without: FixedInputs | undefined,
): string {
  return cacheKey([
    "context-report/1",
    ACCOUNTING_BUILD,
    [config.provider, config.model, config.label, config.format, config.baseURL ?? null],
    PROBE_MESSAGE,
    active,
    fixed,
    activations.map((a) => [a.name, a.record.result, a.added]),
    without ?? null,
  ]);
}

/** Whether a kept value has the report's shape, for the same skills (it is read from disk). */
function isReport(value: unknown, active: readonly string[]): value is ContextReport {
  const report = value as Partial<ContextReport> | null | undefined;
  return typeof report === "object" && report !== null && typeof report.model === "string" &&
    typeof report.format === "string" && typeof report.encoding === "string" &&
    Array.isArray(report.active) && report.active.join("\n") === active.join("\n") &&
    typeof report.fixed === "object" && report.fixed !== null &&
    Array.isArray(report.tools) && Array.isArray(report.skills) &&
    report.skills.length === active.length;
}

/** The report computed: each request captured from the provider client, then counted. */
async function countReport(
  config: ProviderConfig,
  active: readonly string[],
  fixedInputs: FixedInputs,
  activations: readonly Activation[],
  without: FixedInputs | undefined,
): Promise<ContextReport> {
  const probe: ModelMessage[] = [{ role: "user", content: PROBE_MESSAGE }];
  const stub = (inputs: FixedInputs) => ({
    systemPrompt: inputs.systemPrompt,
    listTools: () => inputs.tools,
  });
  const fixedBody = await captureRequestBody(config, stub(fixedInputs), probe);
  const withoutBody = without === undefined
    ? undefined
    : await captureRequestBody(config, stub(without), probe);
  // In batches: each batch's activations are measured with one captured request.
  const wires: ActivationWire[] = [];
  for (let i = 0; i < activations.length; i += ACTIVATION_BATCH) {
    wires.push(await captureActivations(config, probe, activations.slice(i, i + ACTIVATION_BATCH)));
  }
  const tokens = await import("./tokens.ts");
  const fixed = tokens.requestTokens(fixedBody);
  const shares = withoutBody !== undefined
    ? [fixed.fixed - tokens.requestTokens(withoutBody).fixed]
    : skillShares(stub(fixedInputs), active, tokens.countTokens);
  const costs = wires.flatMap((wire) => activationCosts(wire, tokens));
  const skills = activations.map((a, index): SkillCost => ({
    name: a.name,
    fixed: shares[index]!,
    activation: costs[index]!,
    toolsAdded: a.added.map((t) => t.name),
    ...(a.record.result.success ? {} : { activationError: a.record.result.message }),
  }));
  return {
    model: config.label,
    format: config.format,
    encoding: tokens.ENCODING,
    active: [...active],
    fixed,
    tools: fixedInputs.tools.map((t) => t.name),
    skills,
  };
}

interface Activation {
  name: string;
  record: CompletedToolCall;
  /** The tools the activation mounted. */
  added: ToolDefinition[];
}

/**
 * Activates each skill on `surface` in turn, rolling the surface back after each one. The
 * skills with toolsets go last, their hosts asked in the background meanwhile: a first
 * `context` in a fresh home then does not wait on each host in a row. Each activation
 * starts from the same rolled-back surface, so the order changes no result; they are
 * returned in the order of `active`.
 */
async function activateEach(surface: ToolSurface, active: readonly string[]) {
  const prepared = surface.prepareToolsets?.(active);
  const preparing = prepared?.names ?? new Set<string>();
  // Turns only while a host is being asked, and at most one every TURN_EVERY_MS: each costs
  // the runtime a hop (~0.1-1 ms), more than reading a skill's instructions.
  let asking = preparing.size > 0;
  prepared?.done.then(() => asking = false);
  let turned = performance.now();
  const order = [
    ...active.filter((name) => !preparing.has(name)),
    ...active.filter((name) => preparing.has(name)),
  ];
  const start = surface.checkpoint();
  const before = new Set(surface.listTools().map((t) => t.name));
  // The tool list is copied only when an activation changed it (a skill with toolsets):
  // with a thousand skills, the activate_skill schema alone is large.
  let changed = false;
  const unsubscribe = surface.onToolsChanged(() => changed = true);
  const activations: Activation[] = [];
  for (const name of order) {
    // The activations before the hosts' own are synchronous work: give the event loop turns
    // between them, so the hosts' pipes are served while the other skills are activated.
    if (asking && performance.now() - turned >= TURN_EVERY_MS) {
      await eventLoopTurn();
      turned = performance.now();
    }
    changed = false;
    const args = { name };
    const result = await surface.callTool("activate_skill", args);
    const added = changed ? surface.listTools().filter((t) => !before.has(t.name)) : [];
    await surface.restore(start);
    const record = { id: "call_activate", name: "activate_skill", arguments: args, result };
    activations.push({ name, record: { ...record, duration_ms: 0 }, added });
  }
  unsubscribe();
  const byName = new Map(activations.map((a) => [a.name, a]));
  return active.map((name) => byName.get(name)!);
}

/** The least time between two turns of the event loop while toolset hosts are asked. */
const TURN_EVERY_MS = 2;

/**
 * One turn of the event loop in which I/O under way (a toolset host's process and pipes) is
 * served: an asynchronous file-system call (~0.01 ms) leaves the runtime idle until it is
 * answered, and an idle runtime polls its I/O. (A message to a port of our own does not:
 * the runtime stays busy and polls I/O only every few dozen tasks; a `setTimeout(0)` does,
 * but costs ~2 ms.) tests/agent/chat/tokens_test.ts holds it to serving a process.
 */
async function eventLoopTurn(): Promise<void> {
  await Deno.realPath("/").catch(() => {});
}

/** A batch of activations and the request that carries them, captured, not yet counted. */
interface ActivationWire {
  activations: readonly Activation[];
  probeLength: number;
  body: unknown;
}

/**
 * One request carrying every activation of a batch after the probe: its tool call, its
 * result and the tools it mounts, as the provider client formats them (that formatting is
 * what counts, and a capture costs a few ms).
 */
async function captureActivations(
  config: ProviderConfig,
  probe: ModelMessage[],
  activations: readonly Activation[],
): Promise<ActivationWire> {
  const { assistantMessage, toolResultMessage } = await import("./chat_loop.ts");
  const messages: ModelMessage[] = [...probe];
  for (const { record } of activations) {
    const call = { id: record.id, name: record.name, input: record.arguments };
    messages.push(assistantMessage("", [call]), toolResultMessage([record]));
  }
  const mounted = activations.flatMap((a) => a.added);
  const stub = { systemPrompt: "", listTools: () => mounted };
  const body = await captureRequestBody(config, stub, messages);
  return { activations, probeLength: probe.length, body };
}

/**
 * What each activation of a captured batch adds to the next request, in the wire format of
 * the provider: its own messages and the tools it mounts, counted.
 */
function activationCosts(
  { activations, probeLength, body }: ActivationWire,
  { countTokens, requestParts }: Pick<typeof import("./tokens.ts"), "countTokens" | "requestParts">,
): number[] {
  const wire = requestParts(body);
  if (wire.conversation.length !== probeLength + 2 * activations.length) {
    throw new Error("the provider client merged activation messages; cannot attribute them");
  }
  const head = wire.conversation.slice(0, probeLength);
  const base = countTokens(JSON.stringify(head));
  const toolsByName = new Map(wire.tools.map((tool) => [wireToolName(tool), tool]));
  return activations.map((activation, index) => {
    const at = probeLength + 2 * index;
    const own = [...head, ...wire.conversation.slice(at, at + 2)];
    const tools = activation.added.map((t) => toolsByName.get(t.name)).filter((t) => t);
    const toolTokens = tools.length === 0 ? 0 : countTokens(JSON.stringify(tools));
    return countTokens(JSON.stringify(own)) - base + toolTokens;
  });
}

/** A tool's name in OpenAI (`{function: {name}}`) or Anthropic (`{name}`) wire format. */
function wireToolName(tool: unknown): string | undefined {
  const record = tool as { name?: unknown; function?: { name?: unknown } } | null;
  const name = record?.function?.name ?? record?.name;
  return typeof name === "string" ? name : undefined;
}

/** The prompt and tools with no skill active (what a single skill's share is measured against). */
async function surfaceWithNone(
  openSurface: (active: ReadonlySet<string>) => Promise<ToolSurface>,
): Promise<FixedInputs> {
  const none = await openSurface(new Set());
  try {
    return { systemPrompt: none.systemPrompt, tools: none.listTools() };
  } finally {
    await none.close();
  }
}

/**
 * Each skill's own share of the fixed overhead: its `<skill>` element in the system prompt
 * plus its name wherever a tool schema lists it (the `activate_skill` enum).
 */
function skillShares(
  surface: Pick<ToolSurface, "systemPrompt" | "listTools">,
  active: readonly string[],
  countTokens: (text: string) => number,
): number[] {
  const prompt = surface.systemPrompt;
  const schemas = JSON.stringify(surface.listTools());
  return active.map((name) => {
    let share = 0;
    const at = prompt.indexOf(`<name>${name}</name>`);
    if (at !== -1) {
      const start = prompt.lastIndexOf("<skill>", at);
      const end = prompt.indexOf("</skill>", at);
      if (start !== -1 && end !== -1) {
        share += countTokens(prompt.slice(start, end + "</skill>".length) + "\n");
      }
    }
    const quoted = JSON.stringify(name);
    let mentions = 0;
    for (let at = schemas.indexOf(quoted); at !== -1; at = schemas.indexOf(quoted, at + 1)) {
      mentions++;
    }
    share += mentions * countTokens(`${quoted},`);
    return share;
  });
}
