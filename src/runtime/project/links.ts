/**
 * Making trusted skills visible to the agents people use (`skills link --agent <name>`):
 * a link (or, with `--copy` or where links cannot be made, a copy) named like the skill in
 * the folder the agent reads (core/agents.ts), in the project or the user's home. What was
 * made is recorded in `$SKILLS_HOME/links.json`, so `skills remove` removes exactly that
 * (never something it did not make), `skills check` verifies each link or copy still
 * shows the files that were trusted, and `update` and `install` refresh the copies of the
 * folders they replace (`refreshCopies`).
 */

import { dirname, isAbsolute, join, relative } from "../os/paths.ts";
import {
  agentDetectDir,
  type AgentName,
  agentNames,
  agentProjectDir,
  agentUserDir,
} from "../../core/agents.ts";
import type { LinkRecord } from "../../core/records/project_records.ts";
import { withLink, withoutLinks } from "../../core/records/project_records.ts";
import { fileTurns, isWithin, lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import type { LoadedSkill } from "../catalog/loader.ts";
import { readLinks, readProjectTrust, updateLinks } from "../store/project_records.ts";
import { PROJECT_SKILLS_DIR } from "../catalog/scopes.ts";
import { computeDigest } from "../trust/file_hashes.ts";
import { describeFiles } from "../lifecycle/lock_entries.ts";
import { loadCatalog } from "../catalog/catalog.ts";

export type LinkScope = { kind: "project"; root: string } | { kind: "user" };

export interface LinkOutcome {
  skill: string;
  agents: AgentName[];
  path: string;
  /** linked/copied now; already (made before); visible (the agent reads the skill's own folder). */
  status: "linked" | "copied" | "already" | "visible" | "refused";
  reason?: string;
}

/** The digest a skill was trusted with, or null (untrusted, or bundled). */
export function trustedDigest(skill: LoadedSkill): string | null {
  if (!skill.trusted) return null;
  if (skill.scope === "project") return skill.project?.trustedDigest ?? null;
  if (skill.scope === "user") return skill.entry?.trusted_digest ?? null;
  return null;
}

/**
 * `--agent all-detected`: the agents installed on this machine, told the way the peer CLI tells
 * them — the agent's own folder (its config or home folder) exists.
 */
export function detectedAgents(env: Readonly<Record<string, string>>): AgentName[] {
  return agentNames().filter((agent) =>
    lstatSyncOrNull(join(...agentDetectDir(agent, env, isAbsolute))) !== null
  );
}

function agentFolder(agent: AgentName, scope: LinkScope, env: Readonly<Record<string, string>>) {
  return scope.kind === "project"
    ? join(scope.root, ...agentProjectDir(agent))
    : join(...agentUserDir(agent, env, isAbsolute));
}

/**
 * Why the agent folder may not be written, or undefined. In a project (a repository someone
 * else wrote), every part of the path from the project root down — `.claude`, `.claude/skills`
 * — must be a real folder, not a symlink: a cloned repository's `.claude` linking to the
 * user's `~/.claude` would turn a project skill into one active in every project. In the
 * user's home (`--global`) the user's own links are fine, but the folder must resolve inside
 * the agent's home folder.
 */
function agentFolderProblem(
  folder: string,
  scope: LinkScope,
  agentHome: string,
): string | undefined {
  const base = scope.kind === "project" ? scope.root : agentHome;
  const realBase = realOrNull(base);
  if (realBase === null) return undefined; // nothing there yet: made below, inside it
  const rel = relative(base, folder);
  if (rel.startsWith("..") || isAbsolute(rel)) return `${folder} is not inside ${base}`;
  let at = base;
  for (const part of rel.split(/[\\/]/).filter(Boolean)) {
    at = join(at, part);
    const info = lstatSyncOrNull(at);
    if (info === null) return undefined; // the rest is made inside what was checked
    if (info.isSymlink) {
      const target = realOrNull(at) ?? Deno.readLinkSync(at);
      if (scope.kind === "project") {
        return `${relative(base, at)} is a symlink (to ${target}) in the project: ` +
          "skills writes only into real folders of a repository, never through a link it did not make";
      }
      if (realOrNull(at) === null || !isWithin(realBase, realOrNull(at)!)) {
        return `${at} leads out of ${base} (to ${target})`;
      }
    } else if (!info.isDirectory) return `${at} is not a folder`;
  }
  const real = realOrNull(folder);
  if (real !== null && !isWithin(realBase, real)) return `${folder} resolves outside ${base}`;
  return undefined;
}

function realOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}

