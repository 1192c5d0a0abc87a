/**
 * The run plan: what `skills run <skill> <script>` resolved through the catalog and trust — the
 * verified skill and its script, what the receipt and the sandbox must know of the catalog
 * (exec/prepared_run.ts's `ResolvedRun`) — kept in `$SKILLS_HOME/.cache/run-plans/`, so that the
 * next run of the same skill version skips the catalog, the trust check and the modules both
 * load: that cost is paid once per skill version, not per run.
 *
 * A plan is reused only while everything it was decided from is as it was, checked by stat
 * keys as the digest cache checks files (trust/file_hashes.ts: device, inode, size, ctime,
 * mtime, mode; ctime moves on every write, chmod and rename, and only the clock can turn it
 * back): the registry, every folder and file of the skill's installed folder and of the
 * verified copy it runs from (a folder's key moves when an entry is added, removed or
 * renamed). The project in sight of the working directory is asked on every run, as the
 * catalog's project search asks (core/records/scope.ts): its root and skill folders key the
 * plan, and where there are skill folders, every folder and file in them is stamped too, with
 * this user's approvals and links and the project's lockfile — a repository's skills shadow by
 * name, and it may change any of them at any time. Each key was settled — unchanged for two
 * seconds — before the command that wrote the plan began, so the files the catalog and trust
 * read then are the ones keyed. Anything else, and the run takes the full path through the
 * catalog and trust, which keeps a fresh plan. Nothing about the run itself is kept: the
 * environment, the workspace, the limits and the sandbox are decided anew each time.
 *
 * A plan is as trusted as the registry beside it: the same folder, the same writers.
 */

import { VERSION } from "../../core/version.ts";
// @ts-types="../../generated/bundled_index.d.ts"
import { BUNDLED_HASH } from "../../generated/bundled_index.ts";
import {
  LOCKFILE_NAME,
  PROJECT_SKILL_FOLDERS,
  projectRootFrom,
  projectSearchDirs,
  userHomeIn,
} from "../../core/records/scope.ts";
import { dirname, join } from "../os/paths.ts";
import { lstatSyncOrNull, writeFileAtomicSync } from "../os/fs.ts";
import { LINKS_FILE, PROJECT_TRUST_FILE, REGISTRY_FILE } from "../store/home.ts";
import type { ResolvedRun } from "./prepared_run.ts";

const PLAN_DIR = join(".cache", "run-plans");
const PLAN_VERSION = 3;
/** A key is kept only when its ctime was this much older than the command that read it. */
const SETTLE_MS = 2_000;
/**
 * A run that depends on more paths than this (a skill, its copy, a project's skill folders) is
 * checked in full every time.
 */
const MAX_STAMPS = 2_000;
/** Plans kept at most (one per skill and script run); the least recently kept go first. */
const MAX_PLANS = 64;

/** What `skills run` was asked: the skill and script as the user wrote them. */
interface RunAsked {
  skill: string;
  script: string;
}

/** Where the run was asked from, and what the plan's writer reports. */
interface RunPlace {
  cwd: string;
  env: Readonly<Record<string, string>>;
  log?: ((message: string) => void) | undefined;
}

interface RunPlan {
  version: number;
  /** The build and the request it answers (a plan file's name is a hash of it). */
  key: string;
  resolved: ResolvedRun;
  /** Each path the resolution depended on and its stat key then (null: nothing there). */
  stamps: [string, string | null][];
}

/**
 * The resolution kept for this request, when it still holds; else undefined (and `--verbose`
 * says why), and the run takes the full path.
 */
export function plannedRun(
  home: string,
  asked: RunAsked,
  place: RunPlace,
): ResolvedRun | undefined {
  try {
    const key = planKey(asked, projectSight(place.cwd, place.env));
    const plan = readPlan(planPath(home, key));
    if (plan === undefined || plan.key !== key) return undefined;
    for (const [path, then] of plan.stamps) {
      const info = lstatSyncOrNull(path);
      if ((info === null ? null : keyOf(info)) !== then) {
        place.log?.(`run plan not used: ${path} changed; checking the skill in full`);
        return undefined;
      }
    }
    place.log?.(`run plan used: ${plan.stamps.length} paths unchanged`);
    return plan.resolved;
  } catch (error) {
    // Unreadable now (permissions): the full path says what is wrong.
    place.log?.(`run plan not used: ${(error as Error).message}`);
    return undefined;
  }
}

/** What decides whether a resolution may be kept, besides the resolution itself. */
interface KeepFacts extends RunPlace {
  /** The installed folder trust verified (an installed skill's), if any. */
  installedDir: string | undefined;
  /** When the command began, before the catalog was read. */
  startedAt: number;
}

/**
 * Keeps `resolved` as the plan for `asked`, when every path it depends on was settled before
 * the command began and no project skill folder is visible. Never fails the run: a plan that
 * cannot be written is only a slower next run.
 */
export function keepRunPlan(
  home: string,
  asked: RunAsked,
  resolved: ResolvedRun,
  facts: KeepFacts,
): void {
  try {
    const sight = projectSight(facts.cwd, facts.env);
    const stamps = planStamps(home, resolved, sight, facts);
    if (stamps === undefined) return;
    const key = planKey(asked, sight);
    const plan: RunPlan = { version: PLAN_VERSION, key, resolved, stamps };
    Deno.mkdirSync(join(home, PLAN_DIR), { recursive: true });
    writeFileAtomicSync(planPath(home, key), JSON.stringify(plan), { durable: false });
    prunePlans(join(home, PLAN_DIR));
  } catch (error) {
    facts.log?.(`run plan not kept: ${(error as Error).message}`);
  }
}

