/**
 * skill:// resources: URI parsing, listing, and reading with read_skill_file's containment
 * rules, whole (SEP-2640 digests are checked against what a read returns).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSkillDir } from "../../src/runtime/catalog/loader.ts";
import {
  listSkillResources,
  mimeTypeOf,
  parseSkillUri,
  readSkillResource,
  skillUri,
} from "../../src/mcp/resources.ts";
import { tempDir } from "../helpers/cli.ts";

const uriCases: [string, { skill: string; path: string } | string][] = [
  ["skill://kalshi-markets/SKILL.md", { skill: "kalshi-markets", path: "SKILL.md" }],
  ["skill://demo/references/a%20b.md", { skill: "demo", path: "references/a b.md" }],
  ["skill://demo/references/x.md?v=1#top", { skill: "demo", path: "references/x.md" }],
  ["skill://demo/../../x", { skill: "demo", path: "../../x" }], // refused later by readSkillFile
  ["skill://demo/a%2Fb", "encodes '/'"],
  ["skill://demo/%E0%A4%A", "percent-encoding"],
  ["skill://demo/", "names no file"],
  ["skill://demo", "names no file"],
  ["skill:///SKILL.md", "names no file"],
  ["https://example.com/SKILL.md", "Unsupported resource URI"],
];

for (const [uri, expected] of uriCases) {
  Deno.test(`parseSkillUri() handles ${uri}`, () => {
    const parsed = parseSkillUri(uri);
    if (typeof expected === "string") {
      assert.ok("success" in parsed && !parsed.success);
      assert.equal(parsed.error, "invalid_path");
      assert.ok(parsed.message.includes(expected), parsed.message);
    } else assert.deepEqual(parsed, expected);
  });
}

Deno.test("skillUri() percent-encodes each segment and mimeTypeOf() guesses by extension", () => {
  assert.equal(skillUri("demo", "references/a b#1.md"), "skill://demo/references/a%20b%231.md");
  assert.deepEqual(parseSkillUri(skillUri("demo", "references/a b#1.md")), {
    skill: "demo",
    path: "references/a b#1.md",
  });
  assert.equal(mimeTypeOf("references/guide.md"), "text/markdown");
  assert.equal(mimeTypeOf("assets/logo.PNG"), "image/png");
  assert.equal(mimeTypeOf("assets/LICENSE"), "text/plain");
});

async function fixtureSkill(root: string) {
  const dir = join(root, "demo");
  await Deno.mkdir(join(dir, "references"), { recursive: true });
  await Deno.mkdir(join(dir, "assets"));
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    "---\nname: demo\ndescription: Demo.\n---\n\nBody\n",
  );
  await Deno.writeTextFile(join(dir, "references", "guide.md"), "# Guide\n");
  await Deno.writeTextFile(join(dir, "references", "big.txt"), "x".repeat(250_000));
  await Deno.writeFile(join(dir, "assets", "logo.png"), new Uint8Array([0x89, 0x50, 0, 1, 2]));
  await Deno.writeTextFile(join(root, "secret.txt"), "top secret");
  await Deno.symlink(join(root, "secret.txt"), join(dir, "references", "leak.md"));
  return await loadSkillDir(dir, root, { origin: "local", trusted: true });
}

Deno.test("listSkillResources() offers SKILL.md, references and assets (symlinks skipped)", async () => {
  await using root = await tempDir();
  const skill = await fixtureSkill(root.path);
  assert.deepEqual(listSkillResources([skill]).map((r) => [r.uri, r.mimeType]), [
    ["skill://demo/SKILL.md", "text/markdown"],
    ["skill://demo/references/big.txt", "text/plain"],
    ["skill://demo/references/guide.md", "text/markdown"],
    ["skill://demo/assets/logo.png", "image/png"],
  ]);
});

Deno.test("listSkillResources() names the SKILL.md resource after the skill (SEP-2640)", async () => {
  await using root = await tempDir();
  const skill = await fixtureSkill(root.path);
  const [manifest, ...files] = listSkillResources([skill]);
  assert.equal(manifest!.uri, "skill://demo/SKILL.md");
  assert.equal(manifest!.name, "demo");
  assert.deepEqual(files.map((r) => r.name), [
    "demo/references/big.txt",
    "demo/references/guide.md",
    "demo/assets/logo.png",
  ]);
});

// Before SEP-2640 a read was cut at 200 KB and refused binary files, like the model-facing
// read_skill_file; a host checking a digest needs the whole file, so reads are whole now.
Deno.test("readSkillResource() applies read_skill_file's containment rules and reads whole files", async () => {
  await using root = await tempDir();
  const skill = await fixtureSkill(root.path);
  const read = (uri: string) => readSkillResource([skill], uri);

  const guide = await read("skill://Demo/references/guide.md");
  assert.ok(guide.ok);
  assert.deepEqual(guide.contents, {
    uri: "skill://Demo/references/guide.md",
    mimeType: "text/markdown",
    text: "# Guide\n",
  });

  const big = await read("skill://demo/references/big.txt");
  assert.ok(big.ok && "text" in big.contents);
  assert.equal(big.contents.text.length, 250_000);
  const logo = await read("skill://demo/assets/logo.png");
  assert.ok(logo.ok);
  assert.deepEqual(logo.contents, {
    uri: "skill://demo/assets/logo.png",
    mimeType: "image/png",
    blob: btoa(String.fromCharCode(0x89, 0x50, 0, 1, 2)),
  });

  const failures: [string, string][] = [
    ["skill://demo/references/leak.md", "permission_denied"],
    ["skill://demo/../secret.txt", "invalid_path"],
    ["skill://demo/%2e%2e/secret.txt", "invalid_path"],
    ["skill://demo/.hidden", "invalid_path"],
    ["skill://demo/references", "invalid_path"],
    ["skill://demo/nope.md", "not_found"],
    ["skill://other/SKILL.md", "not_found"],
    ["skill://..%2F/SKILL.md", "invalid_name"],
  ];
  for (const [uri, code] of failures) {
    const result = await read(uri);
    assert.ok(!result.ok, uri);
    assert.equal(result.error.success ? "" : result.error.error, code, uri);
  }
});

Deno.test("every shipped file is a resource at any depth, with its media type (docx's schema tree, a font)", async () => {
  await using root = await tempDir();
  const dir = join(root.path, "deep");
  const files: Record<string, string | Uint8Array> = {
    "SKILL.md": "---\nname: deep\ndescription: Deep files.\n---\n\nBody\n",
    "scripts/office/unpack.py": "print('x')\n",
    "scripts/office/schemas/ecma/fouth-edition/opc-digSig.xsd": "<xsd:schema/>\n",
    "references/a/b/c/d/e/notes.md": "# Deep\n",
    "assets/fonts/sub/Inter.ttf": new Uint8Array([0, 1, 0, 0, 0, 0x10, 0x80]),
    "templates/x/y/z/w/letter.docx": new Uint8Array([0x50, 0x4b, 3, 4, 0]),
    "LICENSE": "MIT\n",
    "data/blob": new Uint8Array([0xff, 0, 0xfe]),
  };
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(join(dir, path), content);
    else await Deno.writeFile(join(dir, path), content);
  }
  const skill = await loadSkillDir(dir, root.path, { origin: "local", trusted: true });
  const listed = new Map(listSkillResources([skill]).map((r) => [r.uri, r.mimeType]));
  for (const path of Object.keys(files)) {
    assert.ok(listed.has(skillUri("deep", path)), `${path} is listed`);
  }
  assert.equal(listed.size, Object.keys(files).length);
  const type = (path: string) => listed.get(skillUri("deep", path));
  assert.equal(type("assets/fonts/sub/Inter.ttf"), "font/ttf");
  assert.equal(type("scripts/office/schemas/ecma/fouth-edition/opc-digSig.xsd"), "application/xml");
  assert.match(type("templates/x/y/z/w/letter.docx")!, /wordprocessingml\.document$/);
  assert.equal(type("LICENSE"), "text/plain");
  assert.equal(type("data/blob"), "application/octet-stream");
  // What activate_skill's <skill_resources> names: the same deep files.
  assert.ok(skill.references.includes("references/a/b/c/d/e/notes.md"));
  assert.ok(skill.files.includes("templates/x/y/z/w/letter.docx"));
  const read = await readSkillResource([skill], skillUri("deep", "data/blob"));
  assert.ok(read.ok && "blob" in read.contents);
  assert.equal(read.ok && read.contents.mimeType, "application/octet-stream");
});