/** Copies the skill's files into `path` through a temporary sibling (then one rename). */
async function copySkill(from: string, path: string): Promise<void> {
  const { files } = await describeFiles(from);
  const temp = join(dirname(path), `.${crypto.randomUUID().slice(0, 8)}.skills-link-tmp`);
  try {
    // Sync calls, with a turn of the event loop now and then (runtime/os/fs.ts, fileTurns).
    const turn = fileTurns();
    for (const rel of Object.keys(files)) {
      await turn();
      const to = join(temp, ...rel.split("/"));
      Deno.mkdirSync(dirname(to), { recursive: true });
      Deno.copyFileSync(join(from, ...rel.split("/")), to);
    }
    await removeIfExists(path);
    await Deno.rename(temp, path);
  } finally {
    await removeIfExists(temp);
  }
}

/**
 * `skills add --agent` in either scope: links the skills `names` of `scope` (just installed,
 * or already there) for `agents`, as the catalog seen from `cwd` shows them (a project's
 * skills are seen from inside the project; the user's need no working directory).
 */
export async function linkAdded(
  home: string,
  env: Readonly<Record<string, string>>,
  where: { scope: LinkScope; cwd: string },
  names: ReadonlySet<string>,
  agents: readonly AgentName[],
): Promise<LinkOutcome[]> {
  if (agents.length === 0 || names.size === 0) return [];
  const { scope, cwd } = where;
  const catalog = await loadCatalog(home, scope.kind === "project" ? { cwd, env } : {});
  const skills = catalog.skills.filter((s) => s.scope === scope.kind && names.has(s.canonical));
  return await linkSkills(home, env, skills, agents, scope, { copy: false });
}

/**
 * Links each skill into each agent's folder (agents sharing a folder get one link).
 * Skills must be trusted and unchanged since; anything already at a path that this tool
 * did not make is left alone and refused. Each place is decided by `placeSkill`; what was
 * made is recorded in one write.
 */
export async function linkSkills(
  home: string,
  env: Readonly<Record<string, string>>,
  skills: readonly LoadedSkill[],
  agents: readonly AgentName[],
  scope: LinkScope,
  options: { copy: boolean; now?: Date },
): Promise<LinkOutcome[]> {
  const recorded = readLinks(home).doc.links;
  const made: LinkRecord[] = [];
  const out: LinkOutcome[] = [];
  const now = (options.now ?? new Date()).toISOString();
  const wanted = options.copy ? "copy" : "symlink";
  for (const skill of skills) {
    const digest = trustedDigest(skill);
    for (const [folder, forAgents] of agentFolders(agents, scope, env)) {
      const path = join(folder, skill.canonical);
      const agentHome = scope.kind === "project"
        ? scope.root
        : agentUserDir(forAgents[0]!, env, isAbsolute)[0]!;
      const place: Place = { skill, digest, folder, path, agentHome, scope };
      const { status, reason, record } = await placeSkill(place, recorded, wanted);
      if (record !== undefined) {
        made.push({
          path,
          target: skill.dir,
          skill: skill.canonical,
          agent: forAgents.join(","),
          scope: scope.kind,
          project: scope.kind === "project" ? scope.root : null,
          mode: record,
          digest: digest!,
          created_at: now,
        });
      }
      out.push({
        skill: skill.canonical,
        agents: forAgents,
        path,
        status,
        ...(reason ? { reason } : {}),
      });
    }
  }
  await recordLinks(home, made);
  return out;
}

/** The agents by the folder they read skills from (agents sharing one get one link). */
function agentFolders(
  agents: readonly AgentName[],
  scope: LinkScope,
  env: Readonly<Record<string, string>>,
): Map<string, AgentName[]> {
  const byFolder = new Map<string, AgentName[]>();
  for (const agent of agents) {
    const folder = agentFolder(agent, scope, env);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), agent]);
  }
  return byFolder;
}

/** One skill at one agent folder: where its link or copy goes and what it is checked against. */
interface Place {
  skill: LoadedSkill;
  /** The digest the skill was trusted with, or null. */
  digest: string | null;
  folder: string;
  /** `folder/<skill>`: the link or copy. */
  path: string;
  /** Where the folder must stay inside (`agentFolderProblem`). */
  agentHome: string;
  scope: LinkScope;
}

/** What was done at a place, and the record to add for it (none when nothing new is ours). */
interface Placed {
  status: LinkOutcome["status"];
  reason?: string;
  record?: "symlink" | "copy";
}

/**
 * One skill-by-agent decision, in the order that keeps it safe: the folder and the trust
 * checked, then what is already at the path kept or refused, and only then a link (or a
 * copy) made.
 */
async function placeSkill(
  place: Place,
  recorded: readonly LinkRecord[],
  wanted: "symlink" | "copy",
): Promise<Placed> {
  const refused = await refusal(place);
  if (refused !== undefined) return { status: "refused", reason: refused };
  const existing = lstatSyncOrNull(place.path);
  const kept = await keptAsIs(place, existing, recorded, wanted);
  if (kept !== undefined) return kept;
  const mode = await makeLink(place, existing !== null, wanted);
  return { status: mode === "symlink" ? "linked" : "copied", record: mode };
}