/**
 * Removes the least recently kept plans past MAX_PLANS: a plan of a skill removed or run no
 * more never holds again, and one of a home of many skills lists every other skill's folder.
 */
function prunePlans(dir: string): void {
  const plans = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".json"));
  if (plans.length <= MAX_PLANS) return;
  const kept = plans.map((e) => {
    const path = join(dir, e.name);
    return { path, at: lstatSyncOrNull(path)?.mtime?.getTime() ?? 0 };
  }).sort((a, b) => a.at - b.at);
  for (const { path } of kept.slice(0, kept.length - MAX_PLANS)) {
    try {
      Deno.removeSync(path);
    } catch { /* gone already */ }
  }
}

/**
 * The stamps of everything the resolution depended on, or undefined when it may not be kept:
 * a path changed too recently to tell its key from the contents the catalog and trust read,
 * or too many paths. With project skill folders in sight, every folder and file in them, this
 * user's approvals and links, and the project's lockfile: all a project's skills are read
 * (they shadow by name) and a repository may change any of them at any time.
 */
function planStamps(
  home: string,
  resolved: ResolvedRun,
  sight: ProjectSight,
  facts: KeepFacts,
): [string, string | null][] | undefined {
  const stamps: [string, string | null][] = [[join(home, REGISTRY_FILE), null]];
  if (sight.folders.length > 0) {
    stamps.push(
      [join(home, PROJECT_TRUST_FILE), null],
      [join(home, LINKS_FILE), null],
      [join(sight.root, LOCKFILE_NAME), null],
    );
    for (const [path, real] of sight.folders) {
      stamps.push([path, null]);
      if (real !== "") stamps.push(...treeStamps(real));
    }
  }
  if (facts.installedDir !== undefined) stamps.push(...treeStamps(facts.installedDir));
  stamps.push(...treeStamps(resolved.skill.dir));
  if (stamps.length > MAX_STAMPS) return undefined;
  const settledBy = facts.startedAt - SETTLE_MS;
  for (const stamp of stamps) {
    const info = lstatSyncOrNull(stamp[0]);
    if (info !== null && (info.ctime === null || info.ctime.getTime() > settledBy)) {
      facts.log?.(`run plan not kept: ${stamp[0]} changed within the last two seconds`);
      return undefined;
    }
    stamp[1] = info === null ? null : keyOf(info);
  }
  return stamps;
}

/**
 * Every folder and file under `root` (itself included), keys left to fill. Links are listed,
 * never followed (a verified copy holds none). Stops listing past MAX_STAMPS.
 */
function treeStamps(root: string): [string, string | null][] {
  const out: [string, string | null][] = [[root, null]];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      if (out.length > MAX_STAMPS) return;
      const path = join(dir, entry.name);
      out.push([path, null]);
      if (entry.isDirectory && !entry.isSymlink) walk(path);
    }
  };
  walk(root);
  return out;
}

/**
 * The project as the catalog's project search sees it from `cwd`: its root, whether that is a
 * repository's, and each skill folder in sight (nearest first) with the real folder it is
 * ("" when it cannot be resolved: the search skips it). Asked on every run; the plan is keyed
 * by it.
 */
interface ProjectSight {
  root: string;
  repository: boolean;
  folders: [string, string][];
}

function projectSight(cwd: string, env: Readonly<Record<string, string>>): ProjectSight {
  let from = cwd;
  try {
    from = Deno.realPathSync(cwd);
  } catch { /* searched from where it says, as the catalog does */ }
  const probe = { present: (path: string) => lstatSyncOrNull(path) !== null, join, dirname };
  const project = projectRootFrom(from, probe);
  const folders: [string, string][] = [];
  for (const dir of projectSearchDirs(project, userHomeIn(env), probe)) {
    for (const parts of PROJECT_SKILL_FOLDERS) {
      const path = join(dir, ...parts);
      if (!probe.present(path)) continue;
      let real = "";
      try {
        real = Deno.realPathSync(path);
      } catch { /* a broken link: skipped by the search, and so stamped */ }
      folders.push([path, real]);
    }
  }
  return { root: project.root, repository: project.repository, folders };
}

function planKey(asked: RunAsked, sight: ProjectSight): string {
  return [
    `v${PLAN_VERSION}`,
    VERSION,
    BUNDLED_HASH,
    asked.skill,
    asked.script,
    // Without skill folders in sight the project plays no part: one plan for every folder.
    sight.folders.length === 0 ? "" : JSON.stringify(sight),
  ].join("\0");
}

/** The plan's file: a hash of its key names it (the key itself is checked inside). */
function planPath(home: string, key: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return join(home, PLAN_DIR, `${hash.toString(16).padStart(8, "0")}.json`);
}

function readPlan(path: string): RunPlan | undefined {
  try {
    const plan = JSON.parse(Deno.readTextFileSync(path));
    const { resolved, stamps } = plan ?? {};
    const wellFormed = plan.version === PLAN_VERSION && typeof plan.key === "string" &&
      Array.isArray(stamps) && typeof resolved?.skill?.dir === "string" &&
      typeof resolved?.script?.path === "string" && Array.isArray(resolved?.otherSkills) &&
      typeof resolved?.skillCacheId === "string";
    return wellFormed ? plan : undefined;
  } catch {
    return undefined; // none yet, or unreadable: the full path
  }
}

/** What a user cannot put back: device, inode, size, ctime, mtime and mode. */
function keyOf(info: Deno.FileInfo): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.ctime?.getTime()}:${info.mtime?.getTime()}:${info.mode}`;
}
