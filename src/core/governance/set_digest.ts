/**
 * One digest for a whole set of skills — what a project's lockfile pins, or what is installed —
 * so that a CI job or a pod can refuse to start when its skills are not the attested ones. The
 * canonical form is a version line, then one line per skill sorted by name: its canonical name
 * and its digest (core/records/digest.ts: every file's path and sha256). It changes when any
 * file of any skill changes, when a skill is added, removed or renamed, and not otherwise (a
 * new source URL or commit with the same files is the same set).
 */

import { combineDigest, sha256Hex } from "../records/digest.ts";

const SET_FORMAT = "agent-skills-set/v1";

/** A skill of a set: its canonical name and every file's sha256 by relative path. */
export interface SetMember {
  name: string;
  files: Readonly<Record<string, string>>;
}

/** Each member's own digest, sorted by name: the lines the set digest is taken over. */
export async function memberDigests(
  members: readonly SetMember[],
): Promise<{ name: string; digest: string }[]> {
  const out = [];
  for (const member of members) {
    const files = Object.entries(member.files).map(([path, sha256]) => ({ path, sha256 }));
    out.push({ name: member.name, digest: await combineDigest(files) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The canonical text of a set (see the header); what the set digest is the sha256 of. */
function canonicalSet(digests: readonly { name: string; digest: string }[]): string {
  const sorted = [...digests].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return `${SET_FORMAT}\n${sorted.map((d) => `${d.name} ${d.digest}\n`).join("")}`;
}

/** `sha256:<hex>` of the set's canonical text. */
export async function setDigest(members: readonly SetMember[]): Promise<string> {
  return `sha256:${await sha256Hex(canonicalSet(await memberDigests(members)))}`;
}
