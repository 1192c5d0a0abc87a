/**
 * The seed's fields for running code — `toolsets`, `scripts`, `scripts_ignore`,
 * `permissions` (`env`, `network`) and `limits` — read from front matter in both modes
 * (strict mode has already reported them as non-spec keys). Problems go to `report` with
 * their key, so each lands on its line of SKILL.md.
 */

import { canonicalScriptName } from "../names.ts";
import { isValidEnvPattern, neverForwarded } from "../policy/env_policy.ts";
import { MAX_MANIFEST_OUTPUT_BYTES } from "./limits.ts";
import { type NetGrant, type NetPolicy, parseNetGrant } from "../policy/net_grants.ts";
import { array, integer, isPlainObject, matches, number, string } from "./validation.ts";

export interface SeedLimits {
  timeoutSeconds?: number;
  maxOutputBytes?: number;
}

interface SeedFields {
  toolsets: string[];
  scripts: string[] | undefined;
  scriptsIgnore: string[];
  envPatterns: string[];
  network: NetPolicy | undefined;
  /** `permissions.services`: scripts that may keep running as services (canonical names). */
  services: string[] | undefined;
  limits: SeedLimits | undefined;
}

interface Report {
  error(key: string, message: string): void;
  warn(key: string, message: string): void;
}

const TOOLSET_REF = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$/;
const TEXT = string();
const TEXT_LIST = array(TEXT);
const TIMEOUT_SECONDS = number({ min: 0, exclusiveMin: true, max: 3600 });
const MAX_OUTPUT_BYTES = integer({ min: 1024, max: 256 * 1024 * 1024 });

/** A value's kind in YAML terms, for messages: "a list", "a mapping", "a number". */
export function describeType(value: unknown): string {
  if (value === undefined) return "nothing (the front matter is empty)";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `a ${typeof value}`;
}

/** The seed fields of `fm`; `metadata` may carry toolsets in the spec's string map. */
export function readSeedFields(
  fm: Record<string, unknown>,
  metadata: Readonly<Record<string, string>> | undefined,
  report: Report,
): SeedFields {
  const toolsets = readToolsets(fm, metadata, report);
  const scripts = readScripts(fm, report);
  const scriptsIgnore = textList(fm, "scripts_ignore", report) ?? [];
  const { envPatterns, network, services } = readPermissions(fm.permissions, report);
  const limits = readLimits(fm.limits, report);
  return { toolsets, scripts, scriptsIgnore, envPatterns, network, services, limits };
}

function textList(fm: Record<string, unknown>, key: string, { error }: Report) {
  const value = fm[key];
  if (value === undefined || value === null) return undefined;
  if (!matches(TEXT_LIST, value)) {
    error(key, `'${key}' must be a list of strings, got ${describeType(value)}`);
    return undefined;
  }
  return value;
}

/** `toolsets`, and the strict-valid spelling in `metadata.toolsets`. */
function readToolsets(
  fm: Record<string, unknown>,
  metadata: Readonly<Record<string, string>> | undefined,
  report: Report,
): string[] {
  const { error } = report;
  const toolsets = textList(fm, "toolsets", report) ?? [];
  for (const ref of toolsets) {
    if (!TOOLSET_REF.test(ref)) {
      error("toolsets", `toolset '${ref}' must have the form module.path:ClassName`);
    }
  }
  // The strict-valid spelling (what `skills init --with-toolset` writes): the spec's
  // string map carries them, space-separated, as `metadata: {toolsets: "mod:Class ..."}`.
  for (const ref of (metadata?.toolsets ?? "").split(/[\s,]+/)) {
    if (ref === "" || toolsets.includes(ref)) continue;
    if (!TOOLSET_REF.test(ref)) {
      error(
        "metadata",
        `'metadata.toolsets' entry '${ref}' must have the form module.path:ClassName`,
      );
    } else toolsets.push(ref);
  }
  return toolsets;
}

/** `scripts`: each entry canonical (`x.py`); undefined to discover them. */
function readScripts(fm: Record<string, unknown>, report: Report): string[] | undefined {
  const scriptList = textList(fm, "scripts", report);
  if (scriptList === undefined) return undefined;
  const scripts: string[] = [];
  for (const entry of scriptList) {
    try {
      scripts.push(canonicalScriptName(entry));
    } catch (e) {
      report.error("scripts", (e as Error).message);
    }
  }
  return scripts;
}

