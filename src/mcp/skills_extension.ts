/**
 * SEP-2640, MCP's skills extension (`io.modelcontextprotocol/skills`; the landed text is
 * specification/stable/skills.mdx in modelcontextprotocol/ext-skills). `skills/list`
 * (paginated with `nextCursor`) and `skills/get` return each active skill's entry: the URI
 * of its SKILL.md, its front matter verbatim as JSON, and every file it serves with a
 * `sha256:` digest and size — computed from the very bytes `resources/read` returns
 * (skill_files.ts), at the time of the request. A skill installed under another name than
 * its SKILL.md's is listed under the installed one (see servedFrontmatter). `resources/directory/read` is not offered
 * (`directoryRead` is not declared).
 *
 * The SDK ships no schemas for these methods: requests are checked with the core kit and
 * answered by the server's fallback request handler, which also keeps the SDK's "method
 * not found" answer for everything else.
 */

import { sha256Hex } from "../core/records/digest.ts";
import { decodeSkillMd, loadFrontMatterYaml, splitSkillMd } from "../core/manifest/frontmatter.ts";
import {
  formatIssue,
  isPlainObject,
  object,
  optional,
  string,
  validate,
} from "../core/manifest/validation.ts";
import type { LoadedSkill } from "../runtime/catalog/catalog.ts";
import { parseSkillUri, skillUri } from "./resources.ts";
import { readServedFile, servedFilePaths } from "./skill_files.ts";
import type { ServeSkill } from "./resources.ts";
import { invalidParams, METHOD_NOT_FOUND, ProtocolError } from "./protocol_error.ts";

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** Entries per `skills/list` page. */
const PAGE_SIZE = 50;
/** How long a host may treat a listing or entry as current (a freshness hint only). */
const TTL_MS = 60_000;

interface SkillFileEntry {
  uri: string;
  /** `sha256:` and 64 lower-case hex digits of the file's raw bytes. */
  digest: string;
  size: number;
}

export interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string; [key: string]: unknown };
  resources: SkillFileEntry[];
}

const LIST_PARAMS = optional(object({ cursor: optional(string({ max: 200 })) }));
const GET_PARAMS = object({ uri: string({ max: 4096 }) });

/**
 * A skill's entry, read now; or why it is not served under SEP-2640 (over the limits, or
 * front matter without a name or description).
 */
async function skillEntry(
  listed: LoadedSkill,
  serve: ServeSkill,
): Promise<SkillEntry | { refused: string }> {
  let skill: LoadedSkill;
  try {
    skill = await serve(listed); // the verified copy: digests of what was trusted
  } catch (error) {
    return { refused: (error as Error).message };
  }
  const paths = await servedFilePaths(skill);
  if (!Array.isArray(paths)) return paths;
  const resources: SkillFileEntry[] = [];
  let frontmatter: unknown;
  for (const path of paths) {
    const served = await readServedFile(skill, path);
    // A file removed or replaced since the walk: the listing must not name what is not served.
    if ("success" in served) continue;
    resources.push({
      uri: skillUri(skill.canonical, path),
      digest: `sha256:${await sha256Hex(served.bytes)}`,
      size: served.bytes.length,
    });
    if (path === "SKILL.md") frontmatter = await frontMatterOf(served.bytes);
  }
  if (!isPlainObject(frontmatter)) return { refused: "its SKILL.md front matter cannot be read" };
  const { name, description } = frontmatter;
  if (typeof name !== "string" || typeof description !== "string") {
    return { refused: "its front matter lacks a name or a description" };
  }
  return {
    uri: skillUri(skill.canonical, "SKILL.md"),
    frontmatter: servedFrontmatter(frontmatter, name, description, skill.canonical),
    resources,
  };
}

/** Where a skill served under another name than its SKILL.md's keeps the name it was published with. */
export const ORIGINAL_NAME_KEY = "original-name";

