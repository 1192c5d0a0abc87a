/**
 * The tool lists toolset hosts described (`{"op": "describe"}`), kept in
 * `$SKILLS_HOME/.cache/toolsets/<key>.json` so that activating a skill whose toolsets did not
 * change (`skills context`, a chat, the MCP server) mounts its tools without starting a
 * sandboxed Python host; the host starts when a tool is called.
 *
 * A description is data produced by running the toolsets' code, so its key is the SHA-256
 * of everything that code and its host are given: the digest of the skill's verified files
 * (every byte it runs from), the host's own hash, the toolsets named, the interpreter (its
 * path and the identity of the file: device, inode, size, mtime), the environment the host
 * receives and the sandbox it runs in. A change to any of them is another key: the host is
 * asked again. An entry is read back as the untrusted document it was (the caller validates
 * it as it validates the host's answer); a missing or malformed one is a miss.
 */

import { cacheKey, readKeyed, writeKeyed } from "../../store/keyed_cache.ts";

/** Where the descriptions are kept, under `$SKILLS_HOME/.cache/`. */
const FOLDER = "toolsets";

/**
 * How many descriptions are kept: one per skill with toolsets and environment it ran with,
 * far more than an honest home holds; past it the oldest go.
 */
const KEEP = 4096;

/** An entry larger than the largest answer a host may send is not read. */
const MAX_ENTRY_BYTES = 2 * 1024 * 1024;

/** What a toolset host's description depends on (see the module's comment). */
interface DescriptionInputs {
  /** The hash of the embedded host program. */
  host: string;
  /** The digest of the skill's verified files. */
  digest: string;
  toolsets: readonly string[];
  /** The interpreter's command as launched. */
  interpreter: string;
  /** The environment the host receives. */
  env: Readonly<Record<string, string>>;
  /** The sandbox's network and limits, or null in policy mode. */
  sandbox: unknown;
}

/** The interpreter's file as it is now (undefined when it cannot be read: no entry then). */
function interpreterIdentity(command: string): string | undefined {
  try {
    const info = Deno.statSync(command);
    return [command, info.dev, info.ino, info.size, info.mtime?.getTime()].join("|");
  } catch {
    return undefined;
  }
}

/** The key of a description: a hex SHA-256, or undefined when the interpreter is not a file. */
export function descriptionKey(inputs: DescriptionInputs): string | undefined {
  const interpreter = interpreterIdentity(inputs.interpreter);
  if (interpreter === undefined) return undefined;
  const env = Object.entries(inputs.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return cacheKey([
    "toolset-description/1",
    inputs.host,
    inputs.digest,
    inputs.toolsets,
    interpreter,
    env,
    inputs.sandbox,
  ]);
}

/** The description kept under `key`, as the document it was; undefined when there is none. */
export function readDescription(home: string, key: string): Record<string, unknown> | undefined {
  const value = readKeyed(home, FOLDER, key, MAX_ENTRY_BYTES);
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** Keeps `description` under `key`. */
export function writeDescription(
  home: string,
  key: string,
  description: Record<string, unknown>,
): void {
  writeKeyed(home, FOLDER, key, description, KEEP);
}
