/**
 * The workspace: the folder a script runs in (where the user ran `skills`, or `chat`/`mcp`'s
 * `--workspace`). Scripts may write there, as agents let them, except where a write would
 * turn into code execution or credential theft. The rules are data, anchored on Anthropic's
 * sandbox runtime ("mandatory deny" paths) and Claude Code's dangerous files, plus what our
 * own tool and CI read (docs/security.md says why each is here):
 *
 * - guarded (held back from a workspace's diff; read-only, or moved aside when made, in a
 *   folder written directly): git folders, files and hooks, agent and editor settings, shell
 *   start-up files, package-manager configuration, CI workflows and the skills lockfile —
 *   one table, {@link HELD_BACK_NAMES}, for every place;
 * - secret (hidden): `.env*`, `.envrc`, `.npmrc`, `.netrc`, `.pypirc`, `.git-credentials`,
 *   `.pgpass`, SSH keys and the like by name, at any depth, writable workspace or not
 *   (runtime/masks finds them with no entry cap).
 *
 * Pure: the runtime walks the folder (runtime/exec/workspace_walk.ts) and applies these
 * (runtime/sandbox/mounts.ts, runtime/workspace/apply.ts).
 */

/**
 * Inside a `.git` folder (and each submodule's under `.git/modules/`, each linked worktree's
 * under `.git/worktrees/`): hooks run on the user's next git command, config (and a worktree's
 * `config.worktree`) names commands, and `commondir` names the folder git reads them from.
 */
export const GUARDED_IN_GIT: readonly string[] = [
  "hooks",
  "config",
  "config.worktree",
  "commondir",
];

/**
 * Inside a `.git` folder, what must not appear where it was not: `hooks/` (git makes it with
 * every repository, so one without it must not gain one) and `commondir`, which makes git read
 * its config, hooks and `core.fsmonitor` from the folder it names.
 */
export const GUARDED_IF_ABSENT_IN_GIT: readonly string[] = ["hooks", "commondir"];

/** The folders of `.github` that run in CI on the next push: workflows and composite actions. */
export const GITHUB_CI_FOLDERS: readonly string[] = ["workflows", "actions"];

/**
 * What a script's diff may never change in the user's folder, by the kind of harm: each
 * name is matched against every part of a workspace-relative path, at any depth, so a
 * nested project (`packages/web/.vscode/tasks.json`) is held back as the top one is.
 * docs/security.md explains each group; {@link heldBackReason} applies them.
 */
const HELD_BACK_NAMES: readonly (readonly [reason: string, names: readonly string[]])[] = [
  // Any `.git` (a folder, or a linked worktree's or submodule's `.git` file): its config
  // names commands git runs (core.fsmonitor, hooksPath, aliases), its hooks run on commit.
  ["git", [".git", ".gitmodules", ".gitconfig", ".lfsconfig", ".husky", ".githooks"]],
  [
    "agent or editor settings",
    [
      ".claude",
      ".claude.json",
      ".mcp.json",
      ".vscode",
      ".idea",
      ".cursor",
      ".cursorrules",
      ".windsurf",
      ".zed",
      ".continue",
      ".gemini",
      ".codex",
      ".devcontainer",
      ".agents",
      ".ripgreprc",
    ],
  ],
  [
    "shell start-up",
    [
      ".envrc",
      ".bashrc",
      ".bash_profile",
      ".bash_login",
      ".bash_logout",
      ".profile",
      ".zshrc",
      ".zshenv",
      ".zprofile",
      ".zlogin",
      ".inputrc",
    ],
  ],
  [
    "package-manager configuration",
    [
      ".npmrc",
      ".yarnrc",
      ".yarnrc.yml",
      ".pnpmfile.cjs",
      "bunfig.toml",
      ".bunfig.toml",
      ".pre-commit-config.yaml",
      "pip.conf",
      ".pypirc",
      "uv.toml",
      ".mise.toml",
      "mise.toml",
      ".tool-versions",
      ".cargo",
    ],
  ],
  ["CI workflows", [".gitlab-ci.yml", ".circleci", ".buildkite", "azure-pipelines.yml"]],
  ["the skills lockfile", ["skills-lock.json"]],
];

const HELD_BACK = new Map<string, string>(
  HELD_BACK_NAMES.flatMap(([reason, names]) => names.map((name) => [name, reason] as const)),
);

/**
 * Why a script's change at `rel` (workspace-relative, `/`-separated) is held back rather
 * than applied to the user's folder, or undefined when it may be applied. Pure: the same
 * answer for a file, a folder, a link or a deletion at that path. Names match in any case
 * (`.GIT` is `.git` on a case-insensitive disk).
 */
