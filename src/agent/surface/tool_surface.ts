/**
 * The contract of the model-facing tool surface, shared by `skills chat`, `skills mcp` and
 * the library (mod.ts) so they can never drift. Implemented by `createToolSurface` in
 * `tools.ts`.
 */

import type { ScriptDeps } from "../../runtime/exec/prepared_run.ts";
import type { LoadedSkill } from "../../runtime/catalog/catalog.ts";
import type { Envelope } from "../../core/envelope.ts";
import type { Catalog } from "../../runtime/catalog/catalog.ts";
import type { CatalogWatch } from "./catalog_watch.ts";

/** One tool as sent to a model or announced over MCP. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** A JSON Schema object (`{"type": "object", "properties": ..., "required": ...}`). */
  inputSchema: Record<string, unknown>;
}

/** What a virtual skill tool's input check says: the value to hand over, or why not. */
export type InputCheck = { ok: true; value: unknown } | { ok: false; message: string };

/** One tool of a virtual skill, reached through `call_skill_tool` (never listed by itself). */
export interface VirtualSkillTool {
  name: string;
  description: string;
  /** The input's JSON Schema, shown to the model in the skill's instructions on activation. */
  inputSchema: Record<string, unknown>;
  /** Checks (and may transform) the input; a failure becomes an `invalid_input` envelope. */
  check(input: unknown): Promise<InputCheck>;
  /** The program's own code; whatever it throws becomes an `execution_failed` envelope. */
  handler(input: unknown, options: { signal: AbortSignal }): unknown;
}

/** A skill defined in code by a program: nothing of it is on disk. */
export interface VirtualSkill {
  /** Canonical name (lower case, `-`). */
  name: string;
  description: string;
  /** The Markdown instructions `activate_skill` returns. */
  body: string;
  tools: readonly VirtualSkillTool[];
}

export interface ToolSurfaceOptions {
  home: string;
  catalog: Catalog;
  /** Canonical names of the active skills. */
  active: ReadonlySet<string>;
  /** The effective environment (scripts receive only the allowlisted part of it). */
  env: Readonly<Record<string, string>>;
  /** `SKILLS_ALLOWED_TOOLS=on`: contract the tool list to the activated skill's allowed-tools. */
  enforceAllowedTools?: boolean;
  /**
   * `<location>` in `<available_skills>`: `true` or `"path"`, the absolute SKILL.md path (for
   * a program on the same machine, as `skills prompt` prints it); `"resource"`, its MCP
   * resource URI `skill://<name>/SKILL.md` (what an MCP client can read, and no host path);
   * left out by default (a model activates a skill by its name).
   */
  includeLocation?: boolean | "path" | "resource";
  /** Debug/warning lines (stderr). */
  log?: (message: string) => void;
  /**
   * `AGENT_SKILLS=all-untrusted`, the user's explicit opt-in: untrusted skills' scripts and
   * toolsets run (the trust gate is open). Front ends announce it.
   */
  allowUntrusted?: boolean;
  /**
   * Skills defined in code (the library): active, listed after the stored ones; their tools
   * are called through `call_skill_tool`. Their names must not clash with stored skills.
   */
  virtualSkills?: readonly VirtualSkill[];
  /** The user's directory: sandboxed scripts see it read-only as SKILLS_CALLER_DIR. */
  cwd?: string;
  /**
   * Asked before a script's changes to the workspace are applied (`skills run --review` for a
   * model's runs): shown what the run created, changed, deleted and held back, it answers
   * whether to apply them; false discards them (nothing is written). Without it the diff is
   * applied, and the model gets what changed in the result's receipt.
   */
  reviewWorkspace?: ScriptDeps["review"];
  /**
   * The user's grant of services to the model (agent/services: `service_start`, `_list`,
   * `_stop`, for the scripts active skills declare in `permissions.services`); unset, the
   * environment's SKILLS_ALLOW_SERVICES decides.
   */
  allowServices?: boolean;
  /**
   * The library: a stored skill's toolset tools are documented on activation and called
   * through `call_skill_tool`, never listed one by one, so the tools a program hands to one
   * AI SDK call (built before any activation) reach them.
   */
  toolsetsThroughDispatcher?: boolean;
  /**
   * Follows the catalog as other commands change it: the surface takes each new catalog
   * (updateCatalog) until it is closed, and looks for one before every tool call.
   */
  catalogWatch?: CatalogWatch;
}

