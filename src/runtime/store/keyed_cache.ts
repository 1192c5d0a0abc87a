/**
 * Derived data kept under `$SKILLS_HOME/.cache/<folder>/<key>.json`, where the key is the
 * hex SHA-256 of everything the data was derived from (the caller's key material: bytes,
 * versions, settings). A cache of data, never of a decision: a changed input is another key,
 * so an entry is never stale, only unused. An entry is read back only under the key it was
 * written with (kept inside it too: a file copied to another name is a miss), bounded in
 * size, and handed back as the untrusted JSON it is: the caller validates its shape.
 */

import { join } from "../os/paths.ts";
import { writeFileAtomicSync } from "../os/fs.ts";
import { sha256HexSync } from "../../core/records/sha256.ts";
import { CACHE_DIR } from "./home.ts";

/** The key of `material`: the hex SHA-256 of its JSON. */
export function cacheKey(material: unknown): string {
  return sha256HexSync(new TextEncoder().encode(JSON.stringify(material)));
}

function entryPath(home: string, folder: string, key: string): string {
  return join(home, CACHE_DIR, folder, `${key}.json`);
}

/** The value kept under `key` in `folder`; undefined when none is (or it is unreadable). */
export function readKeyed(
  home: string,
  folder: string,
  key: string,
  maxBytes: number,
): unknown {
  try {
    const path = entryPath(home, folder, key);
    if (Deno.statSync(path).size > maxBytes) return undefined;
    const entry: unknown = JSON.parse(Deno.readTextFileSync(path));
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return undefined;
    const kept = entry as { key?: unknown; value?: unknown };
    return kept.key === key ? kept.value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps `value` under `key` in `folder`, then removes the entries past the `keep` most
 * recently written (an input that changes often leaves no trail of entries nothing reads).
 * A cache: a failure to write costs only time later.
 */
export function writeKeyed(
  home: string,
  folder: string,
  key: string,
  value: unknown,
  keep: number,
): void {
  const dir = join(home, CACHE_DIR, folder);
  try {
    Deno.mkdirSync(dir, { recursive: true });
    writeFileAtomicSync(entryPath(home, folder, key), JSON.stringify({ key, value }), {
      durable: false,
    });
    const entries = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".json"));
    if (entries.length <= keep) return;
    const written = entries.map((e) => {
      const path = join(dir, e.name);
      return { path, at: Deno.lstatSync(path).mtime?.getTime() ?? 0 };
    }).sort((a, b) => b.at - a.at);
    for (const { path } of written.slice(keep)) Deno.removeSync(path);
  } catch { /* the next run derives it again */ }
}
