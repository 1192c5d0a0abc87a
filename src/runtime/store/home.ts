/** Where skills live: `$SKILLS_HOME`, default `~/.agent/skills`. */

import { isAbsolute, join, resolve } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";

function homeDir(env: Readonly<Record<string, string>>): string {
  const home = env.HOME ?? env.USERPROFILE;
  if (!home) {
    throw new SkillError("io_error", "Cannot locate the home directory: HOME is not set", {
      hint: "Set SKILLS_HOME to the directory where skills should be installed",
    });
  }
  return home;
}

export function skillsHome(env: Readonly<Record<string, string>>, cwd: string): string {
  const configured = env.SKILLS_HOME;
  if (configured !== undefined && configured !== "") {
    return isAbsolute(configured) ? configured : resolve(cwd, configured);
  }
  return join(homeDir(env), ".agent", "skills");
}

export const REGISTRY_FILE = "registry.json";
/** This user's approvals of project skills (store/project_records.ts). */
export const PROJECT_TRUST_FILE = "project-trust.json";
/** The links and copies `skills link` made (store/project_records.ts). */
export const LINKS_FILE = "links.json";
/**
 * Everything derived and disposable: listing and digest caches, and (under `core/`) the
 * bundled skills and Python helpers materialised from the binary. Read-only commands
 * write nowhere else.
 */
export const CACHE_DIR = ".cache";
/** Bundled skills and helpers are materialised under here, one entry per version+hash. */
export const CORE_CACHE_DIR = ".cache/core";
/** Where versions before 0.2 materialised them; `skills check --repair` removes it. */
export const LEGACY_CORE_DIR = ".core";
/** Staging area for installs and updates (cleaned of stale entries by every mutation). */
export const STAGING_DIR = ".staging";
/** Where removed or replaced skill directories wait before deletion. */
export const TRASH_DIR = ".trash";
