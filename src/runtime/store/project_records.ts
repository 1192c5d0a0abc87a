/**
 * `$SKILLS_HOME/project-trust.json` and `$SKILLS_HOME/links.json` on disk (models in
 * core/records/project_records.ts): read without the lock (a reader sees the old or the new file,
 * never half of one), changed under the registry lock with an atomic replace. A file that
 * does not parse is an error for a change (it would drop other records) and, for a listing,
 * a note with nothing trusted (the safe reading).
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import {
  emptyLinks,
  emptyProjectTrust,
  type LinksDocument,
  parseLinks,
  parseProjectTrust,
  type ProjectTrustDocument,
  serializeRecords,
} from "../../core/records/project_records.ts";
import { writeFileAtomicSync } from "../os/fs.ts";
import { withRegistryLock } from "./registry.ts";
import { LINKS_FILE, PROJECT_TRUST_FILE } from "./home.ts";

function projectTrustPath(home: string): string {
  return join(home, PROJECT_TRUST_FILE);
}

function linksPath(home: string): string {
  return join(home, LINKS_FILE);
}

type Read<T> = { doc: T; problem: string | undefined };

function readDoc<T>(
  path: string,
  empty: () => T,
  parse: (text: string) => { ok: true; value: T } | { ok: false; reason: string },
): Read<T> {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { doc: empty(), problem: undefined };
    return { doc: empty(), problem: `Cannot read ${path}: ${(error as Error).message}` };
  }
  const parsed = parse(text);
  return parsed.ok
    ? { doc: parsed.value, problem: undefined }
    : { doc: empty(), problem: `Cannot read ${path}: it ${parsed.reason}` };
}

/** The trust records; a problem (unreadable file) comes back with an empty document. */
export function readProjectTrust(home: string): Read<ProjectTrustDocument> {
  return readDoc(projectTrustPath(home), emptyProjectTrust, parseProjectTrust);
}

export function readLinks(home: string): Read<LinksDocument> {
  return readDoc(linksPath(home), emptyLinks, parseLinks);
}

function strict<T>(read: Read<T>): T {
  if (read.problem !== undefined) {
    throw new SkillError("registry_corrupt", read.problem, {
      hint: "Fix or delete the file by hand (it holds approvals and links only)",
    });
  }
  return read.doc;
}

async function change<D, T>(
  home: string,
  path: string,
  read: () => Read<D>,
  mutate: (doc: D) => { doc: D; result: T },
): Promise<T> {
  return await withRegistryLock(home, () => {
    const { doc, result } = mutate(strict(read()));
    writeFileAtomicSync(path, serializeRecords(doc as ProjectTrustDocument));
    return Promise.resolve(result);
  });
}

/** Changes the trust records under the registry lock (atomic replace). */
export async function updateProjectTrust<T>(
  home: string,
  mutate: (doc: ProjectTrustDocument) => { doc: ProjectTrustDocument; result: T },
): Promise<T> {
  return await change(home, projectTrustPath(home), () => readProjectTrust(home), mutate);
}

/** Changes the link records under the registry lock (atomic replace). */
export async function updateLinks<T>(
  home: string,
  mutate: (doc: LinksDocument) => { doc: LinksDocument; result: T },
): Promise<T> {
  return await change(home, linksPath(home), () => readLinks(home), mutate);
}
