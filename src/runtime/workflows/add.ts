/**
 * `skills add <source>` below any front end, for either scope: the source resolved once
 * (lifecycle/resolve_source.ts), one change of the scope the skills go to (`$SKILLS_HOME`,
 * or the project seen from `cwd`), the fetch, the skills the source holds and the ones
 * chosen, then (add_steps.ts) the one install planner (lifecycle/install_plan.ts) skill by
 * skill, the refusals, each accepted skill committed, and what follows (the user's trust of
 * a project's skills, `--agent` links). `--from-node-modules` does the same for each package
 * of `./node_modules` that declares skills.
 *
 * The front end supplies an `AddAsker`: it is told what happens (progress, notes, the
 * summaries to show, the refusals as they come), chooses among several skills, and
 * confirms each install; it renders the `AddOutcome` this returns. It never touches
 * staging, the journal or the records.
 */

import { isSkillError, SkillError } from "../../core/errors.ts";
import type { AgentName } from "../../core/agents.ts";
import type { LockedSkill } from "../../core/records/lockfile.ts";
import type { RegistryEntry } from "../../core/records/registry.ts";
import {
  type NpmSource,
  pathSelector,
  type RefFlags,
  type ResolvedSource,
} from "../../core/sources/sources.ts";
import { npmSource } from "../../core/sources/npm_source.ts";
import { join } from "../os/paths.ts";
import { beginChange, scopeOf } from "../lifecycle/change.ts";
import {
  type Candidate,
  type Fetched,
  inspectCandidates,
  sameNameGroups,
  selectCandidates,
  sourceLabel,
} from "../lifecycle/fetch_source.ts";
import type { InstallPlan, PlanOptions, ProjectPlan } from "../lifecycle/install_plan.ts";
import { lockfilePath } from "../store/lockfile.ts";
import { resolveRequest } from "../lifecycle/resolve_source.ts";
import { saveInstalledAudit } from "../audit/installed_audit.ts";
import type { LinkOutcome } from "../project/links.ts";
import { resolveClosure } from "./dependencies.ts";
import { inCollection } from "../catalog/discover.ts";
import { type AddAsker, type Added, installSelected, type SkippedTwin } from "./add_steps.ts";
import type { ScopeChoice, WorkflowRequest } from "./request.ts";

export type { AddAsker, AddReview } from "./add_steps.ts";

/** What `skills add` asks for: the source as typed, which skills, where, and how. */
interface AddRequest extends WorkflowRequest {
  /** The source as the user typed it (resolved once, here). */
  source: string;
  /** `--ref`, `--branch`, `--tag`. */
  refs: RefFlags;
  /** `--skill` selectors (`*` for all). */
  skills: readonly string[];
  /** `"project"` (`--project`): into `<root>/.agents/skills`, recorded in skills-lock.json. */
  scope?: ScopeChoice;
  /** `--list`: a preview of the source's skills; nothing is installed. */
  list: boolean;
  /** `--allow-unsigned`: past the user's and project's signature rules (recorded). */
  allowUnsigned?: boolean | undefined;
  /** `--name NEW`, `--name OLD=NEW` and `--allow-risky`, for either scope. */
  plan: Pick<PlanOptions, "rename" | "renames" | "allowRisky">;
  /** `--agent`: link what was installed for these agents. */
  agents: readonly AgentName[];
  /** `--agent all-detected`: and for the agents installed on this machine. */
  allDetected?: boolean;
}

/** What the steps below are given: the request with the agents to link decided. */
type AddOptions = Omit<AddRequest, "source" | "refs" | "skills">;

/** What `addWorkflow` did, for the front end to render. */
export type AddOutcome =
  | { kind: "list"; fetched: Fetched; candidates: Candidate[] }
  | ({ kind: "user" } & Added<InstallPlan, RegistryEntry> & Skipped)
  | ({ kind: "project"; lockfile: string } & Added<ProjectPlan, LockedSkill> & Skipped);

/**
 * What `--skill '*'` left out: folders whose SKILL.md is a symlink, with its target; skills
 * that share their name with the one the source names as its own (`preview/pdf` beside
 * `skills/pdf`), with that one's path.
 */
