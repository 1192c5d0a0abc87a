/**
 * `skills publish --well-known DIR SKILL…`: skills written as a static site's well-known index,
 * `DIR/.well-known/agent-skills/index.json` (the agentskills discovery schema 0.2.0) and the
 * files it names — a skill that is only its SKILL.md as that file (`skill-md`), any other as
 * one deterministic tar+gzip with its files at the root (`archive`, the OCI layer's packing:
 * same files, same digest) — each with the `sha256:` digest clients check. Any static web
 * server then serves it to `skills add https://site` and to vercel-labs' CLI alike. Entries an
 * existing index lists for other skills are kept; the index is written last, so a reader never
 * sees an entry whose file is not there yet.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import { isPlainObject } from "../../core/manifest/validation.ts";
import { DISCOVERY_SCHEMA, isIndexName } from "../../core/sources/web_source.ts";
import { discoverSkills } from "../catalog/discover.ts";
import { inspectSkillDir } from "../catalog/loader.ts";
import { packLayer, readSkillFolder } from "../oci/pack.ts";
import { writeFileAtomic } from "../os/fs.ts";

/** One skill as the index lists it. */
interface PublishedWebSkill {
  name: string;
  description: string;
  type: "skill-md" | "archive";
  /** Relative to the index. */
  url: string;
  digest: string;
}

interface Prepared extends PublishedWebSkill {
  bytes: Uint8Array;
}

/** Reads, checks and packs every skill under `sources` (a skill folder or a folder of skills). */
async function prepare(sources: readonly string[]): Promise<Prepared[]> {
  const out: Prepared[] = [];
  for (const source of sources) {
    const found = await discoverSkills(source);
    if (found.length === 0) throw new SkillError("not_found", `No skills found in ${source}`);
    for (const skill of found) out.push(await prepareOne(skill.dir));
  }
  const names = out.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) {
    throw new SkillError("conflict", `Cannot publish: two skills are named '${twice}'`);
  }
  return out;
}

async function prepareOne(dir: string): Promise<Prepared> {
  const inspected = await inspectSkillDir(dir);
  const errors = inspected.diagnostics.filter((d) => d.level === "error");
  const manifest = inspected.manifest;
  if (manifest === undefined || errors.length > 0) {
    throw new SkillError(
      "invalid_manifest",
      `Cannot publish ${dir}: ${errors.map((e) => e.message).join("; ") || "no valid SKILL.md"}`,
    );
  }
  const name = manifest.name;
  if (!isIndexName(name)) {
    throw new SkillError(
      "invalid_name",
      `Cannot publish ${dir}: the name '${name}' is not an index name (lower case letters, digits and single hyphens)`,
    );
  }
  const description = manifest.description.slice(0, 1024);
  let files;
  try {
    files = await readSkillFolder(dir);
  } catch (error) {
    throw new SkillError("invalid_input", (error as Error).message, { cause: error });
  }
  const only = files.length === 1 && files[0]!.path === "SKILL.md";
  const bytes = only ? files[0]!.bytes : (await packLayer(files)).layer;
  return {
    name,
    description,
    type: only ? "skill-md" : "archive",
    url: only ? `${name}/SKILL.md` : `${name}.tar.gz`,
    digest: `sha256:${await sha256Hex(bytes)}`,
    bytes,
  };
}

/** The entries an index already in `dir` lists for skills not published now. */
async function keptEntries(indexPath: string, published: ReadonlySet<string>): Promise<unknown[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(indexPath);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new SkillError("parse_error", `Cannot publish: ${indexPath} is not JSON`, {
      hint: "Move it aside, or fix it, then publish again",
    });
  }
  if (!isPlainObject(data) || !Array.isArray(data.skills)) return [];
  return data.skills.filter((e: unknown) =>
    isPlainObject(e) && typeof e.name === "string" && !published.has(e.name)
  );
}

/** Writes the skills and the index under `siteDir`; returns the index's path and its new entries. */
export async function publishWellKnown(
  siteDir: string,
  sources: readonly string[],
): Promise<{ index: string; skills: PublishedWebSkill[] }> {
  const prepared = await prepare(sources);
  const folder = join(siteDir, ".well-known", "agent-skills");
  const indexPath = join(folder, "index.json");
  const kept = await keptEntries(indexPath, new Set(prepared.map((s) => s.name)));
  for (const skill of prepared) {
    const path = join(folder, ...skill.url.split("/"));
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await writeFileAtomic(path, skill.bytes);
  }
  const skills = prepared.map(({ bytes: _bytes, ...entry }) => entry);
  const entries = [...kept, ...skills].sort((a, b) => {
    const [x, y] = [(a as { name: string }).name, (b as { name: string }).name];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const index = JSON.stringify({ $schema: DISCOVERY_SCHEMA, skills: entries }, null, 2) + "\n";
  await writeFileAtomic(indexPath, new TextEncoder().encode(index));
  return { index: indexPath, skills };
}
