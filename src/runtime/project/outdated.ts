/**
 * `skills outdated` below the CLI: which locked project skills and installed user skills
 * follow a branch or tag that now points at another commit. One `git ls-remote` per remote
 * (its branches and tags at once, through the change's cache), however many skills it
 * serves; nothing is fetched.
 */

import { ociTagDigest } from "../oci/pull.ts";
import { describeError } from "../../core/errors.ts";
import { parseSource, type Transport } from "../../core/sources.ts";
import { trackedCommit } from "../git/fetch.ts";

/** A skill that follows something: a locked project skill or an installed one. */
export interface Tracked {
  name: string;
  scope: "project" | "user";
  type: "git" | "local" | "oci";
  url: string;
  branch: string | null;
  tag: string | null;
  ref: string | null;
  commit: string | null;
}

interface OutdatedResult {
  name: string;
  scope: "project" | "user";
  url: string;
  /** `branch main`, `tag v1`, … */
  tracking: string;
  current: string | null;
  latest: string | null;
  status: "outdated" | "up_to_date" | "pinned" | "local" | "error";
  error?: string;
}

type RemoteRefs = (url: string, transport: Transport) => Promise<ReadonlyMap<string, string>>;

/** Compares each tracked skill's commit with what its branch or tag points at now. */
export async function checkOutdated(
  tracked: readonly Tracked[],
  remoteRefs: RemoteRefs,
): Promise<OutdatedResult[]> {
  const out: OutdatedResult[] = [];
  for (const t of tracked) {
    const base = { name: t.name, scope: t.scope, url: t.url, current: t.commit, latest: null };
    if (t.type === "local") {
      out.push({ ...base, tracking: "local directory", status: "local" });
      continue;
    }
    const follows = t.tag !== null
      ? { kind: "tag" as const, name: t.tag }
      : t.branch !== null
      ? { kind: "branch" as const, name: t.branch }
      : null;
    if (follows === null) {
      out.push({ ...base, tracking: `pinned to ${t.ref ?? t.commit ?? "?"}`, status: "pinned" });
      continue;
    }
    const tracking = `${follows.kind} ${follows.name}`;
    try {
      if (t.type === "oci") {
        // A tag is the registry's moving pointer; the digest it names now is the "commit".
        const latest = await ociTagDigest(t.url, follows.name);
        out.push({
          ...base,
          tracking,
          latest,
          status: latest === t.commit ? "up_to_date" : "outdated",
        });
        continue;
      }
      const source = parseSource(t.url);
      if (source.type !== "git") throw new Error(`'${t.url}' is not a git source`);
      const latest = trackedCommit(await remoteRefs(source.url, source.transport), follows);
      if (latest === null) {
        out.push({
          ...base,
          tracking,
          status: "error",
          error: `${tracking} no longer exists in ${t.url}`,
        });
        continue;
      }
      out.push({
        ...base,
        tracking,
        latest,
        status: latest === t.commit ? "up_to_date" : "outdated",
      });
    } catch (error) {
      out.push({ ...base, tracking, status: "error", error: describeError(error) });
    }
  }
  return out;
}
