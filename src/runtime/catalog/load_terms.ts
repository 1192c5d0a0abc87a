/**
 * What the catalog, the listing cache and trust share with the skill loader (loader.ts) and
 * its walkers (contents.ts), declared apart from both: a run or a listing served from the
 * cache loads neither.
 */

/** A skill that cannot be listed; the message is the short reason shown to users. */
export class SkillLoadError extends Error {
  /**
   * `noManifest`: the folder holds no SKILL.md (nor skill.md) at all — in a project's skills
   * folder, a folder of helpers rather than a broken skill (catalog/scopes.ts).
   */
  constructor(message: string, readonly noManifest = false) {
    super(message);
  }
}

/** How a script-name collision warning begins (the catalog lists them as notes). */
export const SCRIPT_COLLISION = "script names collide:";

/**
 * The Codex agent file whose policy the loader reads (its stamp is part of the cache key).
 * Here rather than in loader.ts: the listing cache needs it without loading the loader.
 */
export const CODEX_AGENT_FILE = "agents/openai.yaml";
