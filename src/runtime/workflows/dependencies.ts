/**
 * Skills that need skills (core/sources/requirements.ts): the closure of what the skills
 * chosen for `skills add` require, resolved before anything is asked — every requirement's
 * source resolved and fetched into the same change's staging (at the highest git tag its
 * range allows), its skill chosen, its own requirements followed — with cycles closed (a
 * skill reached again is the one already resolved), diamonds joined (one version that
 * satisfies every range, fetched again when the first choice does not), and a clear refusal
 * naming both paths when no version does, or naming the path to a dependency that cannot be
 * fetched or found. Nothing is written here: `add` plans, shows and commits the closure as one
^ * (add.ts), and records who requires what (`required_by` in the registry,
 * `requiredBy` in skills-lock.json), which `skills why` reads back.
 */

import { SkillError } from "../../core/errors.ts";
import { canonicalSkillName, quoteName } from "../../core/names.ts";
import { findProjectRoot } from "../catalog/scopes.ts";
import { readProjectLock } from "../store/lockfile.ts";
import { readRegistry } from "../store/registry.ts";
import { skillsHome } from "../store/home.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import type { LockedSkill } from "../../core/records/lockfile.ts";
import type { Scope } from "../../core/records/scope.ts";
import { bestTag, type Requirement, requirementsOf } from "../../core/sources/requirements.ts";
import { type RefRequest, sourceLocation } from "../../core/sources/sources.ts";
import type { Change } from "../lifecycle/change.ts";
import {
  type Candidate,
  type Fetched,
  inspectCandidates,
  selectCandidates,
  sourceLabel,
} from "../lifecycle/fetch_source.ts";
import { resolveRequest, type SourceRequest } from "../lifecycle/resolve_source.ts";

/** A dependency of the skills asked for, fetched and chosen. */
export interface ClosureMember {
  fetched: Fetched;
  candidate: Candidate;
  /** The requirement as the first skill to need it wrote it. */
  requirement: string;
  /** Canonical names of the skills that require it. */
  requiredBy: string[];
  /** The first way it was reached: `a → b` (each the skill that required the next). */
  path: string[];
  /** The ranges asked of it, and the tag chosen for them. */
  ranges: string[];
  tag: string | null;
}

/** Where requirement sources are looked up (as for `skills add`). */
interface Where {
  cwd: string;
  env: Readonly<Record<string, string>>;
  home: string;
}

/** At most this many dependencies in one closure. */
const MAX_CLOSURE = 200;

interface Pending {
  requirement: Requirement;
  /** The skills from a requested one to the one that states this requirement. */
  path: string[];
}

const arrow = (path: readonly string[]) => path.join(" → ");

function dependencyError(
  pending: Pending,
  reason: string,
  code: SkillError["code"] = "dependency_unavailable",
): SkillError {
  return new SkillError(
    code,
    `Cannot install ${arrow(pending.path)}: its dependency '${
      quoteName(pending.requirement.source)
    }'${pending.requirement.range ? ` ${pending.requirement.range}` : ""} ${reason}`,
    { hint: "Nothing was installed" },
  );
}

/** Where a candidate comes from: its source's location and its folder there. */
function identity(fetched: Fetched, candidate: Candidate): string {
  return `${sourceLocation(fetched.source)}\0${candidate.rel}`;
}

/** What a requirement names before it is fetched: the location, path and skill asked for. */
function sourceKey(resolved: SourceRequest): string {
  return [sourceLocation(resolved.source), resolved.source.subpath, ...resolved.selectors].join(
    "\0",
  );
}

/**
 * The source string a requirement is resolved from: an npm package's range is its own
 * (`npm:pkg ^1.2` is `npm:pkg@^1.2`: the registry picks the version, as `add` does).
 */
function requestedSource(requirement: Requirement): string {
  const { source, range } = requirement;
  return /^npm:/.test(source) && range !== undefined ? `${source}@${range}` : source;
}

/** The requirements a chosen candidate states, each with the path that reached it. */
function pendingOf(candidate: Candidate, path: readonly string[]): Pending[] {
  const { requirements, problems } = requirementsOf(
    candidate.manifest?.metadata,
    candidate.manifest?.toolhiveRequires,
  );
  const here = [...path, candidate.canonical ?? candidate.rel];
  if (problems.length > 0) {
    throw new SkillError(
      "invalid_manifest",
      `Cannot install ${arrow(here)}: ${problems.join("; ")}`,
      { hint: "Nothing was installed" },
    );
  }
  return requirements.map((requirement) => ({ requirement, path: here }));
}

/**
 * The closure of what `selected` (from `fetched`) require, in the order found; empty when
 * they require nothing. Throws, with nothing written, for a dependency that cannot be had.
 */
