/** End-to-end: list, info, validate, check through the real CLI (source or bundle). */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runCli, tempDir } from "../../helpers/cli.ts";
import { localEntry } from "../../helpers/install_fixture.ts";

const MANIFESTS = join(REPO_ROOT, "tests", "fixtures", "manifests");

interface ListedSkill {
  name: string;
  source: string;
  active: boolean;
  trusted: boolean;
  scripts: number;
  toolsets: number;
}

async function listJson(home: string, agentSkills?: string) {
  const env: Record<string, string> = { SKILLS_HOME: home };
  if (agentSkills !== undefined) env.AGENT_SKILLS = agentSkills;
  await using cwd = await tempDir();
  const result = await runCli(["list", "--json"], { env, cwd: cwd.path });
  assert.equal(result.code, 0, result.stderr);
  const doc = JSON.parse(result.stdout) as { skills: ListedSkill[]; warnings: string[] };
  return { doc, stderr: result.stderr };
}

Deno.test("skills list --json shows both bundled skills as core and trusted", async () => {
  await using home = await tempDir();
  const { doc } = await listJson(home.path);
  const byName = Object.fromEntries(doc.skills.map((s) => [s.name, s]));
  for (const name of ["kalshi-markets", "hello-extended"]) {
    assert.equal(byName[name]?.source, "core", name);
    assert.equal(byName[name]?.trusted, true, name);
    assert.equal(byName[name]?.active, false, name);
  }
  assert.equal(byName["kalshi-markets"]?.scripts, 10);
  assert.equal(byName["hello-extended"]?.toolsets, 1);
});

Deno.test("AGENT_SKILLS spellings, none and all decide which skills are active", async () => {
  await using home = await tempDir();
  const active = async (value: string) =>
    (await listJson(home.path, value)).doc.skills.filter((s) => s.active).map((s) => s.name).sort();
  assert.deepEqual(await active("Kalshi-Markets,Hello_Extended"), [
    "hello-extended",
    "kalshi-markets",
  ]);
  assert.deepEqual(await active("none"), []);
  assert.deepEqual(await active("all"), ["hello-extended", "kalshi-markets"]);
});

Deno.test("unknown names in AGENT_SKILLS are reported as warnings", async () => {
  await using home = await tempDir();
  const { doc } = await listJson(home.path, "kalshi-markets,does-not-exist");
  assert.match(doc.warnings.join("\n"), /Unknown skill\(s\) in AGENT_SKILLS: does-not-exist/);
});

Deno.test("skills list prints a table in human mode", async () => {
  await using home = await tempDir();
  const result = await runCli(["list"], {
    env: { SKILLS_HOME: home.path, AGENT_SKILLS: "kalshi-markets" },
  });
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^NAME\s+VERSION\s+SOURCE\s+ACTIVE/);
  assert.match(result.stdout, /kalshi-markets\s+1\.0\.0\s+core\s+yes\s+yes/);
});

Deno.test("skills info lists the ten kalshi scripts with paths and agent tool names", async () => {
  await using home = await tempDir();
  const result = await runCli(["info", "KALSHI_markets", "--json"], {
    env: { SKILLS_HOME: home.path },
  });
  assert.equal(result.code, 0, result.stderr);
  const info = JSON.parse(result.stdout);
  assert.equal(info.name, "kalshi-markets");
  assert.equal(info.scripts.length, 10);
  assert.ok(info.scripts.every((s: { path: string }) => s.path.startsWith(home.path)));
  assert.deepEqual(info.permissions.env, ["KALSHI_*"]);
  assert.ok(info.tools.includes("script_run"));
  const hello = JSON.parse(
    (await runCli(["info", "hello-extended", "--json"], { env: { SKILLS_HOME: home.path } }))
      .stdout,
  );
  assert.deepEqual(hello.toolsets, ["toolsets.hello:HelloExtended"]);
  assert.deepEqual(hello.tools.filter((t: string) => t.startsWith("hello_extended__")), [
    "hello_extended__greet_in_language",
    "hello_extended__greet_multiple",
  ]);
});