/** `permissions`: `env` patterns, `network` and `services`. */
function readPermissions(
  permissions: unknown,
  { error, warn }: Report,
): { envPatterns: string[]; network: NetPolicy | undefined; services: string[] | undefined } {
  let envPatterns: string[] = [];
  let network: NetPolicy | undefined;
  let services: string[] | undefined;
  if (permissions !== undefined && permissions !== null) {
    if (!isPlainObject(permissions)) {
      error(
        "permissions",
        `'permissions' must be a mapping such as {env: [KALSHI_*]}, got ${
          describeType(permissions)
        }`,
      );
    } else {
      const env = permissions.env;
      if (env !== undefined && env !== null) {
        if (!matches(TEXT_LIST, env)) {
          error("permissions", `'permissions.env' must be a list of variable names or patterns`);
        } else {
          envPatterns = env;
          for (const pattern of envPatterns) {
            if (!isValidEnvPattern(pattern)) {
              error(
                "permissions",
                `'permissions.env' pattern '${pattern}' is invalid: use NAME or PREFIX_* (letters, digits, '_', at least 3 characters before one trailing '*')`,
              );
            } else if (!pattern.endsWith("*") && neverForwarded(pattern)) {
              warn(
                "permissions",
                `'permissions.env' names '${pattern}', which is never passed to scripts (it would change what runs)`,
              );
            }
          }
        }
      }
      network = networkPermission(
        permissions.network,
        (message) => error("permissions", message),
        (message) => warn("permissions", message),
      );
      services = servicesPermission(
        permissions.services,
        (message) => error("permissions", message),
      );
      for (const key of Object.keys(permissions)) {
        if (key !== "env" && key !== "network" && key !== "services") {
          warn("permissions", `unknown permission '${key}' is ignored`);
        }
      }
    }
  }
  return { envPatterns, network, services };
}

/**
 * `permissions.services`: the scripts that may keep running in the background (`skills run
 * --background`), by any name a script answers to; canonical (`start_server.py`) when read.
 */
function servicesPermission(
  value: unknown,
  error: (message: string) => void,
): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!matches(TEXT_LIST, value) || value.some((entry) => entry.trim() === "")) {
    error("'permissions.services' must be a list of script names such as [start_server]");
    return undefined;
  }
  return [...new Set(value.map((entry) => entry.trim().replace(/^scripts\//, "")))];
}

/** `limits`: `timeout` seconds and `max_output` bytes. */
function readLimits(limitsRaw: unknown, { error, warn }: Report): SeedLimits | undefined {
  let limits: SeedLimits | undefined;
  if (limitsRaw !== undefined && limitsRaw !== null) {
    if (!isPlainObject(limitsRaw)) {
      error("limits", `'limits' must be a mapping such as {timeout: 30, max_output: 1048576}`);
    } else {
      const { timeout, max_output: maxOutput } = limitsRaw;
      limits = {};
      if (timeout !== undefined) {
        if (!matches(TIMEOUT_SECONDS, timeout)) {
          error("limits", "'limits.timeout' must be a number of seconds between 0 and 3600");
        } else limits.timeoutSeconds = timeout;
      }
      if (maxOutput !== undefined) {
        if (!matches(MAX_OUTPUT_BYTES, maxOutput)) {
          error("limits", "'limits.max_output' must be a byte count between 1024 and 268435456");
        } else if (maxOutput > MAX_MANIFEST_OUTPUT_BYTES) {
          // A skill may not make the CLI hold (and parse) hundreds of MiB of its output.
          warn(
            "limits",
            `'limits.max_output' ${maxOutput} is above the ${MAX_MANIFEST_OUTPUT_BYTES} bytes (16 MiB) a skill may ask for; 16 MiB applies (MAX_SCRIPT_OUTPUT raises it)`,
          );
          limits.maxOutputBytes = MAX_MANIFEST_OUTPUT_BYTES;
        } else limits.maxOutputBytes = maxOutput;
      }
    }
  }
  return limits;
}

/** `permissions.network`: `true`, `false`, or a list of `host[:port]` (core/net_grants). */
function networkPermission(
  value: unknown,
  error: (message: string) => void,
  warn: (message: string) => void,
): NetPolicy | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  if (value === true) return { any: true, grants: [] };
  if (!matches(TEXT_LIST, value)) {
    error("'permissions.network' must be true or a list of hosts such as [api.example.com]");
    return undefined;
  }
  const grants: NetGrant[] = [];
  for (const entry of value) {
    const host = urlGrant(entry);
    if (host !== undefined) {
      warn(
        `'permissions.network' entry '${entry}' is a URL: read as ${host} (a host is written host[:port])`,
      );
    }
    const parsed = parseNetGrant(host ?? entry);
    if ("error" in parsed) error(`'permissions.network' entry ${parsed.error}`);
    else grants.push(parsed);
  }
  return { any: false, grants };
}

/** Schemes whose URLs name a host and a port a grant can take (the port when none is given). */
const URL_PORTS: Record<string, number> = { "http:": 80, "https:": 443, "ws:": 80, "wss:": 443 };

/**
 * The `host:port` a URL written as a network entry means (`http://localhost:8000` →
 * `localhost:8000`, as NVIDIA's aiq-research declares it; `https://api.x.com/v1` →
 * `api.x.com:443`): the path cannot be granted, the host and port are what the grant is.
 * Undefined for anything that is not such a URL.
 */
function urlGrant(entry: string): string | undefined {
  if (!/^[a-z]+:\/\//i.test(entry.trim())) return undefined;
  try {
    const url = new URL(entry.trim());
    const port = url.port !== "" ? Number(url.port) : URL_PORTS[url.protocol];
    if (port === undefined || url.hostname === "" || url.username !== "") return undefined;
    return `${url.hostname}:${port}`;
  } catch {
    return undefined;
  }
}
