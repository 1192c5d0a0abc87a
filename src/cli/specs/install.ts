/** `skills install` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const installSpec = {
  name: "install",
  order: 100,
  summary: "Restore the project's skills from skills-lock.json",
  guide: "project-skills.md",
  usage: ["install [--frozen] [--force] [--trust] [--json]"],
  description: `Restore every skill of the project's lockfile (skills-lock.json at the repository
root) into .agents/skills/<name>/: each is fetched at its locked commit, every
file is verified against the sha256 the lockfile records, and the skills are
moved in atomically. Skills already on disk as locked are left alone, so a
second run does nothing and says so.

With --frozen (and whenever CI=true) the lockfile is never changed and nothing
is written unless everything agrees: any mismatch — a changed file, permissions
that differ from the approved ones, a skill its source no longer has, a locked
commit gone from its source (where the branch resolves now, and which files
differ there), a folder the lockfile does not list — exits 1 with a per-skill
diff. The file is one vercel-labs' skills CLI reads too. Entries that CLI wrote
(no commits) are read as well: commits are resolved anew (said so), the files
are checked against its computedHash, and (unless --frozen) the lockfile is
rewritten with the commits and file digests found.

Restored project skills are not trusted until you say so: review them and run
\`skills trust <name>\`, or pass --trust to approve every skill whose files match
the lockfile. To install a new skill into the project: skills add <source> --project.`,
  flags: {
    frozen: {
      type: "boolean",
      description: "Verify only: change no lockfile, write nothing unless all agrees (CI)",
    },
    force: {
      type: "boolean",
      description: "Replace skill folders whose files differ from the lockfile",
    },
    trust: {
      type: "boolean",
      description: "Trust every locked skill whose files match the lockfile (as a CI step would)",
    },
    json: jsonFlag("One JSON document on stdout: present, restored, mismatches"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [],
  sections: [
    { title: "Environment", text: "CI=true implies --frozen. SKILLS_HOME, SKILLS_GIT_TIMEOUT." },
    {
      title: "Exit codes",
      text: `0 restored or nothing to do, 1 a mismatch or failure (nothing written under
--frozen), 2 usage error, 124 git timed out, 130 interrupted.`,
    },
  ],
} as const satisfies CommandSpec;
