/** `skills add` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const addSpec = {
  name: "add",
  order: 90,
  summary: "Install skills from git, OCI, a website, npm or a directory",
  guide: "installing.md",
  usage: [
    "add <source> [options]",
    "add <source> --project [--agent <agent>...] [options]",
    "add --from-node-modules [--project] [options]",
  ],
  description: `Install skills from a git repository, an OCI registry, a website, an npm package
or a local directory. The
source is cloned (shallow where possible; a repository on this machine is read
without cloning) or pulled (every blob against its digest, every file against the
artifact's list) into $SKILLS_HOME/.staging, each selected skill is validated, a summary is shown
(name, description, source, commit, scripts, toolsets, requested env
permissions, and the findings of \`skills audit\`: critical, high and medium ones,
and every network endpoint) and nothing is installed until you confirm. A critical
finding refuses the install unless --allow-risky (recorded in the registry).
The commit (for OCI: the manifest digest) is pinned in the registry and the skill is trusted with the digest of
its files. Any failure or Ctrl-C leaves nothing behind.

With --project the skill goes into the project instead: <repo>/.agents/skills/<name>/
(the repository root is the nearest folder with .git), recorded in the project's
skills-lock.json (source, ref, resolved commit, path, the sha256 of every file
and the permissions you approved) for the team to commit and restore with
\`skills install\`. --name renames a project skill as it does an installed one. With --agent
it is also made visible to those agents (see \`skills link\`).`,
  flags: {
    ref: {
      type: "string",
      value: "REF",
      description: "Branch, tag or commit to install (a commit SHA pins the skill)",
    },
    branch: { type: "string", value: "NAME", description: "Install and track this branch" },
    tag: { type: "string", value: "NAME", description: "Install this tag" },
    skill: {
      type: "string",
      multiple: true,
      value: "NAME|PATH",
      description:
        "Install this skill of a multi-skill source, by name or by its path there (repeatable; '*' = all)",
    },
    name: {
      type: "string",
      multiple: true,
      value: "NAME",
      description: "Install one skill as NAME; OLD=NAME renames any skill (repeatable)",
    },
    project: {
      type: "boolean",
      description: "Install into the project (.agents/skills) and record it in skills-lock.json",
    },
    agent: {
      type: "string",
      multiple: true,
      value: "AGENT",
      description:
        "Also link it for this agent (repeatable; `skills link --help` lists them), or all-detected",
    },
    list: { type: "boolean", description: "Show the skills the source contains; install nothing" },
    "from-node-modules": {
      type: "boolean",
      description:
        "Instead of a source: the skills the packages of ./node_modules declare\n(read from disk, recorded as npm:<package> at the installed version)",
    },
    "allow-risky": {
      type: "boolean",
      description: "Install even with critical audit findings (recorded in the registry)",
    },
    "allow-unsigned": {
      type: "boolean",
      description:
        "Install unsigned where your or the project's policy.yaml requires a signature\n(recorded; the system's policy cannot be waived)",
    },
    yes: {
      type: "boolean",
      short: "y",
      description: "Install without asking (required when stdin is not a terminal)",
    },
    json: jsonFlag("One JSON document on stdout"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "source", required: false, complete: "path" }],
  sections: [
    {
      title: "Sources",
      beforeOptions: true,
      text: `
  owner/repo                  GitHub shorthand for https://github.com/owner/repo.git
  owner/repo/path/in/repo     look for skills only under that path
  owner/repo@skill            one skill of a multi-skill repository
  <source>#<ref>              a branch, tag or commit SHA (full or abbreviated)
  https://host/owner/repo.git also ssh://, git://, file:// and git@host:owner/repo.git
  https://github.com/owner/repo/tree/<ref>/<path>    (also /blob/<ref>/<file>)
  https://gitlab.example/group/repo/-/tree/<ref>/<path> (also /-/blob/)
  https://codeberg.org/owner/repo/src/branch/<ref>/<path>  Gitea, Forgejo (any host; also
                              /src/tag/, /src/commit/); Bitbucket's /src/<ref>/<path>
  oci://registry/repo:tag     a skill published to an OCI registry (\`skills publish\`);
                              an index of skills takes --skill; \`update\` follows the tag
  oci://registry/repo@sha256:<digest>   pinned to that manifest
  npm:<package>[@range]       the skills an npm package declares (package.json agents.skills,
                              agentskills, or skills/<name>/), from the registry your .npmrc
                              names, its tarball checked against dist.integrity; scoped
                              names too (npm:@org/pkg@^1.2); \`update\` follows the range
  https://example.com         a site's /.well-known/agent-skills/index.json (each digest checked)
  https://host/…/SKILL.md     one SKILL.md, or an archive (.zip, .skill, .tar, .tar.gz, .tgz)
  ./dir, /abs/dir, ~/dir      a local directory, or its SKILL.md (copied; \`skills update\`
                              copies it again); a local archive is unpacked first`,
    },
    {
      beforeOptions: true,
      text:
        "Skills are found at the root (SKILL.md), in skills/<name>/, or up to 3 levels deep (5 in a tree with no skills/ folder, agent folder or plugin manifest). A SKILL.md at the root makes the source one skill, whose folders are its files: add a folder inside it with a SKILL.md of its own by giving it after the source (owner/repo/skills/<name>).",
    },
    {
      title: "Names",
      text: `A skill is installed under its name in lower case with '_' as '-'. A published
name that is no identifier ('Ahrefs Automation', '-draft') is installed as the
name derived from it (spaces and ASCII punctuation but '/' and '\\' to '-', runs
of '-' collapsed, leading and trailing '-' trimmed), with a warning naming both. Two skills of one install
that end up with the same name are both refused; rename one with
--name 'OLD=NAME' (repeatable, OLD as published or the skill's path, such as
preview/pdf, as --list shows it), or pick one with --skill PATH. Under
--skill '*', one is installed and the others are left out with a warning
(--json: skipped_twins, each with the path kept and why) when exactly one is the
source's own (its plugin manifest names it, or it is in the top skills/ folder),
else exactly one is in an agent's folder at the top (.agents/skills/,
.claude/skills/, ...), else exactly one was found within three levels (not by
the deeper search of a tree with no layout), or the ones that stand first hold
the same bytes.`,
    },
    {
      title: "Signer policy",
      text: `When $SKILLS_HOME/allowed_signers exists (OpenSSH allowed_signers format), every
install needs a signature by a principal it lists: a signed git commit or tag
(git verify-commit/verify-tag), or an SSH signature attached to an OCI artifact
(\`skills publish --sign\`). A project's .agents/allowed_signers applies to its
skills (--project) as well; where both exist the signer must be in both. Unsigned
sources, unknown signers and local directories are then refused; the registry
and skills-lock.json record who signed.`,
    },
    {
      title: "Rejected before git runs",
      text: `URLs or refs starting with '-', remote helpers such as
ext::, transports other than https/ssh/git/file, control characters, and
credentials in URLs (use a git credential helper instead).`,
    },
    {
      title: "Environment",
      text: `SKILLS_HOME, SKILLS_GIT_TIMEOUT (seconds per git command, default 120),
SKILLS_OCI_AUTH (user:password or a token for every OCI registry, or
registry=user:password,... for each; else ~/.docker/config.json and its
credential helpers).`,
    },
    {
      title: "Exit codes",
      text: `0 installed or listed, 1 failure, declined or refused (critical
audit findings without --allow-risky), 2 usage error, 124 git timed out,
130 interrupted.`,
    },
  ],
} as const satisfies CommandSpec;