interface Skipped {
  skippedLinks: { path: string; target: string }[];
  skippedTwins: { path: string; kept: string; because: SkippedTwin["because"] }[];
  /** Undeclared folders whose SKILL.md has no front matter (fragments, not skills). */
  skippedFragments: string[];
}

/**
 * `skills add --from-node-modules`: every package of the project's `node_modules` that declares
 * skills, added as the npm source it is (`npm:<package>` at its installed version, read from
 * disk with no network), following the range the project's package.json gives it. A package
 * without a skill `--skill` names is passed over.
 */
export async function addFromNodeModules(
  request: Omit<AddRequest, "source" | "refs">,
  asker: AddAsker,
): Promise<AddOutcome[]> {
  const selectors = request.skills;
  const options = await addOptions(request);
  const { packagesWithSkills } = await import("../npm/node_modules.ts");
  const packages = await packagesWithSkills(options.cwd);
  if (packages.length === 0) {
    throw new SkillError(
      "not_found",
      `No package in ${join(options.cwd, "node_modules")} declares skills`,
      {
        hint:
          "A package declares skills in package.json (agents.skills, agentskills) or ships skills/<name>/SKILL.md",
      },
    );
  }
  const outcomes: AddOutcome[] = [];
  for (const pkg of packages) {
    const source: NpmSource = {
      ...npmSource(`npm:${pkg.name}`),
      kind: "npm",
      installedDir: pkg.dir,
      ...(pkg.integrity !== undefined ? { installedIntegrity: pkg.integrity } : {}),
    };
    const range = pkg.range ?? "latest";
    const resolved = {
      source,
      request: { kind: "tag" as const, name: range },
      selectors: selectors.length > 0 ? [...selectors] : ["*"],
    };
    try {
      outcomes.push(await addResolved(resolved, options, asker));
    } catch (error) {
      if (selectors.length > 0 && isSkillError(error) && error.code === "not_found") continue;
      throw error;
    }
  }
  return outcomes;
}

/**
 * Adds the skills `request` names from its source to the scope it says, asking `asker`;
 * returns what was done. Any failure or Ctrl-C before a commit leaves everything as it was.
 */
export async function addWorkflow(request: AddRequest, asker: AddAsker): Promise<AddOutcome> {
  const { home, cwd, env } = request;
  const resolved = await resolveRequest(request.source, request.refs, request.skills, {
    cwd,
    env,
    home,
  });
  return await addResolved(resolved, await addOptions(request), asker);
}

/** The request as the steps take it: the agents to link decided (`all-detected` looked up). */
async function addOptions(
  request: Omit<AddRequest, "source" | "refs" | "skills">,
): Promise<AddOptions> {
  if (!request.allDetected) return { ...request };
  const { detectedAgents } = await import("../project/links.ts");
  return { ...request, agents: [...new Set([...request.agents, ...detectedAgents(request.env)])] };
}