export async function resolveClosure<S extends Scope>(
  change: Change<S>,
  fetched: Fetched,
  selected: readonly Candidate[],
  where: Where,
): Promise<ClosureMember[]> {
  const requested = new Set(selected.map((c) => identity(fetched, c)));
  const byKey = new Map<string, ClosureMember>();
  const byIdentity = new Map<string, ClosureMember>();
  const queue: Pending[] = selected.flatMap((c) => pendingOf(c, []));
  while (queue.length > 0) {
    const pending = queue.shift()!;
    const resolved = await resolveRequest(requestedSource(pending.requirement), {}, [], where)
      .catch(
        (error) => {
          throw dependencyError(pending, `cannot be read: ${(error as Error).message}`);
        },
      );
    const parent = pending.path.at(-1)!;
    const known = byKey.get(sourceKey(resolved));
    if (known !== undefined) {
      await join(change, known, pending, resolved, queue);
      continue;
    }
    if (byKey.size >= MAX_CLOSURE) {
      throw dependencyError(pending, `goes past ${MAX_CLOSURE} dependencies`);
    }
    const tag = await chooseTag(change, resolved, pending, [pending.requirement.range]);
    const got = await fetchOne(change, resolved, pending, tag);
    const id = identity(got.fetched, got.candidate);
    // A cycle back to a skill asked for, or another spelling of one already resolved.
    if (requested.has(id)) continue;
    const same = byIdentity.get(id);
    if (same !== undefined) {
      byKey.set(sourceKey(resolved), same);
      await join(change, same, pending, resolved, queue);
      continue;
    }
    const member: ClosureMember = {
      ...got,
      requirement: pending.requirement.source,
      requiredBy: [parent],
      path: pending.path,
      ranges: pending.requirement.range ? [pending.requirement.range] : [],
      tag,
    };
    byKey.set(sourceKey(resolved), member);
    byIdentity.set(id, member);
    queue.push(...pendingOf(got.candidate, pending.path));
  }
  return [...new Set(byIdentity.values())];
}

/**
 * A requirement of a dependency already resolved (a diamond, or a cycle among dependencies):
 * the skill is required by one more; a range it does not satisfy moves it to a tag that
 * satisfies every range, or refuses naming both paths.
 */
async function join<S extends Scope>(
  change: Change<S>,
  member: ClosureMember,
  pending: Pending,
  resolved: SourceRequest,
  queue: Pending[],
): Promise<void> {
  const parent = pending.path.at(-1)!;
  if (!member.requiredBy.includes(parent)) member.requiredBy.push(parent);
  const range = pending.requirement.range;
  if (range === undefined || member.ranges.includes(range)) return;
  const ranges = [...member.ranges, range];
  // Two ranges on one npm package are not joined: the package is installed at one range.
  const tag = resolved.source.type === "npm"
    ? undefined
    : await chooseTag(change, resolved, pending, ranges).catch(() => undefined);
  if (tag === undefined || tag === null) {
    throw new SkillError(
      "conflict",
      `Cannot install the dependencies: '${quoteName(member.requirement)}' is required as ${
        member.ranges.join(", ") || "any version"
      } by ${arrow(member.path)} and as ${range} by ${
        arrow(pending.path)
      }, and no version satisfies both`,
      { hint: "Nothing was installed" },
    );
  }
  member.ranges = ranges;
  if (tag === member.tag) return;
  const got = await fetchOne(change, resolved, pending, tag);
  member.fetched = got.fetched;
  member.candidate = got.candidate;
  member.tag = tag;
  queue.push(...pendingOf(got.candidate, member.path));
}

/** The highest tag satisfying every range (null when no range is asked, or the source names its ref). */
async function chooseTag<S extends Scope>(
  change: Change<S>,
  resolved: SourceRequest,
  pending: Pending,
  ranges: readonly (string | undefined)[],
): Promise<string | null> {
  const asked = ranges.filter((r): r is string => r !== undefined);
  if (asked.length === 0) return null;
  const source = resolved.source;
  // An npm package's range went into its source (requestedSource): its registry resolves it.
  if (source.type === "npm" && asked.length === 1) return null;
  if (source.type !== "git" && source.type !== "oci") {
    throw dependencyError(
      pending,
      "has a version range, which applies to git and OCI tags only",
      "usage",
    );
  }
  if (resolved.request.kind !== "default") {
    throw dependencyError(pending, "names both a ref and a range", "usage");
  }
  const { rangeTags } = await import("../lifecycle/update_planner.ts"); // only for requirements
  const tags = await rangeTags(source, change).catch((error) => {
    throw dependencyError(pending, `cannot be reached: ${(error as Error).message}`);
  });
  const tag = bestTag(asked, tags);
  if (tag === undefined) {
    throw dependencyError(
      pending,
      `has no tag that satisfies ${asked.join(" and ")} (tags: ${tags.join(", ") || "none"})`,
      "not_found",
    );
  }
  return tag;
}

