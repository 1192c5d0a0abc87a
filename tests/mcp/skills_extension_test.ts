/**
 * SEP-2640's skills/list and skills/get, in process: each entry's front matter is the
 * YAML as written, its resources list every file served (hidden files and symlinks are not
 * served), and each digest and size equal a fresh sha256 of the file — and of the bytes
 * resources/read returns for it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { ProtocolError } from "../../src/mcp/protocol_error.ts";
import { type LoadedSkill, loadSkillDir } from "../../src/runtime/catalog/loader.ts";
import {
  ORIGINAL_NAME_KEY,
  type SkillEntry,
  skillsExtensionHandler,
} from "../../src/mcp/skills_extension.ts";
import { readSkillResource } from "../../src/mcp/resources.ts";
import { tempDir } from "../helpers/cli.ts";
import { sha256Digest } from "../helpers/bytes.ts";

const SKILL_MD = `---
name: demo
description: A demo skill.
license: MIT
metadata:
  version: "1.0"
  owner: team-a
allowed-tools: Read Grep
---

# Demo
`;

async function writeSkill(root: string, name: string, skillMd: string): Promise<LoadedSkill> {
  const dir = join(root, name);
  await Deno.mkdir(join(dir, "references"), { recursive: true });
  await Deno.mkdir(join(dir, "scripts"));
  await Deno.mkdir(join(dir, "assets"));
  await Deno.mkdir(join(dir, ".git"));
  await Deno.writeTextFile(join(dir, "SKILL.md"), skillMd);
  await Deno.writeTextFile(join(dir, "references", "guide.md"), "# Guide\n");
  await Deno.writeFile(
    join(dir, "references", "bom.txt"),
    new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69, 0x0a]), // a BOM, then "hi\n"
  );
  await Deno.writeTextFile(join(dir, "scripts", "run.py"), "print('run')\n");
  await Deno.writeFile(join(dir, "assets", "logo.png"), new Uint8Array([0x89, 0x50, 0, 1, 2]));
  await Deno.writeTextFile(join(dir, ".env"), "SECRET=1\n");
  await Deno.writeTextFile(join(dir, ".git", "config"), "[core]\n");
  await Deno.writeTextFile(join(root, "outside.txt"), "outside\n");
  await Deno.symlink(join(root, "outside.txt"), join(dir, "references", "leak.md"));
  return await loadSkillDir(dir, root, { origin: "local", trusted: true });
}

/** The bytes a `resources/read` of `uri` returns (text re-encoded, blob decoded). */
async function servedBytes(skills: LoadedSkill[], uri: string): Promise<Uint8Array> {
  const read = await readSkillResource(skills, uri);
  assert.ok(read.ok, uri);
  return "text" in read.contents
    ? new TextEncoder().encode(read.contents.text)
    : Uint8Array.from(atob(read.contents.blob), (c) => c.charCodeAt(0));
}

