/**
 * The npm registry a package comes from and the credential sent to it, read from `.npmrc`
 * files as npm reads them: `registry=`, `@scope:registry=`, and per registry prefix
 * (`//host[:port]/path/:`) `_authToken`, `_auth` or `username` + `_password`, with `${VAR}`
 * expanded from the environment. Pure: the files' text and the environment are parameters.
 *
 * A project's `.npmrc` is the repository's, so it is hostile input: it may say where packages
 * come from and carry its own literal credentials, but a `${VAR}` in it is expanded only in
 * the credential line of a registry prefix the user's own `~/.npmrc` names (or npm's public
 * registry), never in a URL: a cloned repository cannot make this tool send one of your
 * environment's secrets to a host of its choosing. A credential is sent only to URLs under the prefix it names
 * (npm's rule), never printed and never recorded.
 */

import { SkillError } from "../errors.ts";

export const DEFAULT_REGISTRY = "https://registry.npmjs.org/";

/** What a request to a registry carries: an `Authorization` header value, or nothing. */
type Credential = { header: string };

export interface NpmConfig {
  /** The default registry (with a final `/`). */
  registry: string;
  /** `@scope` → its registry. */
  scopes: Map<string, string>;
  /** `//host/path/` → the credential for URLs under it. */
  credentials: Map<string, Credential>;
  /** Lines left out, and why (never with a secret in them). */
  notes: string[];
}

interface RawFile {
  /** Which file, for notes: `project` or `user`. */
  origin: "project" | "user";
  text: string;
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

/** `//host[:port]/path/` of a URL: the key npm files credentials under. */
function nerfDart(url: string): string {
  const parsed = new URL(url);
  return `//${parsed.host}${withSlash(parsed.pathname)}`;
}

/** One `key=value` line (comments, blank lines and sections give nothing). */
function parseLine(line: string): [string, string] | undefined {
  const trimmed = line.trim();
  if (trimmed === "" || trimmed.startsWith(";") || trimmed.startsWith("#")) return undefined;
  if (trimmed.startsWith("[")) return undefined;
  const eq = trimmed.indexOf("=");
  if (eq === -1) return undefined;
  const key = trimmed.slice(0, eq).trim();
  let value = trimmed.slice(eq + 1).trim();
  if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
  return [key, value];
}

/** `${VAR}` (and `${VAR?}`, empty when unset) replaced from the environment; undefined if unset. */
function expand(value: string, env: Readonly<Record<string, string | undefined>>) {
  let missing: string | undefined;
  const out = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(\?)?\}/g, (_all, name, optional) => {
    const found = env[name];
    if (found === undefined && optional === undefined) missing = name;
    return found ?? "";
  });
  return missing === undefined ? { value: out } : { missing };
}

const AUTH_KEYS = ["_authToken", "_auth", "username", "_password"] as const;

/**
 * The configuration of `files` (the user's first, then the project's, which wins where both
 * set a key), the environment's `npm_config_registry` last.
 */