export function heldBackReason(rel: string): string | undefined {
  const parts = rel.split("/");
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i]!.toLowerCase();
    const reason = HELD_BACK.get(name);
    if (reason !== undefined) return reason;
    if (name === ".github" && GITHUB_CI_FOLDERS.includes(parts[i + 1]?.toLowerCase() ?? "")) {
      return "CI workflows";
    }
  }
  return undefined;
}

/**
 * The guarded part of `rel`: the shortest prefix that makes it held back (`sub/.git` for
 * `sub/.git/config`), so a quarantine holds whole guarded folders, and the receipt names one
 * line per folder rather than one per file.
 */
export function heldBackRoot(rel: string): string | undefined {
  const parts = rel.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    if (heldBackReason(prefix) !== undefined) {
      return prefix;
    }
  }
  return undefined;
}

/**
 * Files that hold credentials by their name alone: dotenv files, direnv's `.envrc`, the
 * package managers' and git's credential files (`.npmrc`, `.netrc` and Windows' `_netrc`,
 * `.pypirc`, `.git-credentials`, `.pgpass`, Docker's old `.dockercfg`), SSH private keys by
 * their default names, and PKCS #12 key stores. Any case: on a case-insensitive disk
 * `.ENV` is `.env`. Certificates (`*.pem`, `*.crt`) are public and `*.key` is also Keynote's,
 * so neither is here: a mask that breaks an honest skill is a defect too.
 */
const SECRET =
  /^(?:\.env(?:\..+)?|\.envrc|\.npmrc|[._]netrc|\.pypirc|\.git-credentials|\.pgpass|\.dockercfg|id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|.+\.(?:p12|pfx))$/i;
const TEMPLATE = /\.(?:example|sample|template|dist)$/i;

/** Folders whose whole contents are credentials (a home's, copied into a project). */
const SECRET_DIRS = /^(?:\.ssh|\.gnupg|\.aws)$/i;

/**
 * The secret file rules' fingerprint (their patterns, as written): what the secret search keeps
 * of a listing depends on them, so listings kept under others are read again (runtime/masks).
 */
export const SECRET_FILE_RULES = `${SECRET} ${TEMPLATE}`;

/** Whether a file of this name holds secrets the sandbox hides (templates are not secrets). */
export function isSecretFileName(name: string): boolean {
  return SECRET.test(name) && !TEMPLATE.test(name);
}

/** Whether a folder of this name holds only secrets: the sandbox hides it whole. */
export function isSecretDirName(name: string): boolean {
  return SECRET_DIRS.test(name);
}

/**
 * Whether a file or folder of this name is guarded wherever it stands (any case): the names of
 * {@link heldBackReason}'s table, so that a folder written directly (a `--write` grant, policy
 * mode) guards what the copy-on-write workspace's diff holds back.
 */
export function isGuardedName(name: string): boolean {
  return HELD_BACK.has(name.toLowerCase());
}

/**
 * The guarded paths that may be absent at a folder's top, for a walk to notice when a run makes
 * one: every guarded name, and the CI folders inside `.github`.
 */
export const GUARDED_AT_TOP: readonly string[] = [
  ...HELD_BACK.keys(),
  ...GITHUB_CI_FOLDERS.map((folder) => `.github/${folder}`),
];

/** What the sandbox must do inside a writable folder (absolute real paths). */
export interface WorkspaceGuards {
  /** Bound read-only onto themselves. */
  readOnly: string[];
  /** Bound onto themselves writable first, so they can be neither renamed nor replaced. */
  pins: string[];
  /** Secret files shown as empty files. */
  secrets: string[];
}

/** What a user asked of the workspace, and where things are. */
interface WorkspaceRequest {
  /** The workspace (real path). */
  dir: string;
  /** The user's home (real path), if known. */
  home?: string | undefined;
  /** `$SKILLS_HOME` (real path). */
  skillsHome: string;
  /** `--read-only` or SKILLS_READ_ONLY. */
  readOnly: boolean;
}

/** Whether scripts may write to the workspace, and why not when they may not. */
interface WorkspaceDecision {
  writable: boolean;
  /** Why the workspace stays read-only (shown by `--verbose`, `info` and the receipt). */
  reason?: string;
  /** Said on stderr: the user asked for nothing, yet the run differs from what they expect. */
  warning?: string;
}

