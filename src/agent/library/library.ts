/**
 * The library's skill set (mod.ts): stored skills (paths, or the user's installed and
 * trusted skills) and skills defined in code, served through the very tool surface of
 * `skills chat` and `skills mcp`. A program gets the system prompt, the tools in the AI
 * SDK's shape (for `generateText`/`streamText`), and a dispatcher that returns the CLI's
 * envelopes and never throws. Scripts and toolsets run through the CLI's runner, sandbox
 * and trust gate; skills defined in code touch no disk at all.
 */

import { jsonSchema, type JSONSchema7, tool, type ToolSet } from "ai";
import type { Envelope } from "../../core/envelope.ts";
import { SkillError } from "../../core/errors.ts";
import {
  type Catalog,
  findSkill,
  loadCatalog,
  type LoadedSkill,
} from "../../runtime/catalog/catalog.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { CATALOG_POLL_MS, CatalogWatch } from "../surface/catalog_watch.ts";
import { loadStoredSkills } from "./stored_skills.ts";
import { createToolSurface } from "../surface/tools.ts";
import type { ToolDefinition, ToolSurface, ToolSurfaceOptions } from "../surface/tool_surface.ts";
import { type SkillDefinition, toVirtualSkill } from "./virtual_skills.ts";

export interface OpenSkillsOptions {
  /**
   * Stored skills: each path is a skill directory (with a SKILL.md) or a directory of skill
   * directories. Read at once; an invalid SKILL.md throws `SkillManifestError` with its line.
   * They are not installed, so their scripts and toolsets run only with `allowUntrusted`.
   */
  paths?: readonly string[];
  /**
   * The user's installed skills (`$SKILLS_HOME`, as `skills list` shows them): `true` for
   * every trusted one (and the bundled ones), or a list of names (any trust state; scripts
   * and toolsets of untrusted ones are refused as in the CLI).
   */
  installed?: boolean | readonly string[];
  /** Skills defined in code (see `defineSkill`). Nothing of them is written to disk. */
  skills?: readonly SkillDefinition[];
  /** The skills home; default `SKILLS_HOME`, else `~/.agent/skills`. */
  home?: string;
  /**
   * The environment scripts are given the allowlisted part of (as in the CLI); default
   * the process environment.
   */
  env?: Readonly<Record<string, string>>;
  /** The CLI's `AGENT_SKILLS=all-untrusted`: scripts and toolsets of untrusted skills run. */
  allowUntrusted?: boolean;
  /** The CLI's `SKILLS_ALLOWED_TOOLS=on`: an activated skill's `allowed-tools` limit the tools. */
  enforceAllowedTools?: boolean;
  /**
   * The folder scripts run in and may write (guarded paths excepted), as the CLI's working
   * directory is for `skills run`. Without it a script starts in its own skill's folder and
   * writes only its work folder.
   */
  workspace?: string;
  /**
   * Asked before a script's changes to the workspace are applied: shown what the run created,
   * changed, deleted and held back (`created`, `changed`, `deleted`, `heldBack`), it answers
   * whether to apply them; false writes nothing. Without it the changes are applied.
   */
  reviewWorkspace?: ToolSurfaceOptions["reviewWorkspace"];
  /**
   * Grants the model services (`service_start`, `service_list`, `service_stop`): the scripts
   * active skills declare in `permissions.services` keep running in their sandbox, their
   * loopback ports served on 127.0.0.1, until stopped, idle or at their lifetime. Needs
   * `workspace`. Default: the environment's SKILLS_ALLOW_SERVICES.
   */
  allowServices?: boolean;
  /** Warnings and debug lines (toolset problems, script runs). */
  log?: (message: string) => void;
}

/** An open skill set. Close it (or `await using` it) to stop toolset processes. */
export interface Skills extends AsyncDisposable {
  /** Short instructions and the `<available_skills>` block: the system prompt to send. */
  readonly systemPrompt: string;
  /**
   * The tools in the AI SDK's shape. Activations do not change them (toolset tools of stored
   * skills are called through `call_skill_tool`), so one `generateText` call with them
   * reaches every skill; a changed installed catalog changes `activate_skill`'s names.
   */
  tools(): ToolSet;
  /** The same tools as plain definitions (name, description, JSON Schema). */
  toolDefinitions(): ToolDefinition[];
  /** Runs one tool call by name. Arguments are untrusted; it never throws. */
  callTool(name: string, input: unknown, options?: { signal?: AbortSignal }): Promise<Envelope>;
  /** The skills activated so far (canonical names). */
  activated(): ReadonlySet<string>;
  /** Stops toolset host processes; later calls of their tools fail with an envelope. */
  close(): Promise<void>;
}

/**
 * The installed skills asked for. At opening a missing name throws; later (`strict` false,
 * the catalog changed meanwhile) a skill removed since is simply no longer there.
 */
async function installedSkills(
  home: string,
  wanted: true | readonly string[],
  strict = true,
): Promise<LoadedSkill[]> {
  const catalog = await loadCatalog(home);
  if (wanted === true) return catalog.skills.filter((s) => s.trusted);
  if (strict) return wanted.map((name) => findSkill(catalog, name));
  return wanted.flatMap((name) => {
    try {
      return [findSkill(catalog, name)];
    } catch {
      return [];
    }
  });
}

