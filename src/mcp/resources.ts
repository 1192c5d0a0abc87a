/**
 * Skill files as MCP resources: `skill://<name>/SKILL.md` and every other file the active
 * skills ship (`references/…`, `assets/…`, `scripts/…` at any depth, the rest), bounded,
 * are listed; any file a skill serves can be
 * read (`skill://<name>/scripts/x.py` too). Reads have `read_skill_file`'s containment and
 * hidden-file rules, but return the file whole — text, or a base64 blob for binary files —
 * since a host checks it against SEP-2640's digest (skill_files.ts). The URI is parsed by
 * hand (a URL parser would quietly resolve `..`).
 */

import { type Envelope, fail, failFromError } from "../core/envelope.ts";
import { canonicalSkillName, quoteName } from "../core/names.ts";
import { listedDescription } from "../core/listing_budget.ts";
import type { LoadedSkill } from "../runtime/catalog/catalog.ts";
import { listScriptFiles } from "../runtime/catalog/contents.ts";
import { readServedFile } from "./skill_files.ts";
import { join } from "../runtime/os/paths.ts";

const SKILL_URI_SCHEME = "skill://";

interface SkillResource {
  uri: string;
  name: string;
  title: string;
  description?: string;
  mimeType: string;
}

type ResourceContents =
  | { uri: string; mimeType: string; text: string }
  | { uri: string; mimeType: string; blob: string };

/** Base64 without a spread of the whole array into arguments (files reach 16 MiB). */
function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

const MIME_TYPES: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  xml: "application/xml",
  xsd: "application/xml",
  xsl: "application/xml",
  rels: "application/xml",
  py: "text/x-python",
  sh: "text/x-shellscript",
  ts: "text/typescript",
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  toml: "application/toml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/vnd.microsoft.icon",
  bmp: "image/bmp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  ttf: "font/ttf",
  otf: "font/otf",
  woff: "font/woff",
  woff2: "font/woff2",
  zip: "application/zip",
  gz: "application/gzip",
  tgz: "application/gzip",
  tar: "application/x-tar",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  wasm: "application/wasm",
};

/**
 * A file's media type by its extension; an unknown one is `text/plain` when the file is
 * text (`LICENSE`, `Makefile`) and `application/octet-stream` when it is not, as `isText`
 * (the file's first bytes, or its whole content on a read) tells.
 */
export function mimeTypeOf(path: string, isText = true): string {
  const ext = path.includes(".") ? path.slice(path.lastIndexOf(".") + 1).toLowerCase() : "";
  return MIME_TYPES[ext] ?? (isText ? "text/plain" : "application/octet-stream");
}

/** Whether a file's first KiB reads as text (UTF-8, no NUL): for an unknown extension only. */
function looksLikeText(path: string): boolean {
  try {
    const file = Deno.openSync(path);
    try {
      const head = new Uint8Array(1024);
      const n = file.readSync(head) ?? 0;
      const bytes = head.subarray(0, n);
      if (bytes.includes(0)) return false;
      // A character cut at the KiB's end is still text.
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, Math.max(0, n - 3)));
      return true;
    } finally {
      file.close();
    }
  } catch {
    return true;
  }
}

/** The listed media type: by extension, else by the file's first bytes. */
function listedMimeType(dir: string, path: string): string {
  const known = mimeTypeOf(path);
  if (known !== "text/plain" || path.toLowerCase().endsWith(".txt")) return known;
  return mimeTypeOf(path, looksLikeText(join(dir, ...path.split("/"))));
}

export function skillUri(skill: string, path: string): string {
  return `${SKILL_URI_SCHEME}${skill}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** Every listed resource of the given (active) skills, SKILL.md first. */
export function listSkillResources(skills: readonly LoadedSkill[]): SkillResource[] {
  const out: SkillResource[] = [];
  for (const skill of skills) {
    out.push({
      uri: skillUri(skill.canonical, "SKILL.md"),
      // SEP-2640: a skill's SKILL.md resource is named after the skill itself.
      name: skill.canonical,
      title: `${skill.canonical}: instructions`,
      description: listedDescription(skill.manifest),
      mimeType: "text/markdown",
    });
    const others = skill.files.filter((path) => !path.startsWith("… and "));
    const scripts = listScriptFiles(skill.dir);
    for (const path of [...skill.references, ...skill.assets, ...scripts, ...others]) {
      out.push({
        uri: skillUri(skill.canonical, path),
        name: `${skill.canonical}/${path}`,
        title: `${skill.canonical}: ${path}`,
        mimeType: listedMimeType(skill.dir, path),
      });
    }
  }
  return out;
}

/**
 * `skill://<name>/<path>` → the skill name and the decoded relative path (still to be
 * checked by readSkillFile). A failure envelope for anything else.
 */
export function parseSkillUri(uri: string): { skill: string; path: string } | Envelope {
  if (!uri.startsWith(SKILL_URI_SCHEME)) {
    return fail(
      "invalid_path",
      `Unsupported resource URI '${quoteName(uri)}': use skill://<name>/<path>`,
    );
  }
  const rest = uri.slice(SKILL_URI_SCHEME.length).replace(/[?#].*$/s, "");
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) {
    return fail(
      "invalid_path",
      `Resource URI '${quoteName(uri)}' names no file: use skill://<name>/<path>`,
    );
  }
  const segments: string[] = [];
  for (const segment of rest.slice(slash + 1).split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return fail("invalid_path", `Resource URI '${quoteName(uri)}' is not valid percent-encoding`);
    }
    if (decoded.includes("/")) {
      return fail("invalid_path", `Resource URI '${quoteName(uri)}' encodes '/' inside a name`);
    }
    segments.push(decoded);
  }
  const path = segments.join("/");
  return { skill: rest.slice(0, slash), path };
}

/** How a skill's files are served: its verified copy (ToolSurface.served), or as it is. */
export type ServeSkill = (skill: LoadedSkill) => Promise<LoadedSkill>;
const asItIs: ServeSkill = (skill) => Promise.resolve(skill);

/**
 * Reads one resource of an active skill, whole, from the files `serve` says are served (the
 * verified copy: instructions edited after trust are refused). Never throws: failures are
 * envelopes.
 */
export async function readSkillResource(
  skills: readonly LoadedSkill[],
  uri: string,
  serve: ServeSkill = asItIs,
): Promise<{ ok: true; contents: ResourceContents } | { ok: false; error: Envelope }> {
  const parsed = parseSkillUri(uri);
  if ("success" in parsed) return { ok: false, error: parsed };
  let canonical: string;
  try {
    canonical = canonicalSkillName(parsed.skill);
  } catch (error) {
    return { ok: false, error: fail("invalid_name", (error as Error).message) };
  }
  const skill = skills.find((s) => s.canonical === canonical);
  if (skill === undefined) {
    const available = skills.map((s) => s.canonical).join(", ") || "none";
    return {
      ok: false,
      error: fail("not_found", `Skill '${canonical}' is not active (active skills: ${available})`),
    };
  }
  try {
    let verified: LoadedSkill;
    try {
      verified = await serve(skill);
    } catch (error) {
      return { ok: false, error: failFromError(error) };
    }
    const served = await readServedFile(verified, parsed.path);
    if ("success" in served) return { ok: false, error: served };
    const mimeType = mimeTypeOf(parsed.path, served.text !== undefined);
    return {
      ok: true,
      contents: served.text === undefined
        ? { uri, mimeType, blob: base64(served.bytes) }
        : { uri, mimeType, text: served.text },
    };
  } catch (error) {
    return { ok: false, error: fail("execution_failed", (error as Error).message) };
  }
}
