/**
 * Hostile manifests: each is rejected quickly with bounded memory and a clear message,
 * and discovery of the other skills continues.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseSkillMd } from "../../../src/core/manifest/manifest.ts";
import { runCli, spawnCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill, localEntry } from "../../helpers/install_fixture.ts";
import { pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { samplePeakRss } from "../../helpers/processes.ts";

const MIB = 1024 * 1024;

/** name → SKILL.md bytes, and the message the loader must give. */
function hostileManifests(): [string, Uint8Array, RegExp][] {
  const enc = (text: string) => new TextEncoder().encode(text);
  const fm = (body: string) => enc(`---\n${body}\n---\n# Body\n`);
  const laughs = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const cur = String.fromCharCode(97 + i);
    laughs.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(", ")}]`);
  }
  const huge = new Uint8Array(50 * MIB + 100);
  huge.set(enc("---\nname: huge\ndescription: fifty megabytes\npad: "));
  huge.fill(0x78, 60);
  return [
    [
      "alias-bomb",
      fm(`name: alias-bomb\ndescription: d\n${laughs.join("\n")}`),
      /aliases are expanded/,
    ],
    ["huge-front-matter", huge, /larger than 64 KiB/],
    [
      "deep-nesting",
      fm(`name: deep\ndescription: d\nx: ${"[".repeat(10_000)}${"]".repeat(10_000)}`),
      /nest|deep/i,
    ],
    [
      "deep-mapping",
      fm(
        `name: deepmap\ndescription: d\n${
          Array.from({ length: 200 }, (_, i) => `${"  ".repeat(i)}k${i}:`).join("\n")
        } v`,
      ),
      /nest|deep|YAML/i,
    ],
    [
      "wrong-types",
      fm(
        "name: [1, 2]\ndescription: {a: b}\ntoolsets: 7\nscripts: {x: 1}\npermissions: true\nlimits: []",
      ),
      /must be/,
    ],
    ["list-not-mapping", fm("- name: x\n- description: y"), /must be a YAML mapping, got a list/],
    [
      "invalid-utf8",
      new Uint8Array([...enc("---\nname: bad\ndescription: "), 0xff, 0xfe, ...enc("\n---\n")]),
      /not valid UTF-8/,
    ],
    [
      "bom",
      new Uint8Array([0xef, 0xbb, 0xbf, ...fm("name: bom\ndescription: d")]),
      /byte order mark/,
    ],
    ["duplicate-keys", fm("name: dup\nname: dup2\ndescription: d"), /duplicated mapping key/],
    ["empty-document", fm(""), /must be a YAML mapping, got nothing \(the front matter is empty\)/],
    ["null-document", fm("~"), /must be a YAML mapping, got null/],
    ["binary-garbage", new Uint8Array(4096).map((_, i) => (i * 37) % 256), /front matter|UTF-8/],
    ["custom-tags", fm("name: !!js/function 'function(){}'\ndescription: d"), /YAML|unknown tag/i],
  ];
}

Deno.test("each hostile manifest is rejected in-process in well under a second", async () => {
  for (const [name, bytes, message] of hostileManifests()) {
    const limit = Math.min(bytes.length, 64 * 1024);
    const started = performance.now();
    const parsed = await parseSkillMd(
      bytes.subarray(0, limit),
      `${name}/SKILL.md`,
      {},
      bytes.length <= 64 * 1024,
    );
    const elapsed = performance.now() - started;
    assert.equal(parsed.manifest, undefined, name);
    const text = parsed.diagnostics.map((d) => d.message).join("\n");
    assert.match(text, message, `${name}: ${text}`);
    assert.ok(elapsed < 1000, `${name} took ${elapsed.toFixed(0)} ms`);
  }
});

Deno.test("discovery continues past hostile installed skills, with bounded memory", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using home = await tempDir();
  const skills = [];
  const cases = hostileManifests();
  for (
    const [name, bytes] of [
      ...cases,
      [
        "good-skill",
        new TextEncoder().encode("---\nname: good-skill\ndescription: fine\n---\n"),
      ] as const,
    ]
  ) {
    const dir = join(home.path, name);
    await Deno.mkdir(dir);
    await Deno.writeFile(join(dir, "SKILL.md"), bytes);
    skills.push(
      localEntry(name, dir, { source: { type: "local", url: `/src/${name}`, subpath: "" } }),
    );
  }
  await Deno.writeTextFile(
    join(home.path, "registry.json"),
    JSON.stringify({ version: 1, skills }),
  );
  const child = spawnCli(["list", "--json"], { env: { SKILLS_HOME: home.path } });
  const [output, { peakKiB }] = await Promise.all([child.output(), samplePeakRss(child)]);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const doc = JSON.parse(new TextDecoder().decode(output.stdout));
  const byName = Object.fromEntries(doc.skills.map((s: { name: string }) => [s.name, s]));
  assert.equal(byName["good-skill"].status, "ok");
  for (const [name, , message] of cases) {
    assert.equal(byName[name]?.status, "error", name);
    assert.match(byName[name].error, message, name);
  }
  assert.ok(peakKiB > 0, "the peak RSS was sampled");
  assert.ok(peakKiB < 200 * 1024, `peak RSS ${Math.round(peakKiB / 1024)} MiB`);
});

Deno.test("scripts whose names collide by case or _/- are reported, and none of them runs", async () => {
  await using root = await tempDir();
  const source = join(root.path, "twins");
  await Deno.mkdir(join(source, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(source, "SKILL.md"), skillMd("twins"));
  const script = (who: string) => pyScript(`print('{"who": "${who}"}')`);
  for (const name of ["Status.py", "status.py", "get_all.py", "get-all.py", "solo.py"]) {
    await Deno.writeTextFile(join(source, "scripts", name), script(name));
  }
  const validate = await runCli(["validate", source]);
  assert.notEqual(validate.code, 0);
  assert.match(validate.stdout, /scripts\/Status\.py, scripts\/status\.py are all called 'status'/);
  assert.match(
    validate.stdout,
    /scripts\/get-all\.py, scripts\/get_all\.py are all called 'get-all'/,
  );

  const home = join(root.path, "home");
  await installFixtureSkill(home, source);
  const env = { SKILLS_HOME: home };
  const list = await runCli(["list"], { env });
  assert.match(list.stderr, /warning: Skill 'twins': script names collide: .*'status'/);
  assert.match(list.stderr, /warning: Skill 'twins': script names collide: .*'get-all'/);
  for (const name of ["status", "get_all"]) {
    const run = await runCli(["run", "twins", name, "--json"], { env });
    assert.equal(JSON.parse(run.stdout).error, "not_found", run.stdout);
  }
  const solo = await runCli(["run", "twins", "solo", "--json"], { env });
  assert.deepEqual(JSON.parse(solo.stdout), { who: "solo.py" });
});