function libraryCatalog(home: string, skills: LoadedSkill[]): Catalog {
  return {
    home,
    skills,
    failures: [],
    notes: [],
    shadowed: [],
    project: undefined,
    installedDirs: [],
  };
}

/** Loads the skills and opens the tool surface over them. */
export async function openSkills(options: OpenSkillsOptions = {}): Promise<Skills> {
  const env = options.env ?? Deno.env.toObject();
  const home = options.home ?? skillsHome(env, Deno.cwd());
  // Definitions first: a mistake in code throws before any disk is read.
  const virtualSkills = await Promise.all((options.skills ?? []).map(toVirtualSkill));
  const stored: LoadedSkill[] = [];
  for (const path of options.paths ?? []) stored.push(...await loadStoredSkills(path));
  const openedByPath = new Set(stored.map((s) => s.canonical));
  const installed = options.installed;
  if (installed === true || Array.isArray(installed)) {
    stored.push(...await installedSkills(home, installed as true | readonly string[]));
  }
  const seen = new Set<string>();
  for (const skill of stored) {
    if (seen.has(skill.canonical)) {
      throw new SkillError("conflict", `Two stored skills are named '${skill.canonical}'`, {
        hint: `One of them is ${skill.dir}`,
      });
    }
    seen.add(skill.canonical);
  }
  const catalog = libraryCatalog(home, stored);
  // Installed skills follow `skills add/update/trust/remove` while the handle is open: looked
  // for before every tool call and every half second (a timer that does not keep the program
  // alive). Skills opened by path are read where they are and stay as opened.
  let catalogWatch: CatalogWatch | undefined;
  if (installed === true || Array.isArray(installed)) {
    const byPath = stored.filter((s) => openedByPath.has(s.canonical));
    catalogWatch = new CatalogWatch({
      home,
      initial: { catalog, active: seen },
      load: async () => {
        const now = await installedSkills(home, installed as true | readonly string[], false);
        const skills = [...byPath, ...now.filter((s) => !openedByPath.has(s.canonical))];
        return {
          catalog: libraryCatalog(home, skills),
          active: new Set(skills.map((s) => s.canonical)),
        };
      },
      ...(options.log ? { log: options.log } : {}),
    });
    catalogWatch.start(CATALOG_POLL_MS, true);
  }
  const surface = await createToolSurface({
    home,
    catalog,
    active: seen,
    env,
    virtualSkills,
    // One AI SDK call takes the tools as they are at its start: toolset tools of stored
    // skills are reached through call_skill_tool, which is there from the start.
    toolsetsThroughDispatcher: true,
    ...(catalogWatch ? { catalogWatch } : {}),
    enforceAllowedTools: options.enforceAllowedTools === true,
    allowUntrusted: options.allowUntrusted === true,
    ...(options.workspace ? { cwd: options.workspace } : {}),
    ...(options.reviewWorkspace ? { reviewWorkspace: options.reviewWorkspace } : {}),
    ...(options.allowServices === undefined ? {} : { allowServices: options.allowServices }),
    ...(options.log ? { log: options.log } : {}),
  });
  return new SkillSet(surface, openedByPath, catalogWatch);
}

/**
 * The runner's `untrusted` hint says `skills trust`, which cannot help a skill opened by path
 * (it is not installed): say the library's own opt-in instead.
 */
function libraryHint(envelope: Envelope, openedByPath: ReadonlySet<string>): Envelope {
  if (envelope.success || envelope.error !== "untrusted") return envelope;
  const name = /^Skill '([^']+)' is not trusted/.exec(envelope.message)?.[1];
  if (name === undefined || !openedByPath.has(name)) return envelope;
  const first = envelope.message.split("\n")[0];
  return {
    ...envelope,
    message: `${first}\nIt was opened by path, not installed: review it, then pass ` +
      "`allowUntrusted: true` to openSkills() to run its scripts and toolsets",
  };
}

class SkillSet implements Skills {
  readonly #surface: ToolSurface;
  readonly #openedByPath: ReadonlySet<string>;

  readonly #watch: CatalogWatch | undefined;

  constructor(
    surface: ToolSurface,
    openedByPath: ReadonlySet<string>,
    watch: CatalogWatch | undefined,
  ) {
    this.#surface = surface;
    this.#openedByPath = openedByPath;
    this.#watch = watch;
  }

  get systemPrompt(): string {
    return this.#surface.systemPrompt;
  }

  tools(): ToolSet {
    const tools: ToolSet = {};
    for (const definition of this.#surface.listTools()) {
      const name = definition.name;
      tools[name] = tool({
        description: definition.description,
        inputSchema: jsonSchema(definition.inputSchema as JSONSchema7),
        execute: (input: unknown, { abortSignal }) =>
          this.callTool(name, input, abortSignal ? { signal: abortSignal } : {}),
      });
    }
    return tools;
  }

  toolDefinitions(): ToolDefinition[] {
    return this.#surface.listTools();
  }

  async callTool(name: string, input: unknown, options: { signal?: AbortSignal } = {}) {
    return libraryHint(await this.#surface.callTool(name, input, options), this.#openedByPath);
  }

  activated(): ReadonlySet<string> {
    return this.#surface.activated();
  }

  close(): Promise<void> {
    this.#watch?.stop();
    return this.#surface.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
