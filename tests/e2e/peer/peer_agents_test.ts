/**
 * Issue 48: for every agent both tools know, `skills link --agent X` puts a skill where the real
 * vercel-labs `skills@1.7.4 add --agent X` puts it — in a project and for the user — or the row
 * says why not (`peerDiffers`, rendered into docs/compatibility.md). Each tool works in its own
 * project and home; the folders are compared relative to them.
 */

import assert from "node:assert/strict";
import { existsSync as exists } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import {
  type AgentName,
  agentNames,
  agentRows,
  peerView,
  resolveAgentFolder,
} from "../../../src/core/agents.ts";
import { createRepo, fixtureGitEnv, git, skillFiles } from "../../fixtures/git_repos.ts";
import { peer } from "../../helpers/peer.ts";
import { project } from "../../helpers/project.ts";

/** Each agent's folder from `skills link --json`'s outcomes (agents sharing one share a link). */
function linkedFolders(stdout: string): Map<AgentName, string> {
  const out = new Map<AgentName, string>();
  for (const link of JSON.parse(stdout).links as { agents: AgentName[]; path: string }[]) {
    for (const agent of link.agents) out.set(agent, join(link.path, ".."));
  }
  return out;
}

/** `--agent` once per agent, in the spelling the tool knows. */
function agentFlags(spell: (agent: AgentName) => string): string[] {
  return agentNames().flatMap((agent) => ["--agent", spell(agent)]);
}

Deno.test("skills link --agent X writes where skills@1.7.4 add --agent X does, for every agent both know, or the table says why", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", skillFiles("alpha"));

  // The peer: its own project and home, every agent of our table by the peer's name.
  const peerRoot = join(p.dir, "peer-project");
  const peerHome = join(p.dir, "peer-home");
  await Deno.mkdir(peerRoot, { recursive: true });
  await Deno.mkdir(peerHome, { recursive: true });
  await git(peerRoot, ["init", "--quiet"], fixtureGitEnv(p.dir));
  const peerNames = agentFlags((agent) => peerView(agent).name);
  const inProject = await peer(peerRoot, peerHome, ["add", repo.url, ...peerNames, "-y"]);
  assert.equal(inProject.code, 0, inProject.text);
  const forUser = await peer(peerRoot, peerHome, ["add", repo.url, "-g", ...peerNames, "-y"]);
  assert.equal(forUser.code, 0, forUser.text);

  // Ours: a trusted project skill and an installed one, linked for every agent.
  assert.equal((await p.cli(["add", repo.url, "--project", "--yes"])).code, 0);
  assert.equal((await p.cli(["add", repo.url, "--yes"], { cwd: p.dir })).code, 0);
  const ourNames = agentFlags((agent) => agent);
  const projectLinks = await p.cli(["link", "alpha", ...ourNames, "--json"]);
  assert.equal(projectLinks.code, 0, projectLinks.stdout + projectLinks.stderr);
  const userLinks = await p.cli(["link", "alpha", ...ourNames, "--global", "--json"]);
  assert.equal(userLinks.code, 0, userLinks.stdout + userLinks.stderr);
  const ourProject = linkedFolders(projectLinks.stdout);
  const ourUser = linkedFolders(userLinks.stdout);

  for (const [agent, row] of agentRows()) {
    const theirs = peerView(agent);
    // The peer wrote where the table says it writes …
    assert.ok(
      exists(join(peerRoot, theirs.project, "alpha", "SKILL.md")),
      `${agent}: the peer's project folder is ${theirs.project}`,
    );
    const peerUser = resolveAgentFolder(theirs.user, { HOME: peerHome }, isAbsolute);
    assert.ok(
      exists(join(peerUser.start, ...peerUser.path, "alpha", "SKILL.md")),
      `${agent}: the peer's user folder is ${theirs.user}`,
    );
    // … we wrote where the agent's documentation says, and the two agree unless the row says why.
    const ours = {
      project: relative(p.root, ourProject.get(agent)!),
      user: relative(p.dir, ourUser.get(agent)!),
    };
    assert.equal(ours.project, row.project, agent);
    const userFolder = resolveAgentFolder(row.user, { HOME: p.dir }, isAbsolute);
    assert.equal(ours.user, relative(p.dir, join(userFolder.start, ...userFolder.path)), agent);
    const differs = (row as { peerDiffers?: { project?: string; user?: string } }).peerDiffers;
    assert.equal(theirs.project === row.project, differs?.project === undefined, agent);
    assert.equal(theirs.user === row.user, differs?.user === undefined, agent);
  }
});

Deno.test("link --agent all-detected links for the agents whose folders exist, and says which", async () => {
  await using p = await project();
  const repo = await createRepo(p.dir, "upstream", skillFiles("alpha"));
  assert.equal((await p.cli(["add", repo.url, "--yes"], { cwd: p.dir })).code, 0);
  // $HOME is p.dir: Windsurf's and Roo's folders exist, no other agent's.
  await Deno.mkdir(join(p.dir, ".codeium", "windsurf"), { recursive: true });
  await Deno.mkdir(join(p.dir, ".roo"), { recursive: true });
  const link = await p.cli(["link", "alpha", "--agent", "all-detected", "--global", "--json"]);
  assert.equal(link.code, 0, link.stdout + link.stderr);
  assert.match(link.stderr, /Detected: Windsurf, Roo Code/);
  const folders = linkedFolders(link.stdout);
  assert.deepEqual([...folders.keys()].sort(), ["roo", "windsurf"]);
  assert.ok(exists(join(p.dir, ".codeium", "windsurf", "skills", "alpha", "SKILL.md")));
  assert.ok(exists(join(p.dir, ".roo", "skills", "alpha", "SKILL.md")));

  await Deno.remove(join(p.dir, ".codeium"), { recursive: true });
  await Deno.remove(join(p.dir, ".roo"), { recursive: true });
  const none = await p.cli(["link", "alpha", "--agent", "all-detected", "--global"]);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stderr, /No agent was detected on this machine/);
});
