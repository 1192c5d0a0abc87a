/**
 * A website's skills fetched into a folder of a change's staging: every entry of a site's
 * well-known index (or the one a record names) downloaded, its digest checked against the
 * index before a byte of it is written, each in `<root>/<name>/`; or one file named by its
 * URL, a SKILL.md or an archive, read within the limits (archive.ts). What was installed is
 * known by a digest per skill: the index entry's `sha256:` digest (0.2.0), the digest of the
 * files the older index lists, the downloaded file's own. A restore names the digest it
 * needs: a site that serves another version now is refused, not installed in its place.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import {
  filesDigestInput,
  type IndexEntry,
  parseWellKnownIndex,
  type WellKnownIndex,
  wellKnownIndexUrls,
} from "../../core/sources/web_source.ts";
import { readArchive } from "./archive.ts";
import type { ArchiveFile, ArchiveLimits } from "./entries.ts";
import { httpGet, httpGetRequired } from "./http.ts";

/** An index is a small JSON document. */
const MAX_INDEX_BYTES = 1024 * 1024;

/** A site's index, found: where it was, and what it lists. */
interface FoundIndex {
  indexUrl: string;
  index: WellKnownIndex;
}

/**
 * The site's index: `/.well-known/agent-skills/index.json`, else `/.well-known/skills/
 * index.json`, under the URL's own path; null when it serves neither (or not as JSON).
 */
export async function findWellKnownIndex(
  site: string,
  signal?: AbortSignal,
): Promise<FoundIndex | null> {
  for (const { url } of wellKnownIndexUrls(site)) {
    const got = await httpGet(url, { maxBytes: MAX_INDEX_BYTES, ...(signal ? { signal } : {}) });
    if (got === null) continue;
    let data: unknown;
    try {
      data = JSON.parse(new TextDecoder().decode(got.bytes));
    } catch {
      continue;
    }
    return { indexUrl: got.url, index: parseWellKnownIndex(data, got.url) };
  }
  return null;
}

/** Per skill folder of the fetch (its index name), the digest it was fetched at. */
type Revisions = Map<string, string>;

async function digestOf(bytes: Uint8Array): Promise<string> {
  return `sha256:${await sha256Hex(bytes)}`;
}

function refused(where: string, why: string): SkillError {
  return new SkillError(
    "integrity_mismatch",
    `Cannot install from ${where}: ${why}. Nothing was written`,
  );
}

/**
 * Fetches a site's skills into `root`: all its index lists, or only `only`; `wanted` is the
 * digest a restore needs. Every download is checked before anything is written.
 */
export async function fetchWellKnown(
  site: string,
  only: string,
  wanted: string | undefined,
  root: string,
  limits: ArchiveLimits,
  signal?: AbortSignal,
): Promise<Revisions> {
  const found = await findWellKnownIndex(site, signal);
  if (found === null) {
    throw new SkillError("not_found", `No skills index at ${site}`, {
      hint: "A site lists its skills at /.well-known/agent-skills/index.json",
    });
  }
  const entries = only === ""
    ? found.index.entries
    : found.index.entries.filter((e) => e.name === only);
  if (entries.length === 0) {
    throw new SkillError(
      "not_found",
      only === ""
        ? `The skills index ${found.indexUrl} lists no skills`
        : `Skill '${only}' is not in ${found.indexUrl}`,
      found.index.skipped.length > 0 ? { hint: `Left out: ${found.index.skipped.join("; ")}` } : {},
    );
  }
  const read: { name: string; digest: string; files: ArchiveFile[] }[] = [];
  for (const entry of entries) {
    const got = await readEntry(entry, limits, signal);
    if (wanted !== undefined && got.digest !== wanted) {
      throw refused(
        site,
        `skill '${entry.name}' is served at ${got.digest} now, not at the recorded ${wanted}`,
      );
    }
    read.push({ name: entry.name, ...got });
  }
  await Deno.mkdir(root, { recursive: true });
  const revisions: Revisions = new Map();
  for (const skill of read) {
    await writeFiles(join(root, skill.name), skill.files);
    revisions.set(skill.name, skill.digest);
  }
  return revisions;
}

