/**
 * Reading a skill for the audit: every regular file it ships (`.git` aside), each up to
 * AUDIT_MAX_FILE_BYTES, symlinks never followed, then the rules of core/audit/engine.ts on
 * each file the audit cache (audit_cache.ts) does not already know by its bytes.
 * Synchronous reads: a thousand small files are a thousand tiny calls, where the per-call
 * cost of async ops would dominate.
 */

import { basename, join } from "../os/paths.ts";
import { cacheableFile } from "../../core/audit/file_findings.ts";
import { AuditCacheSession, fileKey } from "./audit_cache.ts";
import type { AuditFile, AuditReport } from "../../core/audit/engine.ts";
import { AUDIT_MAX_FILE_BYTES } from "../../core/audit/audit_rules.ts";
import { SkillError } from "../../core/errors.ts";
import type { Manifest } from "../../core/manifest/manifest.ts";
import { lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";

interface AuditOptions {
  /**
   * `$SKILLS_HOME`, whose `.cache/audit/` keeps each skill's last audit by its files' bytes
   * (audit_cache.ts); without it only this process's memory is used.
   */
  home?: string | undefined;
  /**
   * Keep this audit in that cache (`skills audit`); without it the cache is only read, so
   * that an install or update that is refused leaves the skills home as it was.
   */
  keep?: boolean | undefined;
}

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

/** What the audit needs of a manifest: the name, env and network permissions. */
type ManifestFacts = Pick<Manifest, "name" | "envPatterns" | "network" | "services">;

/**
 * At most this much is read from one skill in all: past it the skill is refused as too
 * large to review (the digest of an install reads every byte too, but needs no memory).
 */
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;

/**
 * Audits the skill in `dir`, one file at a time (a file's bytes are dropped once scanned).
 * `manifest` (when the caller has parsed it) supplies the name and `permissions.env`;
 * otherwise SKILL.md is parsed here, and a broken one only loses the env-permission rule:
 * every file is scanned as text regardless.
 */
export async function auditDir(
  dir: string,
  manifest?: ManifestFacts,
  options: AuditOptions = {},
): Promise<AuditReport> {
  const info = lstatSyncOrNull(dir);
  if (info === null || !info.isDirectory || info.isSymlink) {
    throw new SkillError("not_found", `Cannot audit ${dir}: not a directory`);
  }
  const read = (path: string): AuditFile => {
    const abs = join(dir, ...path.split("/"));
    const { bytes, complete } = readPrefixSync(abs, AUDIT_MAX_FILE_BYTES);
    return complete ? { path, bytes } : { path, bytes, size: lstatSyncOrNull(abs)?.size ?? 0 };
  };
  const paths = skillFiles(dir);
  const facts = manifest ??
    (paths.includes("SKILL.md") ? await manifestFacts(read("SKILL.md")) : undefined);
  // The engine (its flow analysis is most of the audit's code) loads when a skill is audited:
  // a command that audits nothing (`add --list`, `remove`, an add whose fetch fails) never
  // loads it (tests/cli/lazy_commands_test.ts).
  const { SkillAudit } = await import("../../core/audit/engine.ts");
  const audit = new SkillAudit({
    name: facts?.name,
    envPatterns: facts?.envPatterns,
    network: facts?.network,
    services: facts?.services,
  });
  const cache = await AuditCacheSession.open(options.home, facts?.name ?? basename(dir));
  let total = 0;
  for (const path of paths) {
    const file = read(path);
    total += file.bytes.length;
    if (total > MAX_TOTAL_BYTES) {
      throw new SkillError(
        "risky_skill",
        `Cannot audit ${dir}: its files exceed ${
          MAX_TOTAL_BYTES / 1024 / 1024
        } MiB, too much to review`,
      );
    }
    if (!cacheableFile(file)) {
      audit.add(file);
      continue;
    }
    const key = await fileKey(file);
    const known = cache.get(key);
    const found = audit.add(file, known);
    if (known === undefined) cache.set(key, found);
  }
  if (options.keep === true) cache.save();
  const report = audit.report();
  if (audit.unjudged.size === 0) return report;
  const { hostOwner } = await import("../../core/policy/host_owners.ts");
  return audit.report(hostOwner);
}

async function manifestFacts(skillMd: AuditFile): Promise<ManifestFacts | undefined> {
  const { parseSkillMd } = await import("../../core/manifest/manifest.ts");
  try {
    return (await parseSkillMd(skillMd.bytes, "SKILL.md")).manifest;
  } catch {
    return undefined; // unreadable front matter: the text rules still apply
  }
}