/** `addWorkflow` once the source is resolved. */
async function addResolved(
  { source, request, selectors }: Awaited<ReturnType<typeof resolveRequest>>,
  options: AddOptions,
  asker: AddAsker,
): Promise<AddOutcome> {
  const project = options.scope === "project";
  // Staging, crash recovery and Ctrl-C rollback are the change's; --list only previews.
  // One change of the scope the skills go to (a project's signer policy applies too).
  await using change = await beginChange(scopeOf(options.home, options.cwd, project), {
    env: options.env,
    signal: options.signal,
    progress: asker.progress === undefined ? undefined : (line) => asker.progress!(line),
    preview: options.list,
    allowUnsigned: options.allowUnsigned,
  });
  for (const note of change.recovered) asker.note?.(note);
  const fetched = await change.fetch(source, request);
  asker.fetched?.(fetched);
  const candidates = await inspectCandidates(fetched);
  asker.found?.(fetched, candidates);
  if (options.list) return { kind: "list", fetched, candidates };
  const { selected, ...skipped } = await choose(
    candidates,
    selectors,
    source,
    asker,
    new Set(options.plan.renames?.keys()),
  );
  asker.selected?.(selected);
  const closure = await resolveClosure(change, fetched, selected, options);
  if (closure.length > 0) asker.closure?.(closure);
  if (change.inProject()) {
    const { home, root } = change.scope;
    const lockfile = lockfilePath(root);
    const added = await installSelected(change, { fetched, selected, closure }, options, asker, {
      review: (plan, from) => ({ scope: "project", plan, fetched: from, lockfile }),
      requiredBy: (plan, names, ranges) =>
        Object.assign(plan.entry, {
          requiredBy: names,
          ...(ranges.length > 0 ? { versionRanges: ranges } : {}),
        }),
      // Each skill on its own; the commit's notes are not shown (as always for a project).
      commit: async (batch) => void await change.commitInstall(batch),
      together: false,
      settle: async (installed, already) => {
        // The user who confirmed these files trusts them, bound to the digest.
        const { trustInstalled } = await import("../project/approvals.ts");
        await trustInstalled(home, root, installed.map((p) => p.canonical));
        return await linkFor(options, { kind: "project", root }, [...installed, ...already]);
      },
    });
    return { kind: "project", lockfile, ...added, ...skipped };
  }
  if (!change.inUser()) throw new Error("unreachable: a change is of one of the two scopes");
  const added = await installSelected(change, { fetched, selected, closure }, options, asker, {
    review: (plan, from) => ({ scope: "user", plan, fetched: from }),
    requiredBy: (plan, names, ranges) =>
      Object.assign(plan.entry, {
        required_by: names,
        ...(ranges.length > 0 ? { version_ranges: ranges } : {}),
      }),
    commit: async (batch) => {
      for (const note of await change.commitInstall(batch)) asker.note?.(note);
      for (const p of batch) await saveInstalledAudit(options.home, p.canonical, p.digest, p.audit);
    },
    together: true,
    // An installed skill is the user's: it is linked into the agents' user folders.
    settle: (installed, already) => linkFor(options, { kind: "user" }, [...installed, ...already]),
  });
  return { kind: "user", ...added, ...skipped };
}

/**
 * The skills to install: asked for by name or path, chosen by the asker, or the only one.
 * `renamed`: the `--name OLD=NEW` OLDs (a twin renamed by its path is installed too).
 */
async function choose(
  candidates: readonly Candidate[],
  selectors: readonly string[],
  source: ResolvedSource,
  asker: AddAsker,
  renamed: ReadonlySet<string>,
): Promise<{ selected: Candidate[] } & Skipped> {
  if (selectors.length === 0 && candidates.length > 1 && asker.choose !== undefined) {
    const chosen = await asker.choose(candidates, source);
    if (chosen !== undefined) {
      return { selected: chosen, skippedLinks: [], skippedTwins: [], skippedFragments: [] };
    }
  }
  const every = selectors.includes("*");
  // Every skill: a folder whose SKILL.md is a link is not one (links are never followed), so
  // it is left out with one line for them all — unless nothing else is there to install.
  const linked = candidates.filter((c) => c.linked !== undefined);
  const skipLinks = every && linked.length > 0 && linked.length < candidates.length;
  if (skipLinks) asker.skippedLinks?.(linked);
  let pool = skipLinks ? candidates.filter((c) => c.linked === undefined) : candidates;
  // A SKILL.md with no front matter, or front matter naming neither a name nor a description,
  // that the source does not name as a skill is a document of that name (UiPath/skills'
  // skill-flavors/ fragments, merged into skills by its build; a generated wiki's page
  // `skill.md`), left out with one line — named, or the only thing there, it is refused with
  // its error.
  const fragments = every
    ? pool.filter((c) => (c.noFrontMatter || c.unnamed) && !c.declared && c.linked === undefined)
    : [];
  const skipFragments = fragments.length > 0 && fragments.length < pool.length;
  if (skipFragments) {
    asker.skippedFragments?.(fragments);
    pool = pool.filter((c) => !fragments.includes(c));
  }
  const twins = every ? await shadowedTwins(pool, renamed) : new Map<Candidate, SkippedTwin>();
  if (twins.size > 0) {
    asker.skippedTwins?.(twins);
    pool = pool.filter((c) => !twins.has(c));
  }
  return {
    selected: selectCandidates(pool, selectors, sourceLabel(source)),
    skippedLinks: skipLinks ? linked.map((c) => ({ path: c.rel, target: c.linked! })) : [],
    skippedTwins: [...twins].map(([c, { kept, because }]) => ({
      path: c.rel,
      kept: kept.rel,
      because,
    })),
    skippedFragments: skipFragments ? fragments.map((c) => c.rel) : [],
  };
}