/** Why nothing may be placed: an unsafe agent folder, an untrusted skill, or one changed since. */
async function refusal(
  { skill, digest, folder, agentHome, scope }: Place,
): Promise<string | undefined> {
  const unsafe = agentFolderProblem(folder, scope, agentHome);
  if (unsafe !== undefined) return unsafe;
  if (digest === null) {
    return `'${skill.canonical}' is not trusted: run \`skills trust ${skill.canonical}\``;
  }
  if ((await computeDigest(skill.dir)) !== digest) {
    return `'${skill.canonical}' changed since it was trusted`;
  }
  return undefined;
}

/**
 * What is at the path already, if it stays: the skill's own folder (visible), our link or
 * up-to-date copy (already), or something this tool did not make (refused). Undefined: the
 * path is absent, or ours and out of date.
 */
async function keptAsIs(
  { skill, digest, path }: Place,
  existing: Deno.FileInfo | null,
  recorded: readonly LinkRecord[],
  wanted: "symlink" | "copy",
): Promise<Placed | undefined> {
  const record = recorded.find((l) => l.path === path);
  const real = existing === null ? null : realOrNull(path);
  if (existing !== null && !existing.isSymlink && real === skill.dir) return { status: "visible" };
  if (existing?.isSymlink && real === skill.dir && wanted === "symlink") {
    return record === undefined ? { status: "already", record: "symlink" } : { status: "already" };
  }
  if (existing !== null && record === undefined) {
    return { status: "refused", reason: `${path} exists and was not made by skills` };
  }
  if (
    existing !== null && record?.mode === "copy" && wanted === "copy" &&
    (await computeDigest(path).catch(() => "")) === digest
  ) return { status: "already" };
  return undefined;
}

/**
 * The link made anew (what was there removed first), relative inside a project; a copy when
 * wanted or where links cannot be made. Returns what was made.
 */
async function makeLink(
  { skill, folder, path, scope }: Place,
  replacing: boolean,
  wanted: "symlink" | "copy",
): Promise<"symlink" | "copy"> {
  if (replacing) await removeIfExists(path);
  await Deno.mkdir(folder, { recursive: true });
  let mode: "symlink" | "copy" = wanted;
  if (mode === "symlink") {
    const target = scope.kind === "project" && isWithin(scope.root, skill.dir)
      ? relative(folder, skill.dir)
      : skill.dir;
    try {
      await Deno.symlink(target, path, { type: "dir" });
    } catch {
      mode = "copy"; // Windows without the privilege, or a filesystem without links
    }
  }
  if (mode === "copy") await copySkill(skill.dir, path);
  return mode;
}

/** Adds (or replaces) `links` in links.json in one write; none, no write. */
async function recordLinks(home: string, links: readonly LinkRecord[]): Promise<void> {
  if (links.length === 0) return;
  await updateLinks(home, (doc) => {
    for (const link of links) doc = withLink(doc, link);
    return { doc, result: undefined };
  });
}

/**
 * Removes the links and copies recorded for skill folders `targets` (a symlink only when it
 * still points there, a copy only when recorded as one), and forgets them.
 */
export async function removeLinksTo(home: string, targets: readonly string[]): Promise<string[]> {
  const wanted = new Set(targets);
  const links = readLinks(home).doc.links.filter((l) => wanted.has(l.target));
  if (links.length === 0) return [];
  const removed: string[] = [];
  for (const link of links) {
    const info = lstatSyncOrNull(link.path);
    if (info === null) continue;
    if (link.mode === "symlink" && info.isSymlink) {
      await Deno.remove(link.path);
      removed.push(link.path);
    } else if (link.mode === "copy" && info.isDirectory && !info.isSymlink) {
      await removeIfExists(link.path);
      removed.push(link.path);
    }
  }
  await updateLinks(home, (doc) => ({
    doc: withoutLinks(doc, new Set(links.map((l) => l.path))),
    result: undefined,
  }));
  return removed;
}

/** A skill folder an update or install just wrote, with the digest this user trusts now. */
interface RefreshedFolder {
  dir: string;
  /** The digest this user trusts for it now, or null (untrusted: its copies are kept). */
  trusted: string | null;
}

/** The project skill folders `names` with the digest this user trusts for each now. */
export function trustedProjectFolders(
  home: string,
  root: string,
  names: readonly string[],
): RefreshedFolder[] {
  const approved = readProjectTrust(home).doc.projects[root] ?? {};
  return names.map((name) => ({
    dir: join(root, ...PROJECT_SKILLS_DIR, name),
    trusted: approved[`${PROJECT_SKILLS_DIR.join("/")}/${name}`]?.digest ?? null,
  }));
}