/** Fetches a requirement's source (at `tag`) and chooses its one skill. */
async function fetchOne<S extends Scope>(
  change: Change<S>,
  resolved: SourceRequest,
  pending: Pending,
  tag: string | null,
): Promise<{ fetched: Fetched; candidate: Candidate }> {
  const request: RefRequest = tag === null ? resolved.request : { kind: "tag", name: tag };
  const fetched = await change.fetch(resolved.source, request).catch((error) => {
    throw dependencyError(pending, `cannot be fetched: ${(error as Error).message}`);
  });
  const candidates = await inspectCandidates(fetched);
  let chosen: Candidate[];
  try {
    chosen = selectCandidates(candidates, resolved.selectors, sourceLabel(resolved.source));
  } catch (error) {
    throw dependencyError(
      pending,
      `does not name one skill: ${(error as Error).message}`,
      "not_found",
    );
  }
  return { fetched, candidate: chosen[0]! };
}

/**
 * `skills why NAME`: in each scope that holds the skill (the project's lockfile, then the
 * user's registry), every chain of skills that require it, from one asked for down to it.
 */
export async function whyInstalled(
  env: Readonly<Record<string, string>>,
  cwd: string,
  input: string,
): Promise<WhyChain[]> {
  const name = canonicalSkillName(input);
  const out: WhyChain[] = [];
  const read = readProjectLock(findProjectRoot(cwd).root);
  if (read.state === "ok" && Object.hasOwn(read.lock.skills, name)) {
    const map = new Map(Object.entries(read.lock.skills).map(([k, e]) => [k, requiredByOf(e)]));
    out.push({ name, scope: "project", chains: chainsTo(name, map) });
  }
  const registry = await readRegistry(skillsHome(env, cwd));
  if (registry.skills.some((e) => e.name_canonical === name)) {
    const map = new Map(registry.skills.map((e) => [e.name_canonical, requiredByOf(e)]));
    out.push({ name, scope: "user", chains: chainsTo(name, map) });
  }
  if (out.length === 0) {
    throw new SkillError("not_found", `Skill '${quoteName(input)}' is not installed`, {
      hint: "`skills list` shows what is installed",
    });
  }
  return out;
}

/**
 * The dependencies nothing needs once `removing` are gone: skills some other skill required
 * (their record names who) whose every requirer is being removed, followed down the graph.
 * A skill recorded with no requirer was asked for by the user and is never taken along.
 */
function unneededAfter(
  requiredBy: ReadonlyMap<string, readonly string[]>,
  removing: readonly string[],
): string[] {
  const gone = new Set(removing);
  const out: string[] = [];
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, by] of requiredBy) {
      // A requirer no longer installed (removed before) needs nothing any more.
      const needs = by.filter((n) => requiredBy.has(n) && !gone.has(n));
      if (gone.has(name) || by.length === 0 || needs.length > 0) continue;
      gone.add(name);
      out.push(name);
      grew = true;
    }
  }
  return out;
}

/** `skills remove` in `$SKILLS_HOME`: the installed dependencies nothing else needs after it. */
export async function unneededInstalled(
  home: string,
  removing: readonly string[],
): Promise<RegistryEntry[]> {
  const registry = await readRegistry(home);
  const map = new Map(registry.skills.map((e) => [e.name_canonical, requiredByOf(e)]));
  const names = unneededAfter(map, removing);
  return registry.skills.filter((e) => names.includes(e.name_canonical));
}

/** `skills remove` in a project: the locked dependencies nothing else needs after it. */
export function unneededLocked(root: string, removing: readonly string[]): string[] {
  const read = readProjectLock(root);
  if (read.state !== "ok") return [];
  const map = new Map(Object.entries(read.lock.skills).map(([k, e]) => [k, requiredByOf(e)]));
  return unneededAfter(map, removing);
}

/** Why an installed skill is there: the skills that require it, up to those asked for. */
interface WhyChain {
  name: string;
  scope: "user" | "project";
  /** Each chain from a skill asked for down to this one. */
  chains: string[][];
}

/** Who requires what, as a scope's records say (`required_by` / `requiredBy`). */
function requiredByOf(entry: RegistryEntry | LockedSkill): string[] {
  const raw = (entry as Record<string, unknown>).required_by ??
    (entry as Record<string, unknown>).requiredBy;
  return Array.isArray(raw) ? raw.filter((n): n is string => typeof n === "string") : [];
}

/** Every chain of `requiredBy` from a skill asked for down to `name` (cycles cut). */
function chainsTo(
  name: string,
  requiredBy: ReadonlyMap<string, readonly string[]>,
): string[][] {
  const out: string[][] = [];
  const walk = (at: string, below: string[]) => {
    const parents = (requiredBy.get(at) ?? []).filter((p) =>
      requiredBy.has(p) && !below.includes(p)
    );
    if (parents.length === 0) {
      out.push([at, ...below]);
      return;
    }
    for (const parent of parents) walk(parent, [at, ...below]);
  };
  walk(name, []);
  return out;
}
