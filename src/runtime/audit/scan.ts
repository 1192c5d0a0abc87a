/**
 * Reading a skill for the audit: every regular file it ships (`.git` aside), each up to
 * AUDIT_MAX_FILE_BYTES, symlinks never followed, then the rules of core/audit.ts.
 * Synchronous reads: a thousand small files are a thousand tiny calls, where the per-call
 * cost of async ops would dominate.
 */

import { join } from "../os/paths.ts";
import { type AuditFile, type AuditReport, auditSkill } from "../../core/audit.ts";
import { AUDIT_MAX_FILE_BYTES } from "../../core/audit_rules.ts";
import { SkillError } from "../../core/errors.ts";
import type { Manifest } from "../../core/manifest.ts";
import { lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";

/** At most this many entries are walked (like validation's bound). */
const MAX_ENTRIES = 20_000;

/** Paths (`/`-separated, relative to `dir`) of every regular file, sorted. */
export function skillFiles(dir: string): string[] {
  const out: string[] = [];
  let seen = 0;
  const walk = (rel: string) => {
    const abs = rel === "" ? dir : join(dir, ...rel.split("/"));
    for (const entry of Deno.readDirSync(abs)) {
      if (++seen > MAX_ENTRIES) {
        throw new SkillError("invalid_path", `Cannot audit ${dir}: more than ${MAX_ENTRIES} files`);
      }
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isSymlink) continue;
      if (entry.isDirectory) {
        if (entry.name !== ".git") walk(path);
      } else if (entry.isFile) out.push(path);
    }
  };
  walk("");
  return out.sort();
}

/** What the audit needs of a manifest: the name and env permissions. */
type ManifestFacts = Pick<Manifest, "name" | "envPatterns">;

/**
 * Audits the skill in `dir`. `manifest` (when the caller has parsed it) supplies the name
 * and `permissions.env`; otherwise SKILL.md is parsed here, and a broken one only loses the
 * env-permission rule: every file is scanned as text regardless.
 */
export async function auditDir(dir: string, manifest?: ManifestFacts): Promise<AuditReport> {
  const info = lstatSyncOrNull(dir);
  if (info === null || !info.isDirectory || info.isSymlink) {
    throw new SkillError("not_found", `Cannot audit ${dir}: not a directory`);
  }
  const files: AuditFile[] = skillFiles(dir).map((path) => {
    const abs = join(dir, ...path.split("/"));
    const { bytes, complete } = readPrefixSync(abs, AUDIT_MAX_FILE_BYTES);
    return complete ? { path, bytes } : { path, bytes, size: lstatSyncOrNull(abs)?.size ?? 0 };
  });
  const facts = manifest ?? await manifestFacts(files);
  return auditSkill({ files, name: facts?.name, envPatterns: facts?.envPatterns });
}

async function manifestFacts(files: readonly AuditFile[]): Promise<ManifestFacts | undefined> {
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (skillMd === undefined) return undefined;
  const { parseSkillMd } = await import("../../core/manifest.ts");
  try {
    return (await parseSkillMd(skillMd.bytes, "SKILL.md")).manifest;
  } catch {
    return undefined; // unreadable front matter: the text rules still apply
  }
}