Deno.test("skills info rejects hostile names with exit 2 and an unknown one with exit 1", async () => {
  await using home = await tempDir();
  for (
    const name of [
      "../../../etc/passwd",
      "/abs",
      ".hidden",
      "~",
      "__pycache__",
      "a b",
      "x".repeat(65),
    ]
  ) {
    const result = await runCli(["info", name, "--json"], { env: { SKILLS_HOME: home.path } });
    assert.equal(result.code, 2, `${name}: ${result.stderr}`);
    assert.equal(JSON.parse(result.stdout).error, "invalid_name");
  }
  const missing = await runCli(["info", "nope"], { env: { SKILLS_HOME: home.path } });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Skill 'nope' not loaded or installed/);
  assert.match(missing.stderr, /hint: Run `skills list`/);
});

Deno.test("skills validate passes third-party public-layout skills in strict mode", async () => {
  const result = await runCli(["validate", "--strict", "--json", join(MANIFESTS, "thirdparty")]);
  assert.equal(result.code, 0, result.stdout);
  const doc = JSON.parse(result.stdout);
  assert.equal(doc.valid, true);
  assert.deepEqual(doc.results.map((r: { name: string }) => r.name).sort(), [
    "api-docs-writer",
    "brand-guidelines",
    "pdf-tools",
  ]);
});

Deno.test("skills validate rejects every broken manifest, naming file and line", async () => {
  const result = await runCli([
    "validate",
    join(MANIFESTS, "broken"),
    join(MANIFESTS, "broken", "no-skill-md"),
  ]);
  assert.equal(result.code, 1);
  const lines = result.stdout.split("\n");
  assert.ok(
    lines.some((l) => /broken\/bad-yaml\/SKILL\.md:4: error: invalid YAML/.test(l)),
    result.stdout,
  );
  assert.ok(
    lines.some((l) => /no-skill-md\/SKILL\.md: error: SKILL\.md not found/.test(l)),
    result.stdout,
  );
  const failures = lines.filter((l) => l.startsWith("✗")).length;
  assert.equal(failures, 18); // long-description, non-semver-version and colon-in-description load (with warnings) now
});

Deno.test("skills validate of the bundled skills passes in default mode", async () => {
  const result = await runCli(["validate", join(REPO_ROOT, "skills", "core")]);
  assert.equal(result.code, 0, result.stdout);
  assert.match(result.stdout, /✓ kalshi-markets .* 10 scripts, 0 toolsets/);
  assert.match(result.stdout, /✓ hello-extended .* 1 script, 1 toolset$/m);
});

Deno.test("skills check prints the doctor report with the activation hint and tools", async () => {
  await using home = await tempDir();
  const result = await runCli(["check"], { env: { SKILLS_HOME: home.path } });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /○ kalshi-markets \(inactive\) - 10 scripts, 0 toolsets \[core\]/);
  assert.match(result.stdout, /To enable: export AGENT_SKILLS=/);
  assert.match(result.stdout, /✓ python3 \d+\.\d+/);
  assert.match(result.stdout, /✓ git \d+\.\d+/);
  const active = await runCli(["check", "--json"], {
    env: { SKILLS_HOME: home.path, AGENT_SKILLS: "kalshi-markets" },
  });
  const doc = JSON.parse(active.stdout);
  assert.deepEqual(doc.active, ["kalshi-markets"]);
  assert.equal(doc.healthy, true);
});

Deno.test("skills check flags a broken installed skill and exits 1", async () => {
  await using home = await tempDir();
  await Deno.mkdir(join(home.path, "broken"));
  await Deno.writeTextFile(join(home.path, "broken", "SKILL.md"), "---\nname: broken\n---\n");
  await Deno.writeTextFile(
    join(home.path, "registry.json"),
    JSON.stringify({
      version: 1,
      skills: [
        localEntry("broken", join(home.path, "broken"), {
          source: { type: "local", url: "/x", subpath: "" },
        }),
      ],
    }),
  );
  const result = await runCli(["check"], {
    env: { SKILLS_HOME: home.path, AGENT_SKILLS: "broken" },
  });
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /✗ broken \(active\) - Load failed: Invalid manifest \(missing required field\(s\): description\)/,
  );
});

