/**
 * A bench for the workflows of runtime/workflows, as a user meets them: a scratch
 * `$SKILLS_HOME`, a project that is a real git repository (`app/`), and a real repository of
 * skills served as `file://` (`vendor.git`, skills `alpha` and `beta`). Skills get there the
 * way `skills add` puts them (the add workflow, told yes); only the asker is in memory.
 */

import { join } from "node:path";
import {
  createRepo,
  fixtureGitEnv,
  git,
  multiSkillFiles,
  type Repo,
} from "../fixtures/git_repos.ts";
import { tempDir } from "./cli.ts";
import { isSkillError } from "../../src/core/errors.ts";
import { addWorkflow } from "../../src/runtime/workflows/add.ts";
import type { WorkflowRequest } from "../../src/runtime/workflows/request.ts";

export interface Bench extends AsyncDisposable {
  dir: string;
  home: string;
  /** The project: a git work tree. */
  root: string;
  /** The skills' repository (`alpha`, `beta` under `skills/`). */
  repo: Repo;
  /** What every workflow is given: run from the project's root. */
  request: WorkflowRequest;
  /** Adds `skills` of the repository to a scope as `skills add --skill … [--project] --yes` does. */
  add(scope: "user" | "project", skills: readonly string[]): Promise<void>;
}

export async function bench(names: readonly string[] = ["alpha", "beta"]): Promise<Bench> {
  const tmp = await tempDir("skills-workflow-");
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "app");
  await Deno.mkdir(root, { recursive: true });
  await git(root, ["init", "--quiet"]);
  const repo = await createRepo(tmp.path, "vendor", multiSkillFiles(names));
  const env = { ...fixtureGitEnv(tmp.path) };
  const request: WorkflowRequest = { home, cwd: root, env };
  return {
    dir: tmp.path,
    home,
    root,
    repo,
    request,
    async add(scope, skills) {
      await addWorkflow({
        ...request,
        source: repo.url,
        refs: {},
        skills,
        scope,
        list: false,
        plan: {},
        agents: [],
      }, { confirm: () => Promise.resolve(true) });
    },
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

/** The registry of `home` as a user would read it. */
export async function registryOf(home: string): Promise<{
  skills: { name_canonical: string; trusted: boolean; trusted_digest: string | null }[];
}> {
  return JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
}

/** This user's approvals of project skills: root → folder → record. */
export async function projectTrustOf(
  home: string,
): Promise<Record<string, Record<string, { digest: string }>>> {
  try {
    return JSON.parse(await Deno.readTextFile(join(home, "project-trust.json"))).projects;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
}

/** For `assert.rejects`: a `SkillError` with this code. */
export function coded(code: string): (error: unknown) => boolean {
  return (error) => isSkillError(error) && error.code === code;
}
