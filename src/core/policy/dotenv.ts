/**
 * `.env` files: parsing, and what one may set. A `.env` is read from the working
 * directory, which may belong to anyone (a cloned repository, a download folder), so it is
 * untrusted: it may set the CLI's own settings that run nothing (model, activation, limits,
 * keys) and values meant for skills (which reach only a skill whose `permissions.env`
 * names them), but never anything that decides what runs or where a credential goes:
 * git's and the loader's variables, `SKILLS_HOME`, interpreters and package indexes,
 * proxies and certificates, or a base URL for a key that came from elsewhere.
 */

/** Largest `.env` read; a bigger one is ignored (bounded memory, no `/dev/zero` hang). */
export const MAX_DOTENV_BYTES = 64 * 1024;

/** Parses `.env` text: `KEY=value`, `export KEY=value`, quotes, `#` comments. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1]!;
    let value = match[2]!;
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      value = value.slice(1, -1).replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    } else if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) {
      value = value.slice(1, -1);
    } else {
      const hash = value.search(/\s#/);
      if (hash !== -1) value = value.slice(0, hash).trimEnd();
    }
    out[key] = value;
  }
  return out;
}

/** The CLI settings a `.env` may set (SKILLS_BASE_URL only with its key, see below). */
const CLI_SETTINGS = new Set([
  "SKILLS_MODEL",
  "AGENT_SKILLS",
  "SKILLS_ALLOWED_TOOLS",
  "SCRIPT_TIMEOUT",
  "MAX_SCRIPT_OUTPUT",
  "SKILLS_GIT_TIMEOUT",
  "SKILLS_DEBUG",
  "NO_COLOR",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "SKILLS_API_KEY",
  "SKILLS_BASE_URL",
]);

/**
 * Names that steer programs rather than configure a skill: git, the dynamic loader,
 * shells, interpreters and package managers, where files and temporary files go, network
 * proxies and trusted certificates. Any `SKILLS_*` not in {@link CLI_SETTINGS} (the home,
 * interpreter paths, the sandbox and network grants) is refused as well.
 */
const STEERING_PREFIXES = [
  "SKILLS_",
  "GIT_",
  "UV_",
  "PIP_",
  "PYTHON",
  "LD_",
  "DYLD_",
  "BASH_FUNC_",
  "NODE_",
  "NPM_",
  "DENO_",
  "SSH_",
  "SSL_",
  "OPENSSL_",
  "CURL_",
  "REQUESTS_",
  "XDG_",
  "LC_",
  "MALLOC_",
  "GLIBC_",
  "PERL",
  "RUBY",
  "GEM_",
  "JAVA_",
  "_JAVA_",
];
const STEERING_NAMES = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "ENV",
  "BASH_ENV",
  "IFS",
  "CDPATH",
  "TMPDIR",
  "TEMP",
  "TMP",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "BROWSER",
  "GCONV_PATH",
  "LOCPATH",
  "NLSPATH",
  "HOSTALIASES",
  "RES_OPTIONS",
  "LOCALDOMAIN",
  "INIT_CWD",
  "SYSTEMROOT",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "COMSPEC",
  "PATHEXT",
]);

function steers(name: string): boolean {
  const upper = name.toUpperCase();
  // Lower-case names are the proxies' and npm's (`https_proxy`, `npm_config_*`): programs'.
  if (name !== upper) return true;
  return STEERING_NAMES.has(upper) || upper.endsWith("_PROXY") ||
    STEERING_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** The key a model provider would send, in the order src/agent/chat/providers.ts reads them. */
function keyNames(model: string | undefined): string[] {
  const provider = (model ?? "").split(":")[0]!.trim().toLowerCase();
  if (provider === "openai") return ["OPENAI_API_KEY", "SKILLS_API_KEY"];
  if (provider === "anthropic") return ["ANTHROPIC_API_KEY", "SKILLS_API_KEY"];
  if (provider === "") return ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SKILLS_API_KEY"];
  return ["SKILLS_API_KEY"];
}

interface DotenvDecision {
  /** The effective environment: the real one, plus what the file may set. */
  env: Record<string, string>;
  /** Names the file set and that were ignored, with the reason. */
  ignored: { name: string; reason: string }[];
}

/**
 * Merges a `.env` into the real environment under the rules above. Variables already set
 * in the real environment win (the file fills gaps only). `SKILLS_BASE_URL` from the file
 * is kept only when the key it would receive comes from the file too (or there is none).
 */
export function applyDotenv(
  real: Readonly<Record<string, string>>,
  fromFile: Readonly<Record<string, string>>,
): DotenvDecision {
  const kept: Record<string, string> = {};
  const ignored: DotenvDecision["ignored"] = [];
  for (const [name, value] of Object.entries(fromFile)) {
    if (Object.hasOwn(real, name)) continue; // the real environment wins anyway
    if (!CLI_SETTINGS.has(name) && steers(name)) {
      ignored.push({ name, reason: "it decides what runs or where data goes" });
      continue;
    }
    kept[name] = value;
  }
  if (Object.hasOwn(kept, "SKILLS_BASE_URL")) {
    const merged = { ...kept, ...real };
    const key = keyNames(merged.SKILLS_MODEL).find((name) => (merged[name] ?? "").trim() !== "");
    if (key !== undefined && !Object.hasOwn(kept, key)) {
      delete kept.SKILLS_BASE_URL;
      ignored.push({
        name: "SKILLS_BASE_URL",
        reason: `${key} comes from the environment, not from this file`,
      });
    }
  }
  return { env: { ...kept, ...real }, ignored };
}
