/**
 * Hostile manifests: each is rejected quickly with bounded memory and a clear message,
 * and discovery of the other skills continues.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseSkillMd } from "../../src/core/manifest.ts";
import { baseEnv, CLI_FLAGS, cliEntry, defaultCwd, tempDir } from "../helpers/cli.ts";

const MIB = 1024 * 1024;

/**
 * Runs a command and samples its peak resident set (VmHWM, which only grows) from /proc
 * until it exits; the last sample is the peak up to a few milliseconds before exit.
 */
async function withPeakRss(
  command: Deno.Command,
): Promise<Deno.CommandOutput & { peakKiB: number }> {
  const child = command.spawn();
  let peakKiB = 0;
  let running = true;
  const sampler = (async () => {
    while (running) {
      try {
        const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
        const kib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
        if (kib > peakKiB) peakKiB = kib;
      } catch { /* exited */ }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const output = await child.output();
  running = false;
  await sampler;
  return Object.assign(output, { peakKiB });
}

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

Deno.test("discovery continues past hostile installed skills, with bounded memory", async () => {
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
    skills.push({
      name,
      name_canonical: name,
      source: { type: "local", url: `/src/${name}`, subpath: "" },
      commit_sha: null,
      branch: null,
      tag: null,
      ref: null,
      installed_path: dir,
      trusted: true,
      trusted_digest: "sha256:x",
      installed_at: "t",
      updated_at: "t",
    });
  }
  await Deno.writeTextFile(
    join(home.path, "registry.json"),
    JSON.stringify({ version: 1, skills }),
  );
  const output = await withPeakRss(
    new Deno.Command(Deno.execPath(), {
      args: ["run", ...CLI_FLAGS, cliEntry(), "list", "--json"],
      env: baseEnv({ SKILLS_HOME: home.path }),
      clearEnv: true,
      cwd: defaultCwd(),
      stdout: "piped",
      stderr: "piped",
    }),
  );
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const doc = JSON.parse(new TextDecoder().decode(output.stdout));
  const byName = Object.fromEntries(doc.skills.map((s: { name: string }) => [s.name, s]));
  assert.equal(byName["good-skill"].status, "ok");
  for (const [name, , message] of cases) {
    assert.equal(byName[name]?.status, "error", name);
    assert.match(byName[name].error, message, name);
  }
  const peakKiB = output.peakKiB;
  assert.ok(peakKiB > 0, "the peak RSS was sampled");
  assert.ok(peakKiB < 200 * 1024, `peak RSS ${Math.round(peakKiB / 1024)} MiB`);
});
