/**
 * Whatever the listing cache returns equals what a cold read returns, under random edits
 * to an installed skill: files added, removed and renamed at any depth (references/,
 * assets/, scripts/, new folders), SKILL.md rewritten. Each edit touches only what a real
 * edit touches (the file and the folders whose entries changed), dated in the past so the
 * cache is allowed to keep it.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { tempDir } from "../../helpers/cli.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

/** A small deterministic PRNG (mulberry32), so a failure can be replayed by its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function filesUnder(root: string, rel = ""): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(rel === "" ? root : join(root, rel))) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory) out.push(...filesUnder(root, path));
    else if (path !== "SKILL.md") out.push(path);
  }
  return out;
}

/** What a listing shows of every skill (the fields the cache stores). */
async function listing(home: string) {
  const catalog = await loadCatalog(home);
  return catalog.skills.map((s) => ({
    canonical: s.canonical,
    description: s.manifest.description,
    scripts: s.scripts.map((x) => x.file),
    references: s.references,
    assets: s.assets,
    files: s.files,
    warnings: s.warnings.map((w) => w.message),
  }));
}

Deno.test("the listing cache returns exactly what a cold read returns, under random edits", {
  ignore: SKIP_SLOW,
}, async () => {
  for (const seed of [1, 2, 3]) {
    const next = random(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    await using source = await tempDir();
    await using home = await tempDir();
    const dir = join(source.path, "editable");
    await Deno.mkdir(join(dir, "scripts"), { recursive: true });
    await Deno.mkdir(join(dir, "references"));
    await Deno.writeTextFile(
      join(dir, "SKILL.md"),
      "---\nname: editable\ndescription: v0\n---\n\nBody.\n",
    );
    await Deno.writeTextFile(join(dir, "scripts", "run.py"), "print('ok')\n");
    await Deno.writeTextFile(join(dir, "references", "a.md"), "# A\n");
    const skill = await installFixtureSkill(home.path, dir);
    const old = (offset: number) => new Date(Date.now() - 3600_000 + offset * 1000);
    const date = async (paths: string[], offset: number) => {
      for (const path of paths) await Deno.utime(join(skill, path), old(offset), old(offset));
    };
    await date(["", "SKILL.md", "scripts", "scripts/run.py", "references", "references/a.md"], 0);
    await listing(home.path); // fills the cache

    for (let step = 1; step <= 40; step++) {
      const files = filesUnder(skill);
      const folder = pick([
        "references",
        "assets",
        "scripts",
        "references/deep",
        "extra/nested",
        ".",
      ]);
      const touched: string[] = [];
      const ensureFolder = async (rel: string) => {
        const parts = rel.split("/");
        for (let i = 1; i <= parts.length; i++) {
          const sub = parts.slice(0, i).join("/");
          const exists = await Deno.lstat(join(skill, sub)).catch(() => null);
          if (!exists) {
            await Deno.mkdir(join(skill, sub));
            touched.push(sub, dirname(sub) === "." ? "" : dirname(sub));
          }
        }
      };
      const op = pick(["add", "add", "remove", "rename", "describe"]);
      if (op === "add" || files.length === 0) {
        if (folder !== ".") await ensureFolder(folder);
        const name = folder === "."
          ? `top${step}.md`
          : `${folder}/f${step}.${folder === "scripts" ? "py" : "md"}`;
        await Deno.writeTextFile(join(skill, name), `step ${step}\n`);
        touched.push(name, folder === "." ? "" : folder);
      } else if (op === "remove") {
        const victim = pick(files);
        await Deno.remove(join(skill, victim));
        touched.push(dirname(victim) === "." ? "" : dirname(victim));
      } else if (op === "rename") {
        const victim = pick(files);
        const renamed = `${dirname(victim) === "." ? "" : `${dirname(victim)}/`}r${step}-${
          victim.split("/").pop()
        }`;
        await Deno.rename(join(skill, victim), join(skill, renamed));
        touched.push(renamed, dirname(victim) === "." ? "" : dirname(victim));
      } else {
        await Deno.writeTextFile(
          join(skill, "SKILL.md"),
          `---\nname: editable\ndescription: v${step}\n---\n\nBody ${step}.\n`,
        );
        touched.push("SKILL.md");
      }
      await date([...new Set(touched)], step);

      const cached = await listing(home.path);
      await Deno.remove(join(home.path, ".cache", "catalog.json")).catch(() => {});
      const cold = await listing(home.path); // also fills the cache again
      assert.deepEqual(cached, cold, `seed ${seed}, step ${step}: ${op} ${touched.join(", ")}`);
    }
  }
});
