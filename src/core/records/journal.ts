/**
 * The journal a change writes into its staging directory, under the registry lock, before
 * its first rename: which skill folders it moves and how the next command tells whether
 * the change finished (runtime/store/recovery.ts reads it after a crash). One format for
 * both scopes, `journal.json`, version 2:
 *
 *   { "version": 2, "scope": "user" | "project", "lockfile": <sha256> | "unchanged" | null,
 *     "items": [{ "canonical", "target", "aside", "movesIn", "updatedAt" }] }
 *
 * A command of an older version may have died leaving one of the two formats before it —
 * `intent.json` (version 1, `$SKILLS_HOME`) or `project-intent.json` (version 1, a project's
 * `.agents/.staging`) — so reading also accepts those, turned into this shape. Every
 * journal is untrusted: one that does not check is not acted on. On disk:
 * runtime/store/journal.ts.
 */

import {
  array,
  boolean,
  formatIssue,
  literal,
  nullable,
  object,
  oneOf,
  string,
  type Validator,
} from "../manifest/validation.ts";

export const JOURNAL_FILE = "journal.json";
/** What `Change` wrote into `$SKILLS_HOME/.staging/<id>/` before the journal was one. */
export const LEGACY_USER_FILE = "intent.json";
/** What `ProjectChange` wrote into `<root>/.agents/.staging/<id>/` before that. */
export const LEGACY_PROJECT_FILE = "project-intent.json";

/** The journal's lockfile hash when a project change leaves the lockfile as it is. */
export const LOCKFILE_UNCHANGED = "unchanged";

export interface JournalItem {
  canonical: string;
  /** The skill's folder in its scope. */
  target: string;
  /** Where its previous folder is moved aside (it may have had none), else null. */
  aside: string | null;
  /** Whether a new folder is moved in at `target` (install, update) or not (removal). */
  movesIn: boolean;
  /** User scope: `updated_at` of the registry entry written for it; null for a removal. */
  updatedAt: string | null;
}

export interface Journal {
  version: 2;
  scope: "user" | "project";
  /**
   * Project scope: sha256 of the lockfile text the change writes last, or "unchanged" when
   * it leaves the lockfile alone; null in the user scope (the registry's entries tell).
   */
  lockfile: string | null;
  items: JournalItem[];
}

const JOURNAL: Validator<Journal> = object({
  version: literal(2),
  scope: oneOf("user", "project"),
  lockfile: nullable(string()),
  items: array(object({
    canonical: string(),
    target: string(),
    aside: nullable(string()),
    movesIn: boolean(),
    updatedAt: nullable(string()),
  })),
});

/** `intent.json` as version 1 wrote it (`$SKILLS_HOME` changes). */
export interface Intent {
  version: 1;
  op: "install" | "update" | "remove";
  items: { canonical: string; target: string; aside: string | null; updatedAt: string | null }[];
}

/** Checked with the core kit (zod costs 10-20 ms of start-up on every lifecycle command). */
const INTENT: Validator<Intent> = object({
  version: literal(1),
  op: oneOf("install", "update", "remove"),
  items: array(object({
    canonical: string(),
    target: string(),
    aside: nullable(string()),
    updatedAt: nullable(string()),
  })),
});

/** `project-intent.json` as version 1 wrote it (project changes). */
interface ProjectIntent {
  version: 1;
  lockfile: string;
  items: {
    canonical: string;
    target: string;
    aside: string | null;
    staged: string | null;
    hadOld: boolean;
  }[];
}

const PROJECT_INTENT: Validator<ProjectIntent> = object({
  version: literal(1),
  lockfile: string(),
  items: array(object({
    canonical: string(),
    target: string(),
    aside: nullable(string()),
    staged: nullable(string()),
    hadOld: boolean(),
  })),
});

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

function parseWith<T>(text: string, validator: Validator<T>, file: string): Parsed<T> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `${file} is not valid JSON (${(error as Error).message})` };
  }
  const problem = validator(data);
  return problem === undefined
    ? { ok: true, value: data as T }
    : { ok: false, reason: formatIssue(problem, file) };
}

/** Reads `intent.json` text: the intent, or why not (`intent.json at items.0.target: ...`). */
export function parseIntent(text: string): { ok: true; intent: Intent } | {
  ok: false;
  reason: string;
} {
  const parsed = parseWith(text, INTENT, LEGACY_USER_FILE);
  return parsed.ok ? { ok: true, intent: parsed.value } : parsed;
}

/** A version 1 `intent.json` in today's shape: its op told by `aside` and `movesIn`. */
function fromUserIntent(intent: Intent): Journal {
  return {
    version: 2,
    scope: "user",
    lockfile: null,
    items: intent.items.map((item) => ({
      canonical: item.canonical,
      target: item.target,
      // An install had no folder to move aside; version 1 wrote null there too.
      aside: intent.op === "install" ? null : item.aside,
      movesIn: intent.op !== "remove",
      updatedAt: intent.op === "remove" ? null : item.updatedAt,
    })),
  };
}

/**
 * A version 1 `project-intent.json` in today's shape. `hadOld` was always "aside is set",
 * and recovery never needed the staged folder's path, only whether one moved in.
 */
function fromProjectIntent(intent: ProjectIntent): Journal {
  return {
    version: 2,
    scope: "project",
    lockfile: intent.lockfile,
    items: intent.items.map((item) => ({
      canonical: item.canonical,
      target: item.target,
      aside: item.hadOld ? item.aside : null,
      movesIn: item.staged !== null,
      updatedAt: null,
    })),
  };
}

/** The journal's text as a change writes it. */
export function serializeJournal(journal: Journal): string {
  return JSON.stringify(journal);
}

/** `journal.json` text read back: the journal when it checks and is of `scope`. */
export function parseJournal(text: string, scope: Journal["scope"]): Journal | undefined {
  const parsed = parseWith(text, JOURNAL, JOURNAL_FILE);
  return parsed.ok && parsed.value.scope === scope ? parsed.value : undefined;
}

/**
 * The older format `scope` wrote (`intent.json` for the user's, `project-intent.json` for a
 * project's) read back in today's shape, when it checks.
 */
export function parseLegacyJournal(text: string, scope: Journal["scope"]): Journal | undefined {
  if (scope === "user") {
    const parsed = parseIntent(text);
    return parsed.ok ? fromUserIntent(parsed.intent) : undefined;
  }
  const parsed = parseWith(text, PROJECT_INTENT, LEGACY_PROJECT_FILE);
  return parsed.ok ? fromProjectIntent(parsed.value) : undefined;
}
