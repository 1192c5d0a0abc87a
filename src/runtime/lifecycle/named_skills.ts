/**
 * The skills of a fetched source by the names their SKILL.md files declare: what finds a skill
 * whose folder is not where a record says. `update` follows a skill its repository moved
 * (`.codex/skills/gh-cli` → `plugins/gh-cli/skills/gh-cli`, `document-skills/pdf` → `pdf`,
 * `torch_geometric` → `torch-geometric`, all seen in public skill repositories), and `install`
 * finds a peer lockfile's entry that records no `skillPath` (project/foreign.ts). The source is
 * walked as `skills add` walks it, and each manifest's name read once per fetch, however many
 * skills of the command ask.
 *
 * A moved skill is the one folder of the new version whose SKILL.md declares the name the
 * version in use declares. It comes from the same repository and ref as before — whoever could
 * move it could as well have changed the old folder — and it is validated, audited, shown and
 * confirmed like any new version, its new folder recorded. No folder of that name: the skill
 * was removed upstream. Several: nothing is chosen for the user.
 */

import { SkillError } from "../../core/errors.ts";
import { MANIFEST_FILES } from "../../core/manifest/limits.ts";
import { parseSkillMd } from "../../core/manifest/manifest.ts";
import { discoverSkills } from "../catalog/discover.ts";
import { lstatOrNull, readPrefixSync } from "../os/fs.ts";
import { join } from "../os/paths.ts";
import type { Fetched } from "./fetch_source.ts";

/** Folders of the same name an ambiguity error names; the rest are counted. */
const MATCHES_NAMED = 5;
/** A name is in the front matter at the top: no more of a SKILL.md is read. */
const NAME_BYTES = 64 * 1024;

/** A skill found in a fetch, and the name its SKILL.md declares (none when unreadable). */
interface NamedSkill {
  dir: string;
  /** Its folder relative to the fetch's root, `/`-separated ("" for the root). */
  rel: string;
  name: string | undefined;
}

/**
 * The `name` a folder's SKILL.md declares (as the manifest reads it, else as written), when it
 * has a readable one; a manifest that is a symbolic link names nothing (validation refuses it).
 */
export async function declaredName(dir: string): Promise<string | undefined> {
  for (const file of MANIFEST_FILES) {
    const path = join(dir, file);
    const info = await lstatOrNull(path);
    if (info === null || !info.isFile) continue;
    const { bytes, complete } = readPrefixSync(path, NAME_BYTES);
    const parsed = await parseSkillMd(bytes, file, {}, complete);
    return parsed.manifest?.name ?? parsed.declaredName;
  }
  return undefined;
}

const byFetch = new WeakMap<Pick<Fetched, "root">, Promise<NamedSkill[]>>();

/** The skills `skills add` would find in the fetch, each with its declared name: read once. */
export function namedSkills(fetched: Pick<Fetched, "root">): Promise<NamedSkill[]> {
  let named = byFetch.get(fetched);
  if (named === undefined) {
    named = (async () => {
      const out: NamedSkill[] = [];
      for (const { dir, rel } of await discoverSkills(fetched.root)) {
        out.push({ dir, rel, name: await declaredName(dir) });
      }
      return out;
    })();
    byFetch.set(fetched, named);
  }
  return named;
}

/**
 * The folder (relative to the fetch's root) of the one skill in it declaring `name`; undefined
 * when none does. Several: refused, naming them.
 */
export async function movedFolder(
  fetched: Pick<Fetched, "root">,
  name: string,
  context: { skill: string; was: string },
): Promise<string | undefined> {
  const matches = (await namedSkills(fetched)).filter((s) => s.name === name).map((s) => s.rel);
  if (matches.length <= 1) return matches[0];
  // A repository may hold thousands of that name: a few are named, the rest counted.
  const named = matches.slice(0, MATCHES_NAMED).map((m) => `'${m || "."}'`).join(", ");
  const more = matches.length > MATCHES_NAMED ? `, and ${matches.length - MATCHES_NAMED} more` : "";
  throw new SkillError(
    "conflict",
    `Cannot update skill '${context.skill}': its folder '${context.was}' is gone from the new version, which has ${matches.length} skills named '${name}' (${named}${more})`,
    { hint: "Remove it and add the one you want (`skills add <source> --list` shows them)" },
  );
}
