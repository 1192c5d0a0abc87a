/**
 * Where a skill went when the new version of its repository has no SKILL.md at the folder
 * recorded for it. Repositories reorganise (`.codex/skills/gh-cli` → `plugins/gh-cli/skills/
 * gh-cli`, `document-skills/pdf` → `pdf`, `torch_geometric` → `torch-geometric`, all seen in
 * public skill repositories), and an update that only said "no SKILL.md" left the user on the
 * old version for good. The skill is the one folder of the new version, found as `skills
 * add` finds skills, whose SKILL.md declares the name the version in use declares. It comes
 * from the same repository and ref as before — whoever could move it could as well have
 * changed the old folder — and it is validated, audited, shown and confirmed like any new
 * version, its new folder recorded. No folder of that name: the skill was removed upstream.
 * Several: nothing is chosen for the user.
 */

import { SkillError } from "../../core/errors.ts";
import { MANIFEST_FILES } from "../../core/manifest/limits.ts";
import { parseSkillMd } from "../../core/manifest/manifest.ts";
import { discoverSkills } from "../catalog/discover.ts";
import { lstatOrNull, readPrefixSync } from "../os/fs.ts";
import { join } from "../os/paths.ts";

/** Folders of the same name an ambiguity error names; the rest are counted. */
const MATCHES_NAMED = 5;
/** A name is in the front matter at the top: no more of a SKILL.md is read. */
const NAME_BYTES = 64 * 1024;

/** The `name` a folder's SKILL.md declares, when it has a readable one. */
export async function declaredName(dir: string): Promise<string | undefined> {
  for (const file of MANIFEST_FILES) {
    const path = join(dir, file);
    const info = await lstatOrNull(path);
    if (info === null || !info.isFile) continue;
    const { bytes, complete } = readPrefixSync(path, NAME_BYTES);
    return (await parseSkillMd(bytes, file, {}, complete)).declaredName;
  }
  return undefined;
}

/**
 * The folder (relative to `root`, `/`-separated) of the one skill in the tree at `root`
 * declaring `name`; undefined when none does. Several: refused, naming them.
 */
export async function movedFolder(
  root: string,
  name: string,
  context: { skill: string; was: string },
): Promise<string | undefined> {
  const matches: string[] = [];
  for (const found of await discoverSkills(root)) {
    if (found.linkedManifest !== undefined) continue;
    if (await declaredName(found.dir) === name) matches.push(found.rel);
  }
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