/** What `restore` needs to undo the activations made after it was taken (opaque). */
export interface ActivationCheckpoint {
  readonly activated: readonly string[];
}

/** What {@link ToolSurface.prepareToolsets} is learning, and when it is done. */
export interface PreparedToolsets {
  names: ReadonlySet<string>;
  /** Settles (never rejects) once every host asked has answered or failed. */
  done: Promise<void>;
}

export interface ToolSurface {
  /** Short instructions plus `<available_skills>`; no skill block when nothing is active. */
  readonly systemPrompt: string;
  /** The tools to send on the next request; changes after `activate_skill`. */
  listTools(): ToolDefinition[];
  /** Executes one tool call. Arguments are untrusted (`unknown`). Never throws. */
  callTool(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<Envelope>;
  /**
   * The skills activated so far (canonical names). The surface is the one owner of this
   * state: the chat loop and the REPL read it here.
   */
  activated(): ReadonlySet<string>;
  /**
   * Learns the toolsets' tools of these active skills in the background, ahead of their
   * activations (the same checks and host): the names being learned, and when all are
   * learned (or failed: a failure is the activation's to report). Optional: a surface
   * without it activates as usual.
   */
  prepareToolsets?(names: readonly string[]): PreparedToolsets;
  /** A snapshot of the activations, to restore when a turn is rolled back. */
  checkpoint(): ActivationCheckpoint;
  /**
   * Undoes every activation made since `checkpoint`: the skills are no longer active, their
   * toolset tools are unmounted (their hosts stopped) and the allowed-tools policy is what
   * it was. The next `activate_skill` returns the instructions again.
   */
  restore(checkpoint: ActivationCheckpoint): Promise<void>;
  /**
   * The user starts a skill by name (`/name args` in the REPL): like `activate_skill`, but
   * also for skills hidden from the model (`disable-model-invocation`), refused for skills
   * that are not user-invocable; `$ARGUMENTS` in the body becomes `args`. The result's
   * content is what the user sends to the model.
   */
  invokeSkill(name: string, args: string): Promise<Envelope>;
  /**
   * The skill as its files are served (read_skill_file, MCP resources, skills/get): an
   * installed, project or bundled one from its verified copy, or a failure when it changed
   * since it was trusted (throws SkillError `integrity_mismatch` or `untrusted`).
   */
  served(skill: LoadedSkill): Promise<LoadedSkill>;
  /** Subscribes to tool-list changes (toolset tools mounted on activation, a new catalog). */
  onToolsChanged(listener: () => void): () => void;
  /** The active stored skills now (their files are MCP resources). */
  skills(): readonly LoadedSkill[];
  /**
   * A new catalog (a skill added, updated, trusted or removed meanwhile): the active skills,
   * the system prompt and the tools follow it. An activated skill that was removed or
   * changed is deactivated (its toolset stopped), so nothing is served from what it was.
   * Listeners hear of changed tools and changed skills; true when anything changed.
   */
  updateCatalog(catalog: Catalog, active: ReadonlySet<string>): Promise<boolean>;
  /** Subscribes to changes of the active skills (updateCatalog). */
  onSkillsChanged(listener: () => void): () => void;
  /** Takes a changed catalog now, if its watch sees one (before serving a read). */
  refresh(): Promise<void>;
  /** Stops toolset host processes. */
  close(): Promise<void>;
}