/**
 * The operating system's folders: what the system boots, runs and configures itself from
 * (`/boot`, `/etc`, `/usr`, `/bin`, `/sbin`, `/lib*`), its state and queues (`/var`: cron's
 * spool and package databases are code and trust), its live views (`/proc`, `/sys`, `/dev`,
 * `/run`), the administrator's home (`/root`) and the folder holding every user's home
 * (`/home` itself). A write there by a script is a change to the system, and a root CLI would
 * make it as root: the workspace stays read-only there and a `--write` grant is refused.
 */
const SYSTEM_FOLDERS: readonly string[] = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/sys",
  "/usr",
  "/var",
];
/** Only the folder itself: each user's home below it is theirs. */
const SYSTEM_FOLDERS_EXACT: readonly string[] = ["/home"];
/**
 * Folders inside the system's that hold users' own files: temporary files (`/var/tmp`, as
 * `/tmp`), source trees (`/usr/src/app` is the Node and Python images' project folder), web
 * roots (`/var/www/html`, PHP's). `/opt`, `/srv`, `/mnt` and `/media` are not the system's.
 */
const USER_FOLDERS_IN_SYSTEM: readonly string[] = [
  "/var/tmp",
  "/usr/src",
  "/usr/local/src",
  "/var/www",
];

/** The system folder `path` (a real path) is or lies in, if it does (see {@link SYSTEM_FOLDERS}). */
export function systemFolderOf(path: string): string | undefined {
  if (SYSTEM_FOLDERS_EXACT.includes(path)) return path;
  if (USER_FOLDERS_IN_SYSTEM.some((user) => path !== user && within(user, path))) return undefined;
  return SYSTEM_FOLDERS.find((root) => within(root, path));
}

/**
 * Whether the OS sandbox hides `path` (absolute, normalized) from scripts, by the names the
 * caller's environment gives: its home (a home of `/` hides nothing), its runtime folder,
 * /run and /var/run, and /tmp (a fresh one inside), as runtime/sandbox/mounts.ts hides them.
 */
export function sandboxHides(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return [env.HOME, env.XDG_RUNTIME_DIR, "/tmp", "/run", "/var/run"].some((root) =>
    root !== undefined && root !== "" && root !== "/" && within(root, path)
  );
}

/** Whether `child` is `parent` or inside it (both absolute and normalized). */
function within(parent: string, child: string): boolean {
  return child === parent || parent === "/" || child.startsWith(`${parent}/`);
}

/**
 * Writable unless the user said read-only, or the workspace is `/`, a system folder (said on
 * stderr: see {@link SYSTEM_FOLDERS}), the home (or a folder holding it), or a folder
 * holding `$SKILLS_HOME`. Those stay read-only even when
 * asked (see {@link refusedGrant}): a script would reach every project, every dotfile and
 * the trust records at once. The way to write there is a narrower `--write` folder.
 */
export function decideWorkspace(request: WorkspaceRequest): WorkspaceDecision {
  if (request.readOnly) return { writable: false, reason: "read-only was asked for" };
  const refused = refusedGrant(request.dir, request.skillsHome, request.home);
  if (refused === undefined) return { writable: true };
  const reason = refused.replace(/^it /, "the workspace ");
  return !refused.startsWith("it is a system folder") ? { writable: false, reason } : {
    writable: false,
    reason,
    warning: `${reason}: scripts get ${request.dir} read-only (run from a project folder)`,
  };
}

/**
 * Why a folder may never be writable for scripts (a `--write PATH` grant or the
 * workspace), or undefined when it may: `/`, a system folder, the home or a folder holding it, a folder
 * holding `$SKILLS_HOME` or one inside it (installed skills and their trust records).
 */
export function refusedGrant(
  path: string,
  skillsHome: string,
  home: string | undefined,
): string | undefined {
  if (path === "/") return "it is /";
  if (home !== undefined && within(path, home)) return "it is your home folder (or holds it)";
  const system = systemFolderOf(path);
  if (system !== undefined) return `it is a system folder (${system})`;
  if (within(path, skillsHome)) return "it holds $SKILLS_HOME (installed skills and trust)";
  if (within(skillsHome, path)) return "it is inside $SKILLS_HOME (installed skills and trust)";
  return undefined;
}

/** What a skill's scripts may write, said where a user decides to trust it (add, trust, info). */
export const SCRIPT_WRITES_SUMMARY =
  "a copy of the folder you run them from, applied to it after the run (guarded paths such as " +
  ".git, .vscode/, .claude/ held back; never your home; --read-only prevents it), their own " +
  "work folder and cache";