/**
 * Brings the copies `skills link --copy` made of `folders` up to date after an update or an
 * install replaced those folders, as a symlink would be: a copy that still shows the files
 * it was made with is rewritten from the folder (through a temporary sibling, one rename)
 * and its record moves to the new digest. Only trusted files are copied where an agent
 * reads them: a folder this user does not trust as it is now keeps its copies, and so does a
 * copy edited since it was made; each such copy is named in the notes returned.
 */
export async function refreshCopies(
  home: string,
  folders: readonly RefreshedFolder[],
): Promise<{ refreshed: string[]; notes: string[] }> {
  const byDir = new Map(folders.map((f) => [f.dir, f]));
  const copies = readLinks(home).doc.links.filter((l) => l.mode === "copy" && byDir.has(l.target));
  const refreshed: string[] = [];
  const notes: string[] = [];
  const updated: LinkRecord[] = [];
  for (const link of copies) {
    const info = lstatSyncOrNull(link.path);
    if (info === null || info.isSymlink || !info.isDirectory) continue; // `check` reports it
    // The repository may have changed since the copy was made (a pull that turned `.claude`
    // into a link out of the project): the same check as when it was made.
    const unsafe = link.scope === "project" && link.project !== null
      ? agentFolderProblem(
        dirname(link.path),
        { kind: "project", root: link.project },
        link.project,
      )
      : undefined;
    if (unsafe !== undefined) {
      notes.push(`the copy at ${link.path} was not refreshed: ${unsafe}`);
      continue;
    }
    const folder = byDir.get(link.target)!;
    const now = await computeDigest(folder.dir).catch(() => null);
    const copy = await computeDigest(link.path).catch(() => null);
    if (now === null || copy === now) {
      if (now !== null && link.digest !== now) updated.push({ ...link, digest: now });
      continue;
    }
    if (folder.trusted !== now) {
      notes.push(
        `the copy at ${link.path} was not refreshed: '${link.skill}' is not trusted as it is now ` +
          `(review it, \`skills trust ${link.skill}\`, then \`skills link ${link.skill} --copy\`)`,
      );
      continue;
    }
    if (copy !== link.digest) {
      notes.push(
        `the copy at ${link.path} was edited since it was made; left as it is ` +
          `(\`skills check\` shows it)`,
      );
      continue;
    }
    try {
      await copySkill(folder.dir, link.path);
    } catch (error) {
      notes.push(`the copy at ${link.path} could not be refreshed: ${(error as Error).message}`);
      continue;
    }
    updated.push({ ...link, digest: now });
    refreshed.push(link.path);
  }
  await recordLinks(home, updated);
  return { refreshed, notes };
}

interface LinkProblem {
  link: LinkRecord;
  problem: string;
  fix: string;
}

/**
 * Checks the recorded links of a project (`root`) and of the user scope: still there, still
 * pointing at the skill, and still showing the files that were trusted (`current` gives a
 * skill folder's trusted digest now, else the one recorded with the link is used).
 */
export async function verifyLinks(
  home: string,
  root: string | undefined,
  current: (target: string) => string | null | undefined,
): Promise<LinkProblem[]> {
  const out: LinkProblem[] = [];
  const relevant = readLinks(home).doc.links.filter((l) =>
    l.scope === "user" || (root !== undefined && l.project === root)
  );
  for (const link of relevant) {
    const agents = link.agent.split(",")[0] ?? link.agent;
    const relink = `\`skills link ${link.skill} --agent ${agents}${
      link.scope === "user" ? " --global" : ""
    }${link.mode === "copy" ? " --copy" : ""}\``;
    const info = lstatSyncOrNull(link.path);
    if (info === null) {
      out.push({ link, problem: `${link.path} is gone`, fix: `run ${relink}` });
      continue;
    }
    if (link.mode === "symlink" && (!info.isSymlink || realOrNull(link.path) !== link.target)) {
      out.push({
        link,
        problem: `${link.path} no longer links to ${link.target}`,
        fix: `remove it, then run ${relink}`,
      });
      continue;
    }
    const expected = current(link.target) ?? link.digest;
    const actual = await computeDigest(link.path).catch((e) => `unreadable (${e.message})`);
    if (actual !== expected) {
      out.push({
        link,
        problem:
          `files at ${link.path} (${link.agent}) no longer match the trusted digest of '${link.skill}'`,
        fix: link.mode === "copy"
          ? `review them; run ${relink} to replace the copy with the trusted files`
          : `an edit through the link changed the skill itself: review it, then \`skills trust ${link.skill}\`, or restore it`,
      });
    }
  }
  return out;
}
