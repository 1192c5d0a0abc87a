/**
 * Which environment variables reach a skill's scripts: a documented base set plus the
 * skill's `permissions.env` patterns (`KALSHI_API_KEY`, `KALSHI_*`). Nothing else.
 */

const PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** `NAME` or `PREFIX*`; a bare `*` would expose every secret and is refused. */
export function isValidEnvPattern(pattern: string): boolean {
  return PATTERN.test(pattern);
}

export type EnvMatcher = (name: string) => boolean;

/** Builds a matcher from `permissions.env` patterns (exact names, or a trailing `*`). */
export function envMatcher(patterns: readonly string[]): EnvMatcher {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const pattern of patterns) {
    if (!isValidEnvPattern(pattern)) continue;
    if (pattern.endsWith("*")) prefixes.push(pattern.slice(0, -1));
    else exact.add(pattern);
  }
  return (name) => exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}

/** Variables every script gets (when set): enough for Python, uv and locale to work. */
export const BASE_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "TERM",
  "TMPDIR",
  "TEMP",
  "TMP",
  "TZ",
  "SYSTEMROOT",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "XDG_CACHE_HOME",
  "UV_CACHE_DIR",
  "UV_PYTHON",
  "UV_PYTHON_INSTALL_DIR",
  "UV_OFFLINE",
  "UV_INDEX_URL",
  "UV_NO_CACHE",
];
const BASE_ENV_PREFIXES: readonly string[] = ["LC_"];

export function isBaseEnvName(name: string): boolean {
  return BASE_ENV_NAMES.includes(name) || BASE_ENV_PREFIXES.some((p) => name.startsWith(p));
}

/**
 * The environment for a script: the base set plus allowlisted variables from `source`.
 * `extra` lists variables the user asked to forward (`skills run --env NAME`); each must
 * be covered by the allowlist, otherwise its name is returned in `denied`.
 */
export function buildScriptEnv(
  source: Readonly<Record<string, string>>,
  patterns: readonly string[],
  extra: readonly string[] = [],
): { env: Record<string, string>; denied: string[] } {
  const allowed = envMatcher(patterns);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (isBaseEnvName(name) || allowed(name)) env[name] = value;
  }
  const denied = extra.filter((name) => !allowed(name));
  return { env, denied };
}