Deno.test("a corrupt registry makes list fail loudly with the path and a backup", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(join(home.path, "registry.json"), "{ not json");
  const result = await runCli(["list"], { env: { SKILLS_HOME: home.path } });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /Cannot read registry .*registry\.json: it is not valid JSON/);
  assert.equal(await Deno.readTextFile(join(home.path, "registry.json")), "{ not json");
});

Deno.test("usage errors exit 2 with a hint; --help (every command) and --version work", async () => {
  const unknown = await runCli(["lsit"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown command 'lsit'/);
  const badFlag = await runCli(["list", "--bogus"]);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /hint: Run `skills list --help`/);
  const version = await runCli(["--version"]);
  assert.match(version.stdout, /^skills \d+\.\d+\.\d+\n$/);
  const commands = [
    ...["list", "info", "validate", "check", "scripts", "run", "add", "update", "remove"],
    ...["trust", "untrust", "call", "chat", "context", "prompt", "mcp", "init", "completions"],
  ];
  const top = await runCli(["--help"]);
  for (const command of commands) assert.match(top.stdout, new RegExp(`^  ${command} `, "m"));
  for (const command of commands) {
    const help = await runCli([command, "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, new RegExp(`^Usage: skills ${command}`));
  }
});

Deno.test(".env in the working directory is read and the real environment wins", async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  await Deno.writeTextFile(
    join(cwd.path, ".env"),
    `AGENT_SKILLS=kalshi-markets\nSKILLS_HOME=${home.path}\n`,
  );
  const fromFile = await runCli(["list", "--json"], { cwd: cwd.path });
  const active = JSON.parse(fromFile.stdout).skills.filter((s: ListedSkill) => s.active).map((
    s: ListedSkill,
  ) => s.name);
  assert.deepEqual(active, ["kalshi-markets"]);
  const overridden = await runCli(["list", "--json"], {
    cwd: cwd.path,
    env: { AGENT_SKILLS: "none" },
  });
  assert.deepEqual(JSON.parse(overridden.stdout).skills.filter((s: ListedSkill) => s.active), []);
});

Deno.test("skills validate takes a SKILL.md path, refuses other files, and finds skills like add", async () => {
  await using dir = await tempDir();
  const repo = dir.path;
  const write = async (rel: string, text: string) => {
    await Deno.mkdir(join(repo, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(repo, rel), text);
  };
  const md = (name: string) => `---\nname: ${name}\ndescription: Skill ${name}.\n---\n\nBody.\n`;
  // A repository laid out like the public ones: skills/<name>/, nested, .claude/skills/.
  await write("README.md", "# repo\n");
  await write("skills/alpha/SKILL.md", md("alpha"));
  await write("skills/beta/SKILL.md", md("beta"));
  await write("document-skills/pdf/SKILL.md", md("pdf"));
  await write(".claude/skills/gamma/SKILL.md", md("gamma"));

  const whole = await runCli(["validate", repo]);
  assert.equal(whole.code, 0, whole.stdout);
  for (const name of ["alpha", "beta", "pdf", "gamma"]) {
    assert.match(whole.stdout, new RegExp(`^✓ ${name} \\(`, "m"));
  }
  assert.match(whole.stdout, /^Checked 4 skills: 4 valid, 0 invalid$/m);

  const file = await runCli(["validate", join(repo, "skills/alpha/SKILL.md")]);
  assert.equal(file.code, 0, file.stdout + file.stderr);
  assert.match(file.stdout, /^✓ alpha \(.*skills\/alpha\) - 0 scripts, 0 toolsets$/m);
  assert.match(file.stdout, /^Checked 1 skill: 1 valid, 0 invalid$/m);

  const other = await runCli(["validate", join(repo, "README.md")]);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /it is a file, not a skill directory or a SKILL\.md/);
  assert.doesNotMatch(other.stderr, /Unexpected error|NotADirectory/);

  const missing = await runCli(["validate", join(repo, "nowhere")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /^✗ \S*nowhere - 1 error$/m, "the path is shown once");
});
