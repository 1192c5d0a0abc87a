/**
 * A package's skills fetched into a folder of a change's staging: the registry the user's
 * `.npmrc` names for it (npmrc_files.ts) asked for the package's document, the version the
 * request picks (a range or dist-tag, or the exact revision a record pins), the tarball
 * downloaded within the download limit and its bytes checked against the document's
 * integrity — and a pinned revision's — before anything of it is read; then read with the
 * website archives' checks (every entry's path, type, size and count) and only the folders
 * its `package.json` declares as skills written, at their paths in the package.
 *
 * A package in the project's `node_modules` is read from disk the same way, with no network:
 * its folders copied within the same limits (node_modules.ts finds them).
 */

import { join } from "../os/paths.ts";
import { fileTurns } from "../os/fs.ts";
import { SkillError } from "../../core/errors.ts";
import { authorizationFor, registryFor } from "../../core/sources/npmrc.ts";
import {
  integrityParts,
  npmRevision,
  packageDocumentUrl,
  packageSkillFolders,
  type PackageSkills,
  parseRevision,
  pickVersion,
} from "../../core/sources/npm_source.ts";
import type { NpmSource } from "../../core/sources/sources.ts";
import { readArchive } from "../web/archive.ts";
import type { ArchiveFile, ArchiveLimits } from "../web/entries.ts";
import { httpGetRequired } from "../web/http.ts";
import { loadNpmConfig } from "./npmrc_files.ts";
import { readInstalledPackage } from "./node_modules.ts";

/** A package document lists every version: larger than an index, still bounded. */
const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
/** The abbreviated document npm clients ask for (dist, versions, dist-tags). */
const ABBREVIATED = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8";

/** What a fetch of a package gave: its revision and the skill folders written. */
interface FetchedPackage {
  /** `<version>@<integrity>` (the version alone for a package read from disk without one). */
  revision: string;
  skills: PackageSkills;
}

/** What is asked of a package: a range or dist-tag to follow, or a revision a record pins. */
interface PackageRequest {
  range: string | undefined;
  revision: string | undefined;
}

function refused(label: string, why: string): SkillError {
  return new SkillError(
    "integrity_mismatch",
    `Cannot install from ${label}: ${why}. Nothing was written`,
  );
}

function base64(bytes: ArrayBuffer): string {
  let text = "";
  for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte);
  return btoa(text);
}

/** Whether `bytes` match an SRI (`sha512-…`, `sha1-…`). */
async function matchesIntegrity(bytes: Uint8Array, integrity: string): Promise<boolean> {
  const parts = integrityParts(integrity);
  if (parts === undefined) return false;
  const digest = await crypto.subtle.digest(parts.algorithm, bytes as Uint8Array<ArrayBuffer>);
  return base64(digest) === parts.base64;
}

/** Downloads, checks and reads a package's tarball from its registry. */
async function downloadPackage(
  source: NpmSource,
  request: PackageRequest,
  limits: ArchiveLimits,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  signal?: AbortSignal,
): Promise<{ revision: string; files: ArchiveFile[] }> {
  const config = await loadNpmConfig(env, cwd);
  const authorization = (url: string) => authorizationFor(config, url);
  const label = source.url;
  const documentUrl = packageDocumentUrl(
    registryFor(config, source.packageName),
    source.packageName,
  );
  const document = await httpGetRequired(documentUrl, {
    maxBytes: MAX_DOCUMENT_BYTES,
    accept: ABBREVIATED,
    authorization,
    ...(signal ? { signal } : {}),
  }).catch((error) => {
    if (error instanceof SkillError && error.code === "not_found") {
      throw new SkillError(
        "not_found",
        `Package ${source.packageName} is not on ${documentUrl}`,
        config.notes.length > 0 ? { hint: `From your .npmrc: ${config.notes.join("; ")}` } : {},
      );
    }
    throw error;
  });
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(document.bytes));
  } catch {
    throw new SkillError("parse_error", `The registry's document for ${label} is not JSON`);
  }
  const picked = pickVersion(data, request, label);
  const pinned = request.revision === undefined ? undefined : parseRevision(request.revision);
  if (pinned?.integrity !== undefined && pinned.integrity !== picked.integrity) {
    throw refused(
      `${label}@${picked.version}`,
      `the registry gives it the integrity ${picked.integrity}, the record says ${pinned.integrity}`,
    );
  }
  const tarball = await httpGetRequired(new URL(picked.tarball, documentUrl).href, {
    maxBytes: limits.downloadMaxBytes,
    limitName: "SKILLS_DOWNLOAD_MAX_BYTES",
    authorization,
    ...(signal ? { signal } : {}),
  });
  if (!(await matchesIntegrity(tarball.bytes, picked.integrity))) {
    throw refused(
      `${label}@${picked.version}`,
      `its tarball does not match its integrity ${picked.integrity} (the file was changed or replaced)`,
    );
  }
  const files = await readArchive(tarball.bytes, limits, `${label}@${picked.version}`);
  return { revision: npmRevision(picked.version, picked.integrity), files };
}

/**
 * Fetches a package's skills into `root` (which does not exist yet): from the registry, or
 * from its folder in `node_modules` when the source names one.
 */
export async function fetchNpmPackage(
  source: NpmSource,
  request: PackageRequest,
  root: string,
  limits: ArchiveLimits,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  signal?: AbortSignal,
): Promise<FetchedPackage> {
  const got = source.installedDir !== undefined
    ? await readInstalledPackage(source.installedDir, limits, source.installedIntegrity)
    : await downloadPackage(source, request, limits, env, cwd, signal);
  const byPath = new Map(got.files.map((f) => [f.path, f]));
  const skills = packageSkillFolders(
    readPackageJson(byPath.get("package.json")),
    new Set(byPath.keys()),
  );
  if (skills.folders.length === 0) {
    throw new SkillError("not_found", `No skills found in ${source.url}`, {
      hint: [
        "A package declares its skills in package.json (agents.skills, agentskills) or ships skills/<name>/SKILL.md",
        ...skills.notes,
      ].join("; "),
    });
  }
  Deno.mkdirSync(root, { recursive: true });
  // Sync calls, with a turn of the event loop now and then (runtime/os/fs.ts, fileTurns).
  const turn = fileTurns();
  for (const file of got.files) {
    if (!skills.folders.some((f) => f.path === "" || file.path.startsWith(`${f.path}/`))) continue;
    await turn();
    const parts = file.path.split("/");
    Deno.mkdirSync(join(root, ...parts.slice(0, -1)), { recursive: true });
    Deno.writeFileSync(join(root, ...parts), file.bytes, {
      createNew: true,
      mode: file.executable ? 0o755 : 0o644,
    });
  }
  return { revision: got.revision, skills };
}

function readPackageJson(file: ArchiveFile | undefined): unknown {
  if (file === undefined) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(file.bytes));
  } catch {
    return undefined;
  }
}
