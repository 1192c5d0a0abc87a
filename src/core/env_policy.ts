/**
 * Which environment variables reach a skill's scripts: a documented base set plus the
 * skill's `permissions.env` patterns (`KALSHI_API_KEY`, `KALSHI_*`). Nothing else.
 */

import { SkillError } from "./errors.ts";
import { quoteName } from "./names.ts";

const PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** `NAME` or `PREFIX*`; a bare `*` would expose every secret and is refused. */
export function isValidEnvPattern(pattern: string): boolean {
  return PATTERN.test(pattern);
}

type EnvMatcher = (name: string) => boolean;

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
const BASE_ENV_NAMES: readonly string[] = [
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

function isBaseEnvName(name: string): boolean {
  return BASE_ENV_NAMES.includes(name) || BASE_ENV_PREFIXES.some((p) => name.startsWith(p));
}

/** What the environment policy needs to know of a skill. */
export interface EnvSubject {
  canonical: string;
  manifest: { envPatterns: readonly string[] };
}

/**
 * Set for every script: Python writes UTF-8 to pipes on every platform (Windows too), and
 * never writes bytecode into a skill folder (what runs is a verified copy without any:
 * runtime/trust/snapshot.ts).
 */
const FIXED_SCRIPT_ENV: Readonly<Record<string, string>> = {
  PYTHONUTF8: "1",
  PYTHONDONTWRITEBYTECODE: "1",
};

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment for one of `skill`'s scripts: the base set (PATH, HOME, LANG, LC_*, ...)
 * and the variables matching the skill's `permissions.env`, taken from `source`, plus
 * {@link FIXED_SCRIPT_ENV}. `extra` holds `--env NAME` / `--env NAME=VALUE` requests; each
 * name must be covered by the allowlist (or be a base variable), else `permission_denied`.
 */
export function scriptEnvironment(
  skill: EnvSubject,
  source: Readonly<Record<string, string>>,
  extra: readonly string[] = [],
): Record<string, string> {
  const allowed = envMatcher(skill.manifest.envPatterns);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (isBaseEnvName(name) || allowed(name)) env[name] = value;
  }
  for (const request of extra) {
    const eq = request.indexOf("=");
    const name = eq === -1 ? request : request.slice(0, eq);
    if (!ENV_NAME.test(name)) {
      throw new SkillError("usage", `Invalid environment variable name: '${quoteName(name)}'`);
    }
    if (!allowed(name) && !isBaseEnvName(name)) {
      throw new SkillError("permission_denied", `Env var '${name}' not in allowlist`, {
        hint: skill.manifest.envPatterns.length === 0
          ? `Skill '${skill.canonical}' allows no extra variables (permissions.env is empty)`
          : `Skill '${skill.canonical}' allows: ${skill.manifest.envPatterns.join(", ")}`,
      });
    }
    if (eq !== -1) env[name] = request.slice(eq + 1);
  }
  return { ...env, ...FIXED_SCRIPT_ENV };
}