/**
 * The front matter as written — except a skill installed under another name (`--name`, or
 * a published name such as `Ahrefs Automation` installed as `ahrefs-automation`): the
 * extension wants the entry's name to be the one in its URI, so `name` is the installed
 * name and the published one is kept in `metadata` under {@link ORIGINAL_NAME_KEY}.
 */
function servedFrontmatter(
  frontmatter: Record<string, unknown>,
  name: string,
  description: string,
  served: string,
): SkillEntry["frontmatter"] {
  if (name === served) return { ...frontmatter, name, description };
  const metadata = isPlainObject(frontmatter.metadata) ? frontmatter.metadata : {};
  return {
    ...frontmatter,
    name: served,
    description,
    metadata: { ...metadata, [ORIGINAL_NAME_KEY]: name },
  };
}

/** The front matter as the YAML says it (core schema), as JSON data; undefined if unreadable. */
async function frontMatterOf(bytes: Uint8Array): Promise<unknown> {
  try {
    const split = splitSkillMd(decodeSkillMd(bytes));
    return JSON.parse(JSON.stringify(await loadFrontMatterYaml(split.yaml, split.yamlLine)));
  } catch {
    return undefined;
  }
}

/** Cursors are opaque to clients: a base64 offset into the (sorted) active skills. */
function decodeCursor(cursor: string | undefined, count: number): number {
  if (cursor === undefined) return 0;
  const offset = /^[A-Za-z0-9+/=]{1,16}$/.test(cursor) ? Number(atob(cursor)) : NaN;
  if (!Number.isInteger(offset) || offset < 0 || offset > count) {
    throw invalidParams(`Invalid cursor '${cursor.slice(0, 40)}'`);
  }
  return offset;
}

interface ExtensionRequest {
  method: string;
  params?: unknown;
}

/**
 * Answers `skills/list` and `skills/get` for the active `skills`; any other method is
 * "method not found", as the SDK answers a method without a handler.
 */
export function skillsExtensionHandler(
  served: readonly LoadedSkill[] | (() => readonly LoadedSkill[]),
  log: (message: string) => void,
  pageSize = PAGE_SIZE,
  serve: ServeSkill = (skill) => Promise.resolve(skill),
): (request: ExtensionRequest) => Promise<Record<string, unknown>> {
  return async (request) => {
    // The active skills as they are now: the catalog may have changed since the last request.
    const skills = typeof served === "function" ? served() : served;
    switch (request.method) {
      case "skills/list": {
        const params = validate(LIST_PARAMS, request.params);
        if (!params.ok) throw invalidParams(`skills/list: ${formatIssue(params.issue)}`);
        const start = decodeCursor(params.value?.cursor, skills.length);
        const page = skills.slice(start, start + pageSize);
        const entries: SkillEntry[] = [];
        for (const skill of page) {
          const entry = await skillEntry(skill, serve);
          if ("refused" in entry) {
            log(`skills/list leaves out '${skill.canonical}': ${entry.refused}`);
          } else entries.push(entry);
        }
        const next = start + page.length;
        return {
          resultType: "complete",
          skills: entries,
          ...(next < skills.length ? { nextCursor: btoa(String(next)) } : {}),
          ttlMs: TTL_MS,
          cacheScope: "private",
        };
      }
      case "skills/get": {
        const params = validate(GET_PARAMS, request.params);
        if (!params.ok) throw invalidParams(`skills/get: ${formatIssue(params.issue)}`);
        const { uri } = params.value;
        const parsed = parseSkillUri(uri);
        const skill = "success" in parsed || parsed.path !== "SKILL.md"
          ? undefined
          : skills.find((s) => s.canonical === parsed.skill);
        if (skill === undefined) throw invalidParams(`No skill is served at ${uri}`);
        const entry = await skillEntry(skill, serve);
        if ("refused" in entry) {
          throw invalidParams(`Skill at ${uri} is not served: ${entry.refused}`);
        }
        return { resultType: "complete", skill: entry, ttlMs: TTL_MS, cacheScope: "private" };
      }
      default:
        throw new ProtocolError(METHOD_NOT_FOUND, "Method not found");
    }
  };
}
