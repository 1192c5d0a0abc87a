/**
 * `skills audit <target>`'s one workflow: what the target is — a skill directory or a folder
 * of skills, an installed or bundled skill by name, or a source — and the audit of every
 * skill it holds. A source is fetched into staging by a read-only preview change and
 * removed with it: nothing is installed. The filesystem is asked here, not in the command.
 */

import type { AuditReport } from "../../core/audit/engine.ts";
import { isSkillError, SkillError } from "../../core/errors.ts";
import { type Context, debug, warn } from "../../core/io.ts";
import type { Manifest } from "../../core/manifest/manifest.ts";
import { isValidSkillName } from "../../core/names.ts";
import { auditDir } from "../audit/scan.ts";
import { skillDirsAt } from "../catalog/discover.ts";
import { beginChange } from "../lifecycle/change.ts";
import { inspectCandidates, selectCandidates, sourceLabel } from "../lifecycle/fetch_source.ts";
import { resolveRequest, typedPath } from "../lifecycle/resolve_source.ts";
import { isWithin, lstatOrNull } from "../os/fs.ts";
import { join, relative } from "../os/paths.ts";
import { skillsHome } from "../store/home.ts";

/** One audited skill, with where its files are for the reader and for SARIF. */
export interface Audited {
  name: string | null;
  /** How the skill is shown: a path relative to the working directory, a name, a source. */
  label: string;
  /** SARIF: a path prefix relative to the working directory, or a file:// URI. */
  uriPrefix: string;
  report: AuditReport;
}

/**
 * A directory (or folder of skills), an installed or bundled skill, or a source, audited.
 * `progress` hears a source's fetch (what is cloned or pulled, retries).
 */
export async function auditTarget(
  target: string,
  ctx: Context,
  progress: (message: string) => void,
): Promise<Audited[]> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const path = typedPath(target, ctx.cwd, ctx.env);
  const info = target.includes("://") ? null : await lstatOrNull(path);
  if (info?.isDirectory) {
    const dirs = await skillDirsAt(path);
    if (dirs.length > 1 || await lstatOrNull(join(dirs[0]!, "SKILL.md"))) {
      return await Promise.all(dirs.map((dir) => auditLocal(dir, ctx.cwd)));
    }
  }
  if (!info && isValidSkillName(target)) {
    const installed = await auditInstalled(target, home, ctx);
    if (installed !== undefined) return [installed];
    throw new SkillError("not_found", `Cannot audit '${target}': no such directory or skill`, {
      hint: "Give a skill directory, an installed skill's name, or a source like owner/repo",
    });
  }
  return await auditSource(target, home, ctx, progress);
}

async function auditLocal(dir: string, cwd: string): Promise<Audited> {
  const report = await auditDir(dir);
  const rel = relative(cwd, dir).replaceAll("\\", "/");
  const name = await manifestName(dir);
  return {
    name,
    label: isWithin(cwd, dir) ? (rel === "" ? "." : rel) : dir,
    uriPrefix: prefixFor(dir, cwd),
    report,
  };
}

/** SARIF names files relative to the working directory when they are under it. */
function prefixFor(dir: string, cwd: string): string {
  if (!isWithin(cwd, dir)) return fileUri(dir);
  const rel = relative(cwd, dir).replaceAll("\\", "/");
  return rel === "" ? "" : `${rel}/`;
}

async function manifestName(dir: string): Promise<string | null> {
  try {
    const { inspectSkillDir } = await import("../catalog/loader.ts");
    return (await inspectSkillDir(dir)).manifest?.name ?? null;
  } catch {
    return null;
  }
}

function fileUri(dir: string): string {
  const posix = dir.replaceAll("\\", "/");
  const encoded = posix.split("/").map(encodeURIComponent).join("/");
  return `file://${posix.startsWith("/") ? "" : "/"}${encoded}/`;
}

async function auditInstalled(
  name: string,
  home: string,
  ctx: Context,
): Promise<Audited | undefined> {
  const { loadCatalog, findSkill } = await import("../catalog/catalog.ts");
  const catalog = await loadCatalog(home);
  try {
    const skill = findSkill(catalog, name);
    debug(ctx, `auditing ${skill.origin} skill ${skill.canonical} at ${skill.dir}`);
    return {
      name: skill.canonical,
      label: skill.canonical,
      uriPrefix: fileUri(skill.dir),
      report: await auditDir(skill.dir, skill.manifest, { home, keep: true }),
    };
  } catch (error) {
    if (!isSkillError(error) || error.code !== "not_found") throw error;
    const failure = catalog.failures.find((f) => f.canonical === name.toLowerCase());
    if (failure === undefined) return undefined;
    // A skill that fails to load is audited all the same: it may be why it fails.
    return {
      name: failure.canonical,
      label: failure.canonical,
      uriPrefix: fileUri(failure.dir),
      report: await auditDir(failure.dir),
    };
  }
}

async function auditSource(
  target: string,
  home: string,
  ctx: Context,
  progress: (message: string) => void,
): Promise<Audited[]> {
  const where = { cwd: ctx.cwd, env: ctx.env, home };
  const { source, request, selectors } = await resolveRequest(target, {}, [], where);
  await using change = await beginChange({ kind: "user", home }, {
    env: ctx.env,
    signal: ctx.signal,
    progress,
    preview: true,
  });
  const fetched = await change.fetch(source, request);
  const candidates = await inspectCandidates(fetched);
  const chosen = selectors.length === 0
    ? candidates
    : selectCandidates(candidates, selectors, sourceLabel(source));
  if (chosen.length === 0) {
    throw new SkillError("not_found", `No skills found in ${sourceLabel(source)}`);
  }
  const out: Audited[] = [];
  for (const c of chosen) {
    for (const e of c.errors) warn(ctx, `${c.name ?? c.rel}: ${e.message} (audited anyway)`);
    const facts: Pick<Manifest, "name" | "envPatterns"> | undefined = c.manifest;
    // A directory's files are named from the working directory (like a directory target);
    // a repository's from its root.
    const local = source.kind === "local-folder"
      ? join(source.path, ...c.rel.split("/"))
      : undefined;
    out.push({
      name: c.name ?? null,
      label: `${sourceLabel(source)}${c.rel === "" ? "" : ` (${c.rel})`}`,
      uriPrefix: local === undefined
        ? (c.rel === "" ? "" : `${c.rel}/`)
        : prefixFor(local, ctx.cwd),
      report: await auditDir(c.dir, facts, { home, keep: true }),
    });
  }
  return out;
}