Deno.test("skills/list returns the front matter verbatim and every served file with its digest", async () => {
  await using root = await tempDir();
  const skill = await writeSkill(root.path, "demo", SKILL_MD);
  const handler = skillsExtensionHandler([skill], () => {});
  const result = await handler({ method: "skills/list", params: {} });
  assert.equal(result.resultType, "complete");
  assert.equal(result.nextCursor, undefined);
  assert.equal(typeof result.ttlMs, "number");
  const [entry] = result.skills as SkillEntry[];
  assert.equal(entry!.uri, "skill://demo/SKILL.md");
  assert.deepEqual(entry!.frontmatter, {
    name: "demo",
    description: "A demo skill.",
    license: "MIT",
    metadata: { version: "1.0", owner: "team-a" },
    "allowed-tools": "Read Grep",
  });
  const files = [
    "SKILL.md",
    "assets/logo.png",
    "references/bom.txt",
    "references/guide.md",
    "scripts/run.py",
  ];
  assert.deepEqual(entry!.resources.map((r) => r.uri), files.map((f) => `skill://demo/${f}`));
  for (const [i, file] of files.entries()) {
    const onDisk = await Deno.readFile(join(skill.dir, file));
    const resource = entry!.resources[i]!;
    assert.equal(resource.digest, await sha256Digest(onDisk), file);
    assert.match(resource.digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(resource.size, onDisk.length, file);
    assert.equal(
      await sha256Digest(await servedBytes([skill], resource.uri)),
      resource.digest,
      file,
    );
  }

  const got = await handler({ method: "skills/get", params: { uri: "skill://demo/SKILL.md" } });
  assert.deepEqual(got.skill, entry);
  assert.equal(got.resultType, "complete");
});

Deno.test("a skill served under another name than its SKILL.md's is listed by that name, the published one in its metadata", async () => {
  await using root = await tempDir();
  // A seed-style name: canonical 'odd-name'; SEP-2640 wants the URI to end in the name.
  const odd = await writeSkill(
    root.path,
    "odd-name",
    "---\nname: Odd_Name\ndescription: Not spec-shaped.\nmetadata:\n  owner: team-a\n---\n\n# Odd\n",
  );
  const logs: string[] = [];
  const handler = skillsExtensionHandler([odd], (m) => logs.push(m));
  const listed = await handler({ method: "skills/list" });
  const entries = listed.skills as SkillEntry[];
  assert.deepEqual(entries.map((s) => s.uri), ["skill://odd-name/SKILL.md"]);
  assert.equal(entries[0]!.frontmatter.name, "odd-name");
  assert.deepEqual(entries[0]!.frontmatter.metadata, {
    owner: "team-a",
    [ORIGINAL_NAME_KEY]: "Odd_Name",
  });
  assert.deepEqual(logs, []);
  const got = await handler({ method: "skills/get", params: { uri: "skill://odd-name/SKILL.md" } });
  assert.deepEqual(got.skill, entries[0]);
});

Deno.test("skills/get and skills/list refuse what they do not serve with invalid params", async () => {
  await using root = await tempDir();
  const demo = await writeSkill(root.path, "demo", SKILL_MD);
  const logs: string[] = [];
  const handler = skillsExtensionHandler([demo], (m) => logs.push(m));

  const refused = async (params: unknown, message: RegExp, method = "skills/get") => {
    await assert.rejects(handler({ method, params }), (error) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.match(error.message, message);
      // One sentence: the client adds its own "MCP error -32602:" in front.
      assert.doesNotMatch(error.message, /MCP error/);
      return true;
    });
  };
  await refused({ uri: "skill://nope/SKILL.md" }, /No skill is served at skill:\/\/nope/);
  await refused({ uri: "skill://demo/references/guide.md" }, /No skill is served/);
  await refused({ uri: "https://demo/SKILL.md" }, /No skill is served/);
  await refused({}, /skills\/get: .*uri/);
  await refused({ cursor: 7 }, /skills\/list/, "skills/list");
  await refused({ cursor: "bm9wZQ==" }, /Invalid cursor/, "skills/list");
  await assert.rejects(
    handler({ method: "prompts/list" }),
    (error) => error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound,
  );
});

Deno.test("skills/list pages with nextCursor; an entry is never split", async () => {
  await using root = await tempDir();
  const skills: LoadedSkill[] = [];
  for (const name of ["alpha", "beta", "gamma"]) {
    skills.push(
      await writeSkill(root.path, name, `---\nname: ${name}\ndescription: ${name}.\n---\n\n# X\n`),
    );
  }
  const handler = skillsExtensionHandler(skills, () => {}, 2);
  const first = await handler({ method: "skills/list", params: {} });
  assert.deepEqual((first.skills as SkillEntry[]).map((s) => s.frontmatter.name), [
    "alpha",
    "beta",
  ]);
  assert.equal(typeof first.nextCursor, "string");
  const second = await handler({ method: "skills/list", params: { cursor: first.nextCursor } });
  assert.deepEqual((second.skills as SkillEntry[]).map((s) => s.frontmatter.name), ["gamma"]);
  assert.equal(second.nextCursor, undefined);
  assert.equal((second.skills as SkillEntry[])[0]!.resources.length, 5);
});
