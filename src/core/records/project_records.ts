/**
 * Two small documents in the user's `$SKILLS_HOME`, never in the project (a repository must
 * not be able to trust itself):
 *
 * - `project-trust.json`: the project skills this user trusted, by project root (absolute
 *   path) and the skill's folder inside it, each bound to the digest of its files — the
 *   same approval `skills trust` records for installed skills in the registry.
 * - `links.json`: the links and copies `skills link` made into agents' skill folders, so
 *   `skills remove` removes exactly those and `skills check` verifies them.
 *
 * Both are untrusted input when read back (validated with the kit), versioned, and written
 * atomically under the registry lock (runtime/store/project_records.ts).
 */

import {
  array,
  formatIssue,
  literal,
  nullable,
  object,
  oneOf,
  record,
  string,
  type Validator,
} from "../manifest/validation.ts";

const DIGEST = /^sha256:[0-9a-f]{64}$/;

interface ProjectTrustRecord {
  /** Canonical skill name when it was trusted (for messages). */
  name: string;
  digest: string;
  trusted_at: string;
  [extra: string]: unknown;
}

export interface ProjectTrustDocument {
  version: 1;
  /** Project root → the skill's folder relative to it (`/` separators) → approval. */
  projects: Record<string, Record<string, ProjectTrustRecord>>;
  [extra: string]: unknown;
}

export interface LinkRecord {
  /** The link (or copy) in an agent's folder, absolute. */
  path: string;
  /** The skill directory it shows, absolute. */
  target: string;
  /** Canonical skill name. */
  skill: string;
  agent: string;
  scope: "project" | "user";
  /** The project root for project-scope links, else null. */
  project: string | null;
  mode: "symlink" | "copy";
  /** The trusted digest of the skill when the link was made. */
  digest: string;
  created_at: string;
  [extra: string]: unknown;
}

export interface LinksDocument {
  version: 1;
  links: LinkRecord[];
  [extra: string]: unknown;
}

const TRUST: Validator<ProjectTrustDocument> = object({
  version: literal(1),
  projects: record(
    record(object({ name: string(), digest: string({ pattern: DIGEST }), trusted_at: string() })),
  ),
});

const LINKS: Validator<LinksDocument> = object({
  version: literal(1),
  links: array(object({
    path: string({ min: 1 }),
    target: string({ min: 1 }),
    skill: string({ min: 1 }),
    agent: string({ min: 1 }),
    scope: oneOf("project", "user"),
    project: nullable(string()),
    mode: oneOf("symlink", "copy"),
    digest: string({ pattern: DIGEST }),
    created_at: string(),
  })),
});

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

function parseWith<T>(validator: Validator<T>, text: string, what: string): Parsed<T> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `is not valid JSON (${(error as Error).message})` };
  }
  const problem = validator(data);
  return problem === undefined
    ? { ok: true, value: data as T }
    : { ok: false, reason: formatIssue(problem, `does not match the ${what} schema`) };
}

export function emptyProjectTrust(): ProjectTrustDocument {
  return { version: 1, projects: {} };
}

export function parseProjectTrust(text: string): Parsed<ProjectTrustDocument> {
  return parseWith(TRUST, text, "project trust");
}

export function emptyLinks(): LinksDocument {
  return { version: 1, links: [] };
}

export function parseLinks(text: string): Parsed<LinksDocument> {
  return parseWith(LINKS, text, "links");
}

export function serializeRecords(doc: ProjectTrustDocument | LinksDocument): string {
  return JSON.stringify(doc, null, 2) + "\n";
}

/** The trust document with `rel` of project `root` approved (or, with null, withdrawn). */
export function withProjectTrust(
  doc: ProjectTrustDocument,
  root: string,
  rel: string,
  approval: ProjectTrustRecord | null,
): ProjectTrustDocument {
  const skills = { ...(doc.projects[root] ?? {}) };
  if (approval === null) delete skills[rel];
  else skills[rel] = approval;
  const projects = { ...doc.projects, [root]: skills };
  if (Object.keys(skills).length === 0) delete projects[root];
  return { ...doc, projects };
}

/** The links document with `link` recorded (replacing any record of the same path). */
export function withLink(doc: LinksDocument, link: LinkRecord): LinksDocument {
  const links = doc.links.filter((l) => l.path !== link.path);
  links.push(link);
  links.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ...doc, links };
}

export function withoutLinks(doc: LinksDocument, paths: ReadonlySet<string>): LinksDocument {
  return { ...doc, links: doc.links.filter((l) => !paths.has(l.path)) };
}
