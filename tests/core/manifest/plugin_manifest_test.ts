import assert from "node:assert/strict";
import {
  marketplacePlugins,
  pluginSkills,
  repositoryPath,
} from "../../../src/core/manifest/plugin_manifest.ts";

Deno.test("repositoryPath() keeps relative paths inside the repository only", () => {
  assert.equal(repositoryPath("./", "./skills/pdf"), "skills/pdf");
  assert.equal(repositoryPath("plugins/p", "skills/a/"), "plugins/p/skills/a");
  assert.equal(repositoryPath("./"), "");
  for (const bad of ["../x", "a/../../b", "/etc", "a\\b", "a\u0000b"]) {
    assert.equal(repositoryPath(bad), undefined, bad);
  }
});

Deno.test("marketplacePlugins() reads local plugins and their skill lists, skipping the rest", () => {
  const document = {
    name: "m",
    plugins: [
      { name: "docs", source: "./", skills: ["./skills/pdf", "./skills/xlsx"] },
      { name: "tools", source: "./plugins/tools" },
      { name: "remote", source: { source: "github", repo: "o/r" } },
      { name: "escape", source: "../outside" },
      { name: "bad-list", source: "./p", skills: ["../../etc", 42, "ok"] },
      "not an object",
    ],
  };
  assert.deepEqual(marketplacePlugins(document), [
    { source: "", skills: ["skills/pdf", "skills/xlsx"] },
    { source: "plugins/tools", skills: undefined },
    { source: "p", skills: ["p/ok"] },
  ]);
  assert.deepEqual(marketplacePlugins({ plugins: "nope" }), []);
  assert.deepEqual(marketplacePlugins(null), []);
  assert.deepEqual(pluginSkills({ skills: "./custom" }, "plugins/x"), ["plugins/x/custom"]);
  // A skill named by its manifest file is its folder.
  assert.deepEqual(
    pluginSkills(
      { skills: ["./skills/a/SKILL.md", "./skills/b/skill.md", "./SKILL.md"] },
      "plugins/x",
    ),
    ["plugins/x/skills/a", "plugins/x/skills/b", "plugins/x"],
  );
  assert.equal(pluginSkills({ name: "x" }, "plugins/x"), undefined);
});

Deno.test("marketplacePlugins() prepends metadata.pluginRoot to relative plugin sources", () => {
  const document = {
    name: "m",
    metadata: { pluginRoot: "./plugins" },
    plugins: [
      { name: "formatter", source: "formatter" },
      { name: "docs", source: "./docs", skills: ["./skills/pdf"] },
    ],
  };
  assert.deepEqual(marketplacePlugins(document), [
    { source: "plugins/formatter", skills: undefined },
    { source: "plugins/docs", skills: ["plugins/docs/skills/pdf"] },
  ]);
  // A source that already starts with the root is also offered as written (`unrooted`), for
  // discovery to use when the doubled path is no folder.
  assert.deepEqual(
    marketplacePlugins({
      metadata: { pluginRoot: "./plugins" },
      plugins: [{ source: "./plugins/docs", skills: ["./skills/pdf"] }],
    }),
    [{
      source: "plugins/plugins/docs",
      skills: ["plugins/plugins/docs/skills/pdf"],
      unrooted: { source: "plugins/docs", skills: ["plugins/docs/skills/pdf"] },
    }],
  );
  // A root that leaves the repository, or is not a string, lists nothing / is ignored.
  assert.deepEqual(
    marketplacePlugins({ metadata: { pluginRoot: "../up" }, plugins: [{ source: "x" }] }),
    [],
  );
  assert.deepEqual(
    marketplacePlugins({ metadata: { pluginRoot: 7 }, plugins: [{ source: "./x" }] }),
    [{ source: "x", skills: undefined }],
  );
});