/** One index entry's files, its digest checked against the index (0.2.0) or computed. */
async function readEntry(
  entry: IndexEntry,
  limits: ArchiveLimits,
  signal?: AbortSignal,
): Promise<{ digest: string; files: ArchiveFile[] }> {
  const options = {
    maxBytes: limits.downloadMaxBytes,
    limitName: "SKILLS_DOWNLOAD_MAX_BYTES",
    ...(signal ? { signal } : {}),
  };
  if (entry.format === "artifact") {
    const got = await httpGetRequired(entry.url, options);
    const digest = await digestOf(got.bytes);
    if (digest !== entry.digest) {
      throw refused(
        entry.url,
        `its digest is ${digest}, the index says ${entry.digest} (the file was changed or replaced)`,
      );
    }
    const files = entry.type === "skill-md"
      ? [{ path: "SKILL.md", bytes: got.bytes, executable: false }]
      : await readArchive(got.bytes, limits, entry.url);
    if (!files.some((f) => f.path === "SKILL.md")) {
      throw refused(entry.url, "it has no SKILL.md at its root");
    }
    return { digest, files };
  }
  if (entry.files.length > limits.extractMaxFiles) {
    throw refused(entry.base, `it lists more than ${limits.extractMaxFiles} files`);
  }
  const files: ArchiveFile[] = [];
  let total = 0;
  for (const path of entry.files) {
    const got = await httpGetRequired(`${entry.base}/${path}`, options);
    total += got.bytes.length;
    if (total > limits.extractMaxBytes) {
      throw refused(entry.base, `its files hold more than ${limits.extractMaxBytes} bytes`);
    }
    files.push({ path, bytes: got.bytes, executable: false });
  }
  return { digest: await digestOf(filesDigestInput(files)), files };
}

/** Downloads one file (a SKILL.md, or an archive read within the limits) into `root`. */
export async function fetchWebFile(
  url: string,
  target: "skill-md" | "archive",
  wanted: string | undefined,
  root: string,
  limits: ArchiveLimits,
  signal?: AbortSignal,
): Promise<string> {
  const got = await httpGetRequired(url, {
    maxBytes: limits.downloadMaxBytes,
    limitName: "SKILLS_DOWNLOAD_MAX_BYTES",
    ...(signal ? { signal } : {}),
  });
  const digest = await digestOf(got.bytes);
  if (wanted !== undefined && digest !== wanted) {
    throw refused(url, `it is served at ${digest} now, not at the recorded ${wanted}`);
  }
  const files = target === "skill-md"
    ? [{ path: "SKILL.md", bytes: got.bytes, executable: false }]
    : await readArchive(got.bytes, limits, url);
  await Deno.mkdir(root, { recursive: true });
  await writeFiles(root, files);
  return digest;
}

/** The digest a site's index gives a skill now (0.2.0), or null when only a fetch can tell. */
export async function indexedDigest(site: string, name: string): Promise<string | null> {
  const found = await findWellKnownIndex(site);
  const entry = found?.index.entries.find((e) => e.name === name);
  return entry?.format === "artifact" ? entry.digest : null;
}

/** Writes checked files under `dir` (which may not exist yet). */
async function writeFiles(dir: string, files: readonly ArchiveFile[]): Promise<void> {
  for (const file of files) {
    const parts = file.path.split("/");
    const target = join(dir, ...parts);
    await Deno.mkdir(join(dir, ...parts.slice(0, -1)), { recursive: true });
    await Deno.writeFile(target, file.bytes, {
      createNew: true,
      mode: file.executable ? 0o755 : 0o644,
    });
  }
}