/**
 * Of skills published under one name, the ones `--skill '*'` leaves out, each with the one it
 * installs instead and why. Standing first: the source's own (a plugin manifest names it, or
 * it is in the top `skills/` folder: UiPath/skills ships `preview/<name>/` beside
 * `skills/<name>/`); then the copy a repository keeps for its own agent in an agent's folder at
 * its top (mckeeh3's `.agents/skills/<name>` beside older `skills-pack/.agents/skills/<name>`);
 * then what the search came upon within three levels; then what only the deeper search of a
 * tree with no layout found (hermes-skills' older editions four levels down). Where several
 * stand first, they are one skill only when their files are the same bytes (one digest): the
 * one with the shortest path is installed (yigitkonur's `skills/x` beside its plugin's
 * `plugins/x/skills/x`). Otherwise none is preferred and the plan refuses them all
 * (runtime/lifecycle/install_plan.ts). A twin `--name` renames by its path is kept.
 */
async function shadowedTwins(
  pool: readonly Candidate[],
  renamed: ReadonlySet<string>,
): Promise<Map<Candidate, SkippedTwin>> {
  const out = new Map<Candidate, SkippedTwin>();
  // A twin renamed by its path is installed under its new name: it is no twin.
  const keyOf = (c: Candidate) => renamed.has(pathSelector(c.rel)) ? undefined : c.canonical;
  const standing = (c: Candidate) =>
    c.declared ? (inCollection(c.rel) ? 4 : 3) : c.agentFolder ? 2 : c.deep ? 0 : 1;
  for (const group of sameNameGroups(pool, keyOf)) {
    const first = Math.max(...group.map(standing));
    const leading = group.filter((c) => standing(c) === first).sort(byShortestPath);
    if (leading.length > 1 && !await sameBytes(leading)) continue;
    const kept = leading[0]!;
    for (const c of group) {
      if (c === kept) continue;
      // The top skills/ folder before a plugin's copy; before anything else, as declared.
      const above = first === 4 && standing(c) < 3 ? 3 : first;
      const because = standing(c) === first ? "identical" : STANDING_REASON[above]!;
      out.set(c, { kept, because });
    }
  }
  return out;
}

/**
 * Fewer folders first (`skills/x` before `plugins/x/skills/x`), then a path through no hidden
 * folder (`x/skill` before a scratch copy in `x/.tmp_skill`, which the source may drop and an
 * update would then miss), then by path.
 */
function byShortestPath(a: Candidate, b: Candidate): number {
  const depth = a.rel.split("/").length - b.rel.split("/").length;
  if (depth !== 0) return depth;
  const hidden = Number(throughHidden(a.rel)) - Number(throughHidden(b.rel));
  return hidden !== 0 ? hidden : a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0;
}

function throughHidden(rel: string): boolean {
  return rel.split("/").some((part) => part.startsWith("."));
}

/** Why a twin standing below the kept one was left out, by the kept one's standing. */
const STANDING_REASON: Record<number, SkippedTwin["because"]> = {
  4: "collection",
  3: "declared",
  2: "agent-folder",
  1: "shallower",
};

/** Whether the folders hold the same files with the same bytes. */
async function sameBytes(folders: readonly Candidate[]): Promise<boolean> {
  const { computeDigest } = await import("../trust/file_hashes.ts");
  const digests = new Set<string>();
  for (const c of folders) digests.add(await computeDigest(c.dir));
  return digests.size === 1;
}

/** Links what is installed in `scope` for the agents `--agent` named. */
async function linkFor(
  options: AddOptions,
  scope: { kind: "user" } | { kind: "project"; root: string },
  added: readonly { canonical: string }[],
): Promise<LinkOutcome[]> {
  if (options.agents.length === 0) return []; // no --agent: project/links.ts is not loaded
  const names = new Set(added.map((p) => p.canonical));
  const { linkAdded } = await import("../project/links.ts");
  return await linkAdded(
    options.home,
    options.env,
    { scope, cwd: options.cwd },
    names,
    options.agents,
  );
}