export function readNpmConfig(
  files: readonly RawFile[],
  env: Readonly<Record<string, string | undefined>>,
): NpmConfig {
  const values = new Map<string, string>();
  const notes: string[] = [];
  const userPrefixes = new Set<string>([nerfDart(DEFAULT_REGISTRY)]);
  const ordered = [...files].sort((
    a,
    b,
  ) => (a.origin === b.origin ? 0 : a.origin === "user" ? -1 : 1));
  for (const file of ordered) {
    for (const line of file.text.split(/\r?\n/)) {
      const pair = parseLine(line);
      if (pair === undefined) continue;
      const [key, raw] = pair;
      const auth = /^(\/\/.+\/):(_authToken|_auth|username|_password)$/.exec(key);
      if (file.origin === "user") {
        if (auth !== null) userPrefixes.add(auth[1]!);
        else if (key === "registry" || key.endsWith(":registry")) {
          try {
            userPrefixes.add(nerfDart(expand(raw, env).value ?? raw));
          } catch { /* not a URL: noted below when it is used */ }
        }
      }
      // The project's file reads the environment only in the credential of a registry the
      // user named: a registry URL or a stranger's credential line could carry it elsewhere.
      const mayExpand = file.origin === "user" || (auth !== null && userPrefixes.has(auth[1]!));
      if (!mayExpand && /\$\{/.test(raw)) {
        notes.push(
          `${key} in the project's .npmrc reads the environment, which it may only do for the credential of a registry your ~/.npmrc names: left out`,
        );
        continue;
      }
      const expanded = expand(raw, env);
      if (expanded.missing !== undefined) {
        notes.push(
          `${key} in the ${file.origin}'s .npmrc names \${${expanded.missing}}, which is not set`,
        );
        continue;
      }
      values.set(key, expanded.value!);
    }
  }
  return assemble(values, env, notes);
}

function registryUrl(key: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SkillError("invalid_input", `The .npmrc's ${key} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new SkillError("invalid_input", `The .npmrc's ${key} is not an http(s) URL`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new SkillError(
      "invalid_input",
      `The .npmrc's ${key} carries credentials in its URL`,
      { hint: "Give them as //host/:_authToken=… instead" },
    );
  }
  return withSlash(url.href);
}

function assemble(
  values: Map<string, string>,
  env: Readonly<Record<string, string | undefined>>,
  notes: string[],
): NpmConfig {
  const fromEnv = env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY;
  const registry = registryUrl("registry", fromEnv ?? values.get("registry") ?? DEFAULT_REGISTRY);
  const scopes = new Map<string, string>();
  const prefixes = new Map<string, Partial<Record<(typeof AUTH_KEYS)[number], string>>>();
  for (const [key, value] of values) {
    const scope = /^(@[^:/]+):registry$/.exec(key);
    if (scope !== null) scopes.set(scope[1]!.toLowerCase(), registryUrl(key, value));
    const auth = /^(\/\/.+\/):(_authToken|_auth|username|_password)$/.exec(key);
    if (auth !== null) {
      const entry = prefixes.get(auth[1]!) ?? {};
      entry[auth[2] as (typeof AUTH_KEYS)[number]] = value;
      prefixes.set(auth[1]!, entry);
    }
  }
  const credentials = new Map<string, Credential>();
  for (const [prefix, entry] of prefixes) {
    if (entry._authToken) credentials.set(prefix, { header: `Bearer ${entry._authToken}` });
    else if (entry._auth) credentials.set(prefix, { header: `Basic ${entry._auth}` });
    else if (entry.username && entry._password) {
      const password = safeAtob(entry._password);
      if (password !== undefined) {
        credentials.set(prefix, { header: `Basic ${btoa(`${entry.username}:${password}`)}` });
      } else notes.push(`${prefix}:_password is not base64: left out`);
    }
  }
  return { registry, scopes, credentials, notes };
}

function safeAtob(text: string): string | undefined {
  try {
    return atob(text);
  } catch {
    return undefined;
  }
}

/** The registry a package comes from: its scope's, else the default. */
export function registryFor(config: NpmConfig, packageName: string): string {
  const scope = packageName.startsWith("@") ? packageName.split("/")[0]!.toLowerCase() : undefined;
  return (scope !== undefined ? config.scopes.get(scope) : undefined) ?? config.registry;
}

/**
 * The `Authorization` header for a URL: the credential of the longest prefix it lies under
 * (`//host[:port]/path/`, npm's rule), or undefined.
 */
export function authorizationFor(config: NpmConfig, url: string): string | undefined {
  let dart: string;
  try {
    dart = nerfDart(url);
  } catch {
    return undefined;
  }
  let best: string | undefined;
  for (const prefix of config.credentials.keys()) {
    if (dart.startsWith(prefix) && (best === undefined || prefix.length > best.length)) {
      best = prefix;
    }
  }
  return best === undefined ? undefined : config.credentials.get(best)!.header;
}
