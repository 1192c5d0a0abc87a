/**
 * The model-facing tool surface, shared by `skills chat`, `skills mcp` and the library
 * (contract in tool_surface.ts). Progressive disclosure: the system prompt names the active
 * skills; `activate_skill` returns a skill's instructions, mounts its typed toolset tools
 * and documents a virtual skill's tools (called through `call_skill_tool`); files and
 * scripts are reached only through tools. Every call returns an envelope.
 */

import { type Envelope, fail, failFromError, ok } from "../../core/envelope.ts";
import { SkillError } from "../../core/errors.ts";
import {
  canonicalSkillName,
  isValidSkillName,
  qualifiedToolName,
  quoteName,
} from "../../core/names.ts";
import type { Catalog, LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { listScriptFiles } from "../../runtime/catalog/contents.ts";
import { skillBody } from "../../runtime/catalog/loader.ts";
import {
  scriptHelp,
  scriptList,
  scriptRun,
  servedInstructions,
  servedSkill,
} from "../../runtime/exec/script_service.ts";
import { ToolsetHost, type ToolsetHostOptions } from "../../runtime/exec/toolset_host.ts";
import {
  type AllowedToolsPolicy,
  decidePolicy,
  isToolAllowed,
  TOOL_NOT_ALLOWED,
} from "./allowed_tools.ts";
import { readSkillFile } from "./read_skill_file.ts";
import { renderSkillContent } from "./skill_content.ts";
import { buildSystemPrompt } from "./system_prompt.ts";
import {
  activateArgs,
  argumentObject,
  callSkillToolArgs,
  type Checked,
  readFileArgs,
  scriptHelpArgs,
  scriptListArgs,
  scriptRunArgs,
} from "./tool_args.ts";
import type {
  ActivationCheckpoint,
  PreparedToolsets,
  ToolDefinition,
  ToolSurface,
  ToolSurfaceOptions,
  VirtualSkill,
} from "./tool_surface.ts";
import { callVirtualTool, dispatchTarget, renderSkillTools } from "./virtual_tools.ts";
import { skillToolDefinitions } from "./tool_definitions.ts";
import {
  callServiceTool,
  servicesGranted,
  serviceToolDefinitions,
} from "../services/service_tools.ts";
import { modelCanInvoke, userCanInvoke, withArguments } from "./invocation.ts";
import { listedDescription } from "../../core/listing_budget.ts";

/** OpenAI and Anthropic both limit tool names to 64 characters of `[A-Za-z0-9_-]`. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

interface MountedTool {
  skill: string;
  method: string;
  host: ToolsetHost;
  definition: ToolDefinition;
}

export function createToolSurface(options: ToolSurfaceOptions): Promise<ToolSurface> {
  return Promise.resolve(new SkillToolSurface(options));
}

class SkillToolSurface implements ToolSurface {
  #systemPrompt = "";
  readonly #options: ToolSurfaceOptions;
  /** The active stored skills; replaced when the catalog changes (updateCatalog). */
  #skills: LoadedSkill[] = [];
  /** Skills defined in code (the library), by canonical name. */
  readonly #virtual: Map<string, VirtualSkill>;
  /** Active skills the model may not start itself (`disable-model-invocation`). */
  #hidden = new Set<string>();
  /** Set while the user starts a skill, which may be hidden from the model. */
  #userStarting = false;
  /** The catalog narrowed to the active skills: the script tools see nothing else. */
  #catalog!: Catalog;
  #baseTools: ToolDefinition[] = [];
  readonly #skillListeners = new Set<() => void>();
  #unwatch: (() => void) | undefined;
  readonly #activated = new Set<string>();
  readonly #activating = new Map<string, Promise<Envelope>>();
  readonly #mounted = new Map<string, MountedTool>();
  readonly #hosts: ToolsetHost[] = [];
  /** Toolsets being learned ahead of their activations (prepareToolsets), closed with the surface. */
  readonly #preparing: Promise<void>[] = [];
  /** The allowed-tools policy in force when each checkpoint was taken. */
  readonly #policyAt = new WeakMap<ActivationCheckpoint, AllowedToolsPolicy | null>();
  readonly #listeners = new Set<() => void>();
  #policy: AllowedToolsPolicy | null = null;
  #closed = false;

  /** The services this surface's model started: the only ones it may stop. */
  readonly #startedServices = new Set<string>();

  constructor(options: ToolSurfaceOptions) {
    this.#options = options;
    const { catalog, active } = options;
    this.#virtual = new Map();
    for (const skill of options.virtualSkills ?? []) {
      const stored = catalog.skills.some((s) =>
        s.canonical === skill.name && active.has(s.canonical)
      );
      if (this.#virtual.has(skill.name) || stored) {
        throw new SkillError("conflict", `Two skills are named '${skill.name}'`, {
          hint: "Give each skill, stored or defined in code, its own name",
        });
      }
      this.#virtual.set(skill.name, skill);
    }
    this.#useCatalog(catalog, active);
    const watch = options.catalogWatch;
    if (watch !== undefined) {
      // Opened from an older view than the watch holds now: take the newer one first.
      if (watch.view.catalog !== catalog) {
        void this.updateCatalog(watch.view.catalog, watch.view.active);
      }
      this.#unwatch = watch.subscribe((view) => this.updateCatalog(view.catalog, view.active));
    }
  }

  async refresh(): Promise<void> {
    if (!this.#closed) await this.#options.catalogWatch?.check();
  }

  get systemPrompt(): string {
    return this.#systemPrompt;
  }

  /** Takes the active skills of `catalog`: what the model is told and what the tools see. */
  #useCatalog(catalog: Catalog, active: ReadonlySet<string>): void {
    this.#skills = catalog.skills.filter((s) =>
      active.has(s.canonical) && !this.#virtual.has(s.canonical)
    );
    this.#catalog = {
      ...catalog,
      skills: this.#skills,
      failures: catalog.failures.filter((f) => active.has(f.canonical)),
    };
    const virtual = [...this.#virtual.values()];
    // Skills the model may not start itself are left out of what it is told.
    const offered = this.#skills.filter(modelCanInvoke);
    this.#hidden = new Set(this.#skills.filter((s) => !modelCanInvoke(s)).map((s) => s.canonical));
    this.#baseTools = skillToolDefinitions(this.#skills, virtual, [
      ...offered.map((s) => s.canonical),
      ...virtual.map((v) => v.name),
    ], this.#options.toolsetsThroughDispatcher === true);
    // The model's service tools: with the user's grant, for skills that declare services.
    const declared = this.#skills.some((s) => (s.manifest.services?.length ?? 0) > 0);
    if (declared && servicesGranted(this.#options.env, this.#options.allowServices)) {
      this.#baseTools.push(...serviceToolDefinitions());
    }
    this.#systemPrompt = buildSystemPrompt([
      ...offered.map((s) => ({
        name: s.canonical,
        description: listedDescription(s.manifest),
        ...locationOf(s, this.#options.includeLocation),
      })),
      ...virtual.map((v) => ({ name: v.name, description: v.description })),
    ]);
  }

  skills(): readonly LoadedSkill[] {
    return this.#skills;
  }

  async updateCatalog(catalog: Catalog, active: ReadonlySet<string>): Promise<boolean> {
    await Promise.allSettled([...this.#activating.values()]);
    const before = { tools: JSON.stringify(this.#visibleTools()), skills: this.#skillsStamp() };
    const next = new Map(
      catalog.skills.filter((s) => active.has(s.canonical)).map((s) => [s.canonical, s]),
    );
    for (const name of next.keys()) {
      if (this.#virtual.has(name)) {
        this.#options.log?.(`Skill '${name}' is left out: a skill defined in code has its name`);
      }
    }
    // A skill removed or changed (updated, trusted, untrusted) is no longer what the model
    // activated: it is deactivated, its toolset stopped, and activating it reads it afresh.
    const stale = [...this.#activated].filter((name) => {
      if (this.#virtual.has(name)) return false;
      const old = this.#skills.find((s) => s.canonical === name);
      const now = next.get(name);
      return old === undefined || now === undefined || skillStamp(old) !== skillStamp(now);
    });
    await this.#deactivate(stale);
    this.#useCatalog(catalog, active);
    const toolsChanged = JSON.stringify(this.#visibleTools()) !== before.tools;
    const skillsChanged = this.#skillsStamp() !== before.skills;
    if (toolsChanged) this.#notify();
    if (skillsChanged) this.#notifySkills();
    return toolsChanged || skillsChanged;
  }

  onSkillsChanged(listener: () => void): () => void {
    this.#skillListeners.add(listener);
    return () => this.#skillListeners.delete(listener);
  }

  #skillsStamp(): string {
    return this.#skills.map(skillStamp).join("\n");
  }

  #notifySkills(): void {
    for (const listener of [...this.#skillListeners]) {
      try {
        listener();
      } catch (error) {
        this.#options.log?.(`onSkillsChanged listener failed: ${(error as Error).message}`);
      }
    }
  }

  /** Undoes the activation of `names`: unmounts their toolset tools and stops their hosts. */
  async #deactivate(names: readonly string[]): Promise<void> {
    const stopping = new Set<ToolsetHost>();
    for (const name of names) {
      this.#activated.delete(name);
      for (const [tool, mounted] of this.#mounted) {
        if (mounted.skill !== name) continue;
        this.#mounted.delete(tool);
        stopping.add(mounted.host);
      }
    }
    for (const host of stopping) this.#hosts.splice(this.#hosts.indexOf(host), 1);
    await Promise.all([...stopping].map((host) => host.close()));
  }

  listTools(): ToolDefinition[] {
    return this.#visibleTools().map((tool) => structuredClone(tool));
  }

  #visibleTools(): ToolDefinition[] {
    // Through the dispatcher, toolset tools are documented on activation, never listed.
    const mounted = this.#options.toolsetsThroughDispatcher ? [] : [...this.#mounted.values()];
    const all = [...this.#baseTools, ...mounted.map((m) => m.definition)];
    return all.filter((tool) => this.#allowed(tool.name));
  }

  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Every tool call: the catalog refreshed, the name checked, then the tool's own arm. */
  async callTool(
    name: string,
    args: unknown,
    options: { signal?: AbortSignal } = {},
  ): Promise<Envelope> {
    try {
      // A skill removed or changed since the last look is never served from the old view.
      await this.refresh();
      return this.#refusedName(name) ?? await this.#dispatch(name, args, options);
    } catch (error) {
      return failFromError(error);
    }
  }

  /** Why a tool name cannot be called (malformed, unknown, not allowed), or undefined. */
  #refusedName(name: string): Envelope | undefined {
    if (typeof name !== "string" || !TOOL_NAME.test(name)) {
      return fail("not_found", `Unknown tool '${quoteName(String(name))}'`);
    }
    const known = this.#baseTools.some((t) => t.name === name) || this.#mounted.has(name);
    if (!known) return fail("not_found", this.#unknownToolMessage(name));
    if (!this.#allowed(name)) {
      return fail(
        TOOL_NOT_ALLOWED,
        `Tool '${name}' is not allowed by the allowed-tools of skill '${this.#policy?.skill}'`,
      );
    }
    return undefined;
  }

  /** One arm a tool: its arguments checked, then its answer; a mounted toolset tool last. */
  async #dispatch(
    name: string,
    args: unknown,
    options: { signal?: AbortSignal },
  ): Promise<Envelope> {
    switch (name) {
      case "activate_skill":
        return await this.#withArgs(activateArgs(args), (a) => this.#activate(a.name));
      case "call_skill_tool":
        return await this.#withArgs(
          callSkillToolArgs(args),
          (a) => this.#callSkillTool(a.skill, a.tool, a.input, options),
        );
      case "read_skill_file":
        return await this.#withArgs(readFileArgs(args), (a) => this.#readFile(a.skill, a.path));
      case "script_list":
        return await this.#withArgs(scriptListArgs(args), (a) => this.#scriptList(a.skillName));
      case "script_help":
        return await this.#withArgs(scriptHelpArgs(args), async (a) => {
          const skill = this.#activeSkill(a.skillName);
          if ("error" in skill) return skill.error;
          const deps = this.#scriptDeps(options);
          return await scriptHelp(this.#catalog, skill.record.canonical, a.scriptName, deps);
        });
      case "script_run":
        return await this.#withArgs(scriptRunArgs(args), async (a) => {
          const skill = this.#activeSkill(a.skillName);
          if ("error" in skill) return skill.error;
          const { canonical } = skill.record;
          const deps = this.#scriptDeps(options);
          return await scriptRun(this.#catalog, canonical, a.scriptName, a.args, a.json, deps);
        });
      case "service_start":
      case "service_list":
      case "service_stop":
        return await callServiceTool(name, args, {
          home: this.#options.home,
          env: this.#options.env,
          cwd: this.#options.cwd,
          activeSkill: (skill) => this.#activeSkill(skill),
          started: this.#startedServices,
        });
    }
    const mounted = this.#mounted.get(name)!;
    return await this.#withArgs(
      argumentObject(args),
      (a) => mounted.host.call(mounted.method, a, options),
    );
  }

  /** What a script's help or run needs from this surface's options and the call. */
  #scriptDeps(options: { signal?: AbortSignal }) {
    return {
      home: this.#options.home,
      env: this.#options.env,
      signal: options.signal,
      log: this.#options.log,
      allowUntrusted: this.#options.allowUntrusted,
      cwd: this.#options.cwd,
      review: this.#options.reviewWorkspace,
    };
  }

  /** `call_skill_tool`: a stored skill's toolset tool, else a skill defined in code. */
  #callSkillTool(
    skill: string,
    tool: string,
    input: unknown,
    options: { signal?: AbortSignal },
  ): Envelope | Promise<Envelope> {
    const canonical = canonicalSkillName(skill);
    const stored = this.#skills.some((s) => s.canonical === canonical);
    if (stored) return this.#callToolsetTool(canonical, tool, input, options);
    const target = dispatchTarget(canonical, this.#virtual, stored, this.#activated);
    return "success" in target ? target : callVirtualTool(target, tool, input, options.signal);
  }

  /** `read_skill_file`: a file of an active skill, read from the copy it is served from. */
  async #readFile(skillName: string, path: string): Promise<Envelope> {
    const skill = this.#activeSkill(skillName);
    if ("error" in skill) return skill.error;
    try {
      return await readSkillFile(await this.served(skill.record), path);
    } catch (error) {
      return failFromError(error);
    }
  }

  /** `script_list`: every skill's scripts, or one active skill's. */
  #scriptList(skillName: string | undefined): Envelope {
    if (skillName === undefined) {
      return pathsRelativeToSkills(scriptList(this.#catalog), this.#catalog);
    }
    const skill = this.#activeSkill(skillName);
    return "error" in skill ? skill.error : pathsRelativeToSkills(
      scriptList(this.#catalog, skill.record.canonical),
      this.#catalog,
    );
  }

  activated(): ReadonlySet<string> {
    return new Set(this.#activated);
  }

  checkpoint(): ActivationCheckpoint {
    const checkpoint = { activated: [...this.#activated] };
    this.#policyAt.set(checkpoint, this.#policy);
    return checkpoint;
  }

  async restore(checkpoint: ActivationCheckpoint): Promise<void> {
    await Promise.allSettled([...this.#activating.values()]);
    const keep = new Set(checkpoint.activated);
    const undone = [...this.#activated].filter((name) => !keep.has(name));
    if (undone.length === 0) return;
    const before = this.#toolNames();
    this.#policy = this.#policyAt.get(checkpoint) ?? null;
    await this.#deactivate(undone);
    if (this.#toolNames() !== before) this.#notify();
  }

  /**
   * Learns the toolsets' tools of these skills in the background — the same checks and the
   * same host an activation runs — so that a caller activating many skills in turn (`skills
   * context`) does not wait on each toolset host in a row: each activation takes the answer
   * (runtime/exec/toolset_host.ts shares a describe under way). A failure here is the
   * activation's to report. Returns the names whose toolsets are being learned, and when
   * every host asked has answered.
   */
  prepareToolsets(names: readonly string[]): PreparedToolsets {
    const preparing = new Set<string>();
    const started: Promise<void>[] = [];
    if (!this.#closed) {
      for (const name of names) {
        const found = this.#activeSkill(name);
        if ("error" in found || found.record.manifest.toolsets.length === 0) continue;
        preparing.add(name);
        const { log: _log, ...options } = this.#hostOptions(); // its notes are the activation's
        started.push(
          ToolsetHost.start(found.record, options).then((host) => host.close(), () => {}),
        );
      }
    }
    this.#preparing.push(...started);
    return { names: preparing, done: Promise.all(started).then(() => {}) };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unwatch?.();
    await Promise.allSettled([...this.#activating.values(), ...this.#preparing.splice(0)]);
    await Promise.all(this.#hosts.splice(0).map((host) => host.close()));
  }

  #allowed(name: string): boolean {
    return !this.#options.enforceAllowedTools || isToolAllowed(this.#policy, name);
  }

  async #withArgs<T>(
    checked: Checked<T>,
    run: (value: T) => Envelope | Promise<Envelope>,
  ): Promise<Envelope> {
    return checked.ok ? await run(checked.value) : checked.error;
  }

  #unknownToolMessage(name: string): string {
    if (this.#skills.length === 0 && this.#virtual.size === 0) {
      return `Unknown tool '${name}': no skills are active`;
    }
    const virtual = [...this.#virtual.values()].find((v) => v.tools.some((t) => t.name === name));
    if (virtual !== undefined) {
      return `Tool '${name}' belongs to skill '${virtual.name}': call it through call_skill_tool ` +
        `with skill '${virtual.name}' and tool '${name}'`;
    }
    const owner = this.#skills.find((s) =>
      s.manifest.toolsets.length > 0 && name.startsWith(qualifiedToolName(s.canonical, ""))
    );
    if (owner !== undefined && !this.#activated.has(owner.canonical)) {
      return `Tool '${name}' is not available yet: call activate_skill with name '${owner.canonical}' first`;
    }
    return `Unknown tool '${name}'`;
  }

  /** An active skill by any accepted spelling, or a failure envelope. */
  /** `call_skill_tool` for a stored skill: one of its mounted toolset tools. */
  async #callToolsetTool(
    canonical: string,
    tool: string,
    input: unknown,
    options: { signal?: AbortSignal },
  ): Promise<Envelope> {
    const skill = this.#skills.find((s) => s.canonical === canonical)!;
    if (skill.manifest.toolsets.length === 0) {
      return fail(
        "not_found",
        `Skill '${canonical}' has no tools for call_skill_tool (use script_list and script_run for its scripts)`,
      );
    }
    if (!this.#activated.has(canonical)) {
      return fail(
        "not_found",
        `The tools of skill '${canonical}' are not available yet: call activate_skill with name '${canonical}' first`,
      );
    }
    const mounted = [...this.#mounted.entries()].filter(([, m]) => m.skill === canonical);
    const found = mounted.find(([name, m]) => m.method === tool || name === tool);
    if (found === undefined) {
      const known = mounted.map(([, m]) => m.method).join(", ") || "none";
      return fail(
        "not_found",
        `Skill '${canonical}' has no tool '${quoteName(tool)}' (its tools: ${known})`,
      );
    }
    const [name, target] = found;
    if (!this.#allowed(name)) {
      return fail(
        TOOL_NOT_ALLOWED,
        `Tool '${name}' is not allowed by the allowed-tools of skill '${this.#policy?.skill}'`,
      );
    }
    const checked = argumentObject(input);
    if (!checked.ok) return checked.error;
    return await target.host.call(target.method, checked.value, options);
  }

  #activeSkill(
    name: string,
  ): { record: LoadedSkill } | { error: Envelope } {
    let canonical: string;
    try {
      canonical = canonicalSkillName(name);
    } catch (error) {
      return { error: failFromError(error) };
    }
    const record = this.#skills.find((s) => s.canonical === canonical);
    // A skill hidden from the model exists for it only once the user has started it.
    const hidden = record !== undefined && this.#hidden.has(canonical) &&
      !this.#activated.has(canonical) && !this.#userStarting;
    if (record !== undefined && !hidden) return { record };
    if (this.#virtual.has(canonical)) {
      return {
        error: fail(
          "not_found",
          `Skill '${canonical}' is defined in code: it has no files or scripts ` +
            `(its tools are called through call_skill_tool)`,
        ),
      };
    }
    const visible = this.#skills.filter((s) =>
      !this.#hidden.has(s.canonical) || this.#activated.has(s.canonical)
    );
    const available = [...visible.map((s) => s.canonical), ...this.#virtual.keys()]
      .join(", ") || "none";
    return {
      error: fail("not_found", `Skill '${canonical}' is not active (active skills: ${available})`),
    };
  }

  #activate(name: string): Promise<Envelope> {
    const virtual = this.#virtual.get(isValidSkillName(name) ? canonicalSkillName(name) : "");
    if (virtual !== undefined) return Promise.resolve(this.#activateVirtual(virtual));
    const found = this.#activeSkill(name);
    if ("error" in found) return Promise.resolve(found.error);
    const skill = found.record;
    const pending = this.#activating.get(skill.canonical);
    const active = { canonical: skill.canonical, allowedTools: skill.manifest.allowedTools };
    if (pending !== undefined) return pending.then(() => this.#alreadyActive(active));
    if (this.#activated.has(skill.canonical)) return Promise.resolve(this.#alreadyActive(active));
    const work = this.#firstActivation(skill).finally(() => {
      this.#activating.delete(skill.canonical);
    });
    this.#activating.set(skill.canonical, work);
    return work;
  }

  #alreadyActive(skill: { canonical: string; allowedTools: string[] | undefined }): Envelope {
    const before = this.#toolNames();
    const note = this.#applyPolicy(skill.canonical, skill.allowedTools);
    if (this.#toolNames() !== before) this.#notify();
    return ok(
      `Skill '${skill.canonical}' is already active; its instructions are above.`,
      `Skill '${skill.canonical}' already active${note}`,
    );
  }

  /** A virtual skill's instructions with its tools documented; nothing to start. */
  #activateVirtual(skill: VirtualSkill): Envelope {
    if (this.#activated.has(skill.name)) {
      return this.#alreadyActive({ canonical: skill.name, allowedTools: undefined });
    }
    const before = this.#toolNames();
    this.#activated.add(skill.name);
    const note = this.#applyPolicy(skill.name, undefined);
    const content = renderSkillContent(skill.name, skill.body, {
      scripts: [],
      references: [],
      assets: [],
      tools: [],
      problems: [],
      skillTools: renderSkillTools(skill),
    });
    if (this.#toolNames() !== before) this.#notify();
    const tools = skill.tools.length > 0
      ? `; ${skill.tools.length} tools callable through call_skill_tool`
      : "";
    return ok(content, `Activated skill '${skill.name}'${tools}${note}`);
  }

  async invokeSkill(name: string, args: string): Promise<Envelope> {
    try {
      const canonical = isValidSkillName(name) ? canonicalSkillName(name) : "";
      const virtual = this.#virtual.get(canonical);
      if (virtual !== undefined) return this.#activateVirtual(virtual);
      const skill = this.#skills.find((s) => s.canonical === canonical);
      if (skill === undefined) {
        return fail("not_found", `No active skill is named '${quoteName(name)}'`);
      }
      if (!userCanInvoke(skill)) {
        return fail(
          "permission_denied",
          `Skill '${canonical}' is started by the model only (user-invocable: false)`,
        );
      }
      if (this.#activated.has(canonical)) {
        const body = withArguments(await this.#instructions(skill), args);
        return ok(this.#content(skill, body, [], []), `Started skill '${canonical}'`);
      }
      this.#userStarting = true;
      try {
        return await this.#firstActivation(skill, args);
      } finally {
        this.#userStarting = false;
      }
    } catch (error) {
      return failFromError(error);
    }
  }

  served(skill: LoadedSkill): Promise<LoadedSkill> {
    return servedSkill(skill, this.#options.home, this.#options.allowUntrusted === true);
  }

  /** The body of the skill's SKILL.md as the model may read it: the bytes its trust covers. */
  async #instructions(skill: LoadedSkill): Promise<string> {
    const { home, allowUntrusted } = this.#options;
    return await skillBody(await servedInstructions(skill, home, allowUntrusted === true));
  }

  #content(skill: LoadedSkill, body: string, tools: string[], problems: string[]): string {
    const dispatched = this.#options.toolsetsThroughDispatcher === true;
    const methods = [...this.#mounted.values()].filter((m) => m.skill === skill.canonical);
    return renderSkillContent(skill.canonical, body, {
      ...(dispatched
        ? {
          skillTools: renderSkillTools({
            name: skill.canonical,
            tools: methods.map((m) => ({ ...m.definition, name: m.method })),
          }),
        }
        : {}),
      scripts: skill.scripts.map((s) => s.name),
      // The other files under scripts/ (helper modules, schemas): the scripts are named above.
      scriptFiles: listScriptFiles(skill.dir).filter((path) =>
        !skill.scripts.some((script) => `scripts/${script.file}` === path)
      ),
      references: skill.references,
      assets: skill.assets,
      files: skill.files,
      tools: dispatched ? [] : tools,
      problems,
    });
  }

  async #firstActivation(skill: LoadedSkill, args?: string): Promise<Envelope> {
    const before = this.#toolNames();
    // What the model reads is what was verified: instructions edited after trust are refused.
    const written = await this.#instructions(skill);
    const body = args === undefined ? written : withArguments(written, args);
    const { tools, problems } = await this.#mountToolsets(skill);
    this.#activated.add(skill.canonical);
    const note = this.#applyPolicy(skill.canonical, skill.manifest.allowedTools);
    const content = this.#content(skill, body, tools, problems);
    if (this.#toolNames() !== before) this.#notify();
    const mounted = tools.length > 0 ? `; ${tools.length} toolset tools mounted` : "";
    return ok(content, `Activated skill '${skill.canonical}'${mounted}${note}`);
  }

  /** Starts the skill's toolset host and mounts its methods as `<skill>__<method>` tools. */
  async #mountToolsets(skill: LoadedSkill): Promise<{ tools: string[]; problems: string[] }> {
    const tools: string[] = [];
    const problems: string[] = [];
    if (skill.manifest.toolsets.length === 0 || this.#closed) return { tools, problems };
    let host: ToolsetHost;
    try {
      host = await ToolsetHost.start(skill, this.#hostOptions());
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.#options.log?.(`Toolsets of skill '${skill.canonical}' not loaded: ${reason}`);
      return { tools, problems: [`${skill.manifest.toolsets.join(", ")} (${reason})`] };
    }
    this.#hosts.push(host);
    for (const error of host.errors) problems.push(`${error.toolset} (${error.message})`);
    for (const method of host.methods) {
      const name = qualifiedToolName(skill.canonical, method.name);
      if (!TOOL_NAME.test(name) || this.#mounted.has(name)) {
        problems.push(`${method.name} (tool name '${name}' is too long or taken)`);
        continue;
      }
      this.#mounted.set(name, {
        skill: skill.canonical,
        method: method.name,
        host,
        definition: { name, description: method.description, inputSchema: method.inputSchema },
      });
      tools.push(name);
    }
    return { tools, problems };
  }

  /** What this surface starts a skill's toolset host with. */
  #hostOptions(): ToolsetHostOptions {
    return {
      home: this.#options.home,
      env: this.#options.env,
      allowUntrusted: this.#options.allowUntrusted === true,
      ...(this.#options.log ? { log: this.#options.log } : {}),
    };
  }

  /** Last activation wins; returns a note for the activation message. Does not notify. */
  #applyPolicy(canonical: string, allowedTools: string[] | undefined): string {
    if (!this.#options.enforceAllowedTools) return "";
    const known = [...this.#baseTools.map((t) => t.name), ...this.#mounted.keys()];
    const decision = decidePolicy(canonical, allowedTools, known);
    if (decision.warning !== undefined) this.#options.log?.(decision.warning);
    this.#policy = decision.policy;
    return decision.policy === null
      ? ""
      : `; allowed-tools of '${canonical}' now limit the tools to: ${
        decision.policy.patterns.join(" ")
      } (plus the skill tools)`;
  }

  /** The visible tool names, to tell whether a change must be announced (no copies). */
  #toolNames(): string {
    return this.#visibleTools().map((t) => t.name).join("\n");
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        this.#options.log?.(`onToolsChanged listener failed: ${(error as Error).message}`);
      }
    }
  }
}

/** What makes a stored skill the same skill: where it is, its trust, its version and files. */
function skillStamp(skill: LoadedSkill): string {
  return JSON.stringify([
    skill.canonical,
    skill.dir,
    skill.trusted,
    skill.scope,
    skill.entry ?? null,
    skill.manifest,
    skill.scripts,
    skill.references,
    skill.assets,
    skill.files,
  ]);
}

/**
 * `script_list` for a model: each script's path relative to its skill (`scripts/x.py`), never
 * the absolute local path, which says where the user's home is and is no use to the model
 * (read_skill_file and script_run take skill-relative names).
 */
function pathsRelativeToSkills<T extends { path: string }>(
  envelope: Envelope<Record<string, T[]>>,
  catalog: Catalog,
): Envelope<Record<string, T[]>> {
  if (!envelope.success) return envelope;
  const result: Record<string, T[]> = {};
  for (const [canonical, entries] of Object.entries(envelope.result)) {
    const dir = catalog.skills.find((s) => s.canonical === canonical)?.dir;
    result[canonical] = entries.map((entry) => ({
      ...entry,
      path: dir !== undefined && entry.path.startsWith(dir + "/")
        ? entry.path.slice(dir.length + 1)
        : entry.path.split("/").slice(-2).join("/"),
    }));
  }
  return { ...envelope, result };
}

/** A skill's `<location>` as the surface's options ask (ToolSurfaceOptions.includeLocation). */
function locationOf(
  skill: LoadedSkill,
  wanted: boolean | "path" | "resource" | undefined,
): { location?: string } {
  if (wanted === "resource") return { location: `skill://${skill.canonical}/SKILL.md` };
  return wanted === true || wanted === "path" ? { location: skill.skillMdPath } : {};
}
