/**
 * Which environment variables reach a skill's scripts: a documented base set plus the
 * skill's `permissions.env` patterns (`KALSHI_API_KEY`, `KALSHI_*`). Nothing else.
 */

import { SkillError } from "../errors.ts";
import { quoteName } from "../names.ts";
import { sandboxHides } from "./workspace_rules.ts";

const PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;
/** A prefix pattern must name this much before its `*` (`KAL*`; `A*` reads every secret). */
const MIN_PREFIX_CHARS = 3;

/**
 * `NAME` or `PREFIX*` with a prefix of at least three characters: a bare `*`, and its
 * equivalents `A*`, `O*`, … would expose nearly every secret, and are refused.
 */
export function isValidEnvPattern(pattern: string): boolean {
  if (!PATTERN.test(pattern)) return false;
  return !pattern.endsWith("*") || pattern.length - 1 >= MIN_PREFIX_CHARS;
}

/**
 * Variables that make a loader, shell or interpreter run other code (or change which
 * program runs): never forwarded from a skill's allowlist, whatever it names. PATH reaches
 * scripts from the base set, as the user's own.
 */
const NEVER_FORWARDED_NAMES = new Set([
  "PATH",
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "PS4",
  "IFS",
  "CDPATH",
  "GCONV_PATH",
  "PERL5OPT",
  "PERL5LIB",
  "RUBYOPT",
  "RUBYLIB",
  "NODE_OPTIONS",
  "NODE_PATH",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "SKILLS_PARENT_PID",
]);
const NEVER_FORWARDED_PREFIXES = ["LD_", "DYLD_", "PYTHON", "BASH_FUNC_", "UV_", "PIP_"];

/** Whether a variable may never be forwarded by a skill's `permissions.env`. */
export function neverForwarded(name: string): boolean {
  const upper = name.toUpperCase();
  return NEVER_FORWARDED_NAMES.has(upper) ||
    NEVER_FORWARDED_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

type EnvMatcher = (name: string) => boolean;

/**
 * Builds a matcher from `permissions.env` patterns (exact names, or a trailing `*`). It
 * never matches a {@link neverForwarded} name.
 */
export function envMatcher(patterns: readonly string[]): EnvMatcher {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const pattern of patterns) {
    if (!isValidEnvPattern(pattern)) continue;
    if (pattern.endsWith("*")) prefixes.push(pattern.slice(0, -1));
    else exact.add(pattern);
  }
  return (name) =>
    !neverForwarded(name) &&
    (exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix)));
}

/**
 * Variables every script gets from the caller's environment (when set): enough for Python,
 * uv and the locale to work, nothing that decides which code runs.
 */
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
  // Where uv keeps things, and whether it may go online. Not UV_INDEX_URL (it chooses what
  // code is installed, and often carries a token) nor UV_PYTHON (it chooses the
  // interpreter): configure those in uv.toml, which uv reads itself.
  "UV_CACHE_DIR",
  "UV_PYTHON_INSTALL_DIR",
  "UV_OFFLINE",
  "UV_NO_CACHE",
];
const BASE_ENV_PREFIXES: readonly string[] = ["LC_"];

function isBaseEnvName(name: string): boolean {
  return BASE_ENV_NAMES.includes(name) || BASE_ENV_PREFIXES.some((p) => name.startsWith(p));
}

/**
 * The machine's TLS trust, passed to every script as the caller has it: where a proxy
 * inspects TLS (as in many organisations), its CA is trusted only through these, and a Node
 * `fetch`, Python's `requests` or uv's downloads fail with "self-signed certificate in
 * certificate chain" without them. Paths to certificates the caller already trusts: they
 * decide no code, and a project's `.env` can never set them (core/policy/dotenv.ts).
 */
export const TLS_TRUST_NAMES: readonly string[] = [
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "DENO_CERT",
];

/**
 * Whether a TLS trust variable is passed on: every path it names (SSL_CERT_DIR may list
 * several) absolute and where the OS sandbox shows it (not in the caller's home, /tmp, …: a
 * bundle path the script cannot read makes `requests` fail where none would not).
 */
export function forwardsTrust(
  name: string,
  value: string,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (!TLS_TRUST_NAMES.includes(name)) return false;
  const paths = name === "SSL_CERT_DIR" ? value.split(":") : [value];
  return paths.every((path) =>
    path.startsWith("/") && !path.split("/").includes("..") && !sandboxHides(path, env)
  );
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
    else if (forwardsTrust(name, value, source)) env[name] = value;
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
