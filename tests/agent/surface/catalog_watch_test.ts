/**
 * A tool surface following its catalog (what `skills chat` and the library do between
 * steps): skills installed, changed or removed by another command are taken at the next
 * look, and an activated skill that was removed or changed is deactivated instead of being
 * served from what it was.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CatalogWatch } from "../../../src/agent/surface/catalog_watch.ts";
import { createToolSurface } from "../../../src/agent/surface/tools.ts";
import { loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { registryPath } from "../../../src/runtime/store/registry.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installSkill, skillMd } from "../../helpers/installed_skills.ts";

/** The trusted skills, as `AGENT_SKILLS=all` activates them. */
async function loadAll(home: string) {
  const catalog = await loadCatalog(home);
  return {
    catalog,
    active: new Set(catalog.skills.filter((s) => s.trusted).map((s) => s.canonical)),
  };
}

function activateEnum(tools: { name: string; inputSchema: Record<string, unknown> }[]): string[] {
  const schema = tools.find((t) => t.name === "activate_skill")?.inputSchema as {
    properties: { name: { enum: string[] } };
  };
  return schema.properties.name.enum;
}

Deno.test("a watched surface takes skills added, untrusted and removed meanwhile", async () => {
  await using dir = await tempDir("skills-watch-");
  const home = dir.path;
  await installSkill(home, "first", { "SKILL.md": skillMd("first", [], "# First\n\nFIRST-BODY") });
  const initial = await loadAll(home);
  let loads = 0;
  const watch = new CatalogWatch({
    home,
    initial,
    load: () => (loads++, loadAll(home)),
  });
  const surface = await createToolSurface({
    home,
    catalog: initial.catalog,
    active: initial.active,
    env: {},
    catalogWatch: watch,
  });
  const heard = { tools: 0, skills: 0 };
  surface.onToolsChanged(() => heard.tools++);
  surface.onSkillsChanged(() => heard.skills++);
  try {
    assert.ok(activateEnum(surface.listTools()).includes("first"));
    await surface.refresh();
    assert.equal(heard.tools + heard.skills, 0, "a first look with nothing changed is silent");
    const loadsBefore = loads;
    await surface.refresh();
    assert.equal(loads, loadsBefore, "nothing changed: the catalog is not loaded again");

    // Added by another command: seen by the next look.
    await installSkill(home, "second", { "SKILL.md": skillMd("second", [], "# Second") });
    await surface.refresh();
    assert.ok(activateEnum(surface.listTools()).includes("second"));
    assert.match(surface.systemPrompt, /<name>second<\/name>/);
    assert.deepEqual(
      surface.skills().map((s) => s.canonical).sort(),
      ["first", "second"].concat(
        initial.catalog.skills.map((s) => s.canonical).filter((n) => n !== "first"),
      ).sort(),
    );
    assert.equal(heard.tools, 1);
    assert.equal(heard.skills, 1);

    const first = await surface.callTool("activate_skill", { name: "first" });
    assert.match(String(first.success && first.result), /FIRST-BODY/);

    // Untrusted meanwhile (the registry entry changes): no longer active, not served.
    const registry = JSON.parse(await Deno.readTextFile(registryPath(home)));
    for (const entry of registry.skills) {
      if (entry.name === "first") Object.assign(entry, { trusted: false, trusted_digest: null });
    }
    await Deno.writeTextFile(registryPath(home), JSON.stringify(registry));
    await surface.refresh();
    assert.ok(!activateEnum(surface.listTools()).includes("first"));
    assert.ok(!surface.activated().has("first"));
    const refused = await surface.callTool("read_skill_file", { skill: "first", path: "SKILL.md" });
    assert.equal(refused.success ? "" : refused.error, "not_found");

    // Removed meanwhile: gone from the tools and the prompt.
    await Deno.remove(join(home, "second"), { recursive: true });
    registry.skills = registry.skills.filter((e: { name: string }) => e.name !== "second");
    await Deno.writeTextFile(registryPath(home), JSON.stringify(registry));
    await surface.refresh();
    assert.ok(!activateEnum(surface.listTools()).includes("second"));
    assert.doesNotMatch(surface.systemPrompt, /<name>second<\/name>/);
  } finally {
    watch.stop();
    await surface.close();
  }
});

Deno.test("an activated skill updated meanwhile is activated afresh: the new instructions, never the old", async () => {
  await using dir = await tempDir("skills-watch-");
  const home = dir.path;
  await installSkill(home, "notes", { "SKILL.md": skillMd("notes", [], "# Notes\n\nVERSION-ONE") });
  const initial = await loadAll(home);
  const watch = new CatalogWatch({ home, initial, load: () => loadAll(home) });
  const surface = await createToolSurface({
    home,
    catalog: initial.catalog,
    active: initial.active,
    env: {},
    catalogWatch: watch,
  });
  try {
    const one = await surface.callTool("activate_skill", { name: "notes" });
    assert.match(String(one.success && one.result), /VERSION-ONE/);
    // `skills update` rewrites the files and the registry entry (a new digest).
    await installSkill(home, "notes", {
      "SKILL.md": skillMd("notes", [], "# Notes\n\nVERSION-TWO"),
    });
    const two = await surface.callTool("activate_skill", { name: "notes" });
    assert.ok(two.success, JSON.stringify(two));
    assert.match(String(two.result), /VERSION-TWO/);
    assert.doesNotMatch(String(two.result), /already active/);
  } finally {
    watch.stop();
    await surface.close();
  }
});
