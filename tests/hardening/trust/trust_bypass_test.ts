/**
 * Trust that cannot be walked around: Python bytecode is covered by the digest and never
 * executed from a skill folder, the integrity fast path cannot be fooled by restoring an
 * mtime, a poisoned listing cache does not choose what runs, bundled skills are verified
 * against their build-time digests, and the file executed is the file verified.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { userHome } from "../../helpers/user_home.ts";
import { installFixtureSkill } from "../../helpers/install_fixture.ts";
import { createRepo, pyScript, skillMd } from "../../fixtures/git_repos.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";
// @ts-types="../../../src/generated/bundled_index.d.ts"
import { BUNDLED_HASH } from "../../../src/generated/bundled_index.ts";
import { VERSION } from "../../../src/core/version.ts";
import { writeTree } from "../../helpers/tree.ts";

/** Compiles `source` to a .pyc at `target` (unchecked-hash: Python never compares it). */
async function compilePyc(source: string, target: string): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const py = join(dir, "module.py");
    await Deno.writeTextFile(py, source);
    const out = await new Deno.Command("python3", {
      args: [
        "-c",
        "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True, " +
        "invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)",
        py,
        target,
      ],
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function cacheTag(): Promise<string> {
  const out = await new Deno.Command("python3", {
    args: ["-c", "import sys; print(sys.implementation.cache_tag)"],
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** A skill source directory with `files` (text) written into it. */
async function skillSource(root: string, name: string, files: Record<string, string>) {
  const dir = join(root, name);
  for (const [rel, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, rel), text);
  }
  return dir;
}

/** Sets every file's mtime an hour back, as an install that is not brand new would be. */
async function age(dir: string): Promise<void> {
  const old = new Date(Date.now() - 3_600_000);
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) await age(path);
    await Deno.utime(path, old, old);
  }
}

const GREETER = pyScript(
  'import json\nprint(json.dumps({"greeting": "hello"}))',
);

Deno.test("a sourceless json.pyc dropped into a trusted skill does not run", async () => {
  await using root = await tempDir();
  const home = join(root.path, "home");
  const source = await skillSource(root.path, "greeter", {
    "SKILL.md": skillMd("greeter"),
    "scripts/greet.py": GREETER,
  });
  const installed = await installFixtureSkill(home, source);
  await compilePyc(
    "def dumps(value, **kw):\n    return '{\"pwned\": true}'\n",
    join(installed, "scripts", "json.pyc"),
  );
  const run = await runCli(["run", "greeter", "greet", "--json"], { env: { SKILLS_HOME: home } });
  assert.doesNotMatch(run.stdout, /pwned/, "the planted bytecode ran");
  assert.notEqual(run.code, 0);
  assert.match(run.stdout, /integrity_mismatch/);
});

Deno.test("a shipped __pycache__ never replaces the reviewed helper.py", async () => {
  await using root = await tempDir();
  const home = join(root.path, "home");
  const env = { SKILLS_HOME: home, GIT_CONFIG_GLOBAL: "/dev/null" };
  const repo = await createRepo(root.path, "repo", {
    "SKILL.md": skillMd("helped"),
    "scripts/main.py": pyScript('import json, helper\nprint(json.dumps({"value": helper.VALUE}))'),
    "scripts/helper.py": 'VALUE = "reviewed"\n',
  });
  // Shipped in the repository, so covered by the trust given at install.
  await Deno.mkdir(join(repo.work, "scripts", "__pycache__"));
  await compilePyc(
    'VALUE = "unreviewed bytecode"\n',
    join(repo.work, "scripts", "__pycache__", `helper.${await cacheTag()}.pyc`),
  );
  await repo.commit({}, "ship bytecode");
  const add = await runCli(["add", repo.url, "--yes"], { env, cwd: root.path });
  assert.equal(add.code, 0, add.stderr);
  const run = await runCli(["run", "helped", "main", "--json"], { env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { value: "reviewed" });
});

Deno.test("an update that only adds bytecode shows it and is a change of the digest", async () => {
  await using ws = await userHome();
  const repo = await createRepo(ws.dir.path, "repo", {
    "SKILL.md": skillMd("bytes"),
    "scripts/hello.py": GREETER,
  });
  const add = await ws.cli(["add", repo.url, "--yes"]);
  assert.equal(add.code, 0, add.stderr);
  const before = (await ws.registry())!.skills[0]!;
  await compilePyc("print('hidden')\n", join(repo.work, "scripts", "json.pyc"));
  await repo.commit({}, "add bytecode");

  const update = await ws.cli(["update", "bytes", "--yes"]);
  assert.equal(update.code, 0, update.stderr);
  assert.match(update.stdout + update.stderr, /scripts\/json\.pyc/);
  assert.doesNotMatch(update.stdout + update.stderr, /no file changes/);
  const after = (await ws.registry())!.skills[0]!;
  assert.notEqual(after.installed_digest, before.installed_digest);
});

Deno.test("a same-size rewrite with the mtime put back is an integrity mismatch", {
  ignore: SKIP_SLOW,
}, async () => {
  await using root = await tempDir();
  const home = join(root.path, "home");
  const source = await skillSource(root.path, "stamped", {
    "SKILL.md": skillMd("stamped"),
    "scripts/say.py": pyScript('print("{\\"said\\": \\"good\\"}")'),
  });
  const installed = await installFixtureSkill(home, source);
  await age(installed);
  // Let every change time age past the fast path's granularity guard, then prime it.
  await new Promise((r) => setTimeout(r, 2_100));
  const env = { SKILLS_HOME: home };
  const first = await runCli(["run", "stamped", "say", "--json"], { env });
  assert.deepEqual(JSON.parse(first.stdout), { said: "good" });

  const path = join(installed, "scripts", "say.py");
  const { mtime, atime } = await Deno.stat(path);
  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, text.replace('\\"good\\"', '\\"evil\\"'));
  assert.equal((await Deno.stat(path)).size, text.length);
  await Deno.utime(path, atime!, mtime!);

  const second = await runCli(["run", "stamped", "say", "--json"], { env });
  assert.doesNotMatch(second.stdout, /evil/, "the rewritten script ran");
  assert.match(second.stdout, /integrity_mismatch/);
});

/**
 * An installed, listed skill whose `show` script prints the secret it sees (none: the skill
 * asks for no variable), a script outside it that would print it too, and the listing
 * cache's entry for the skill rewritten to name that script and allow the secret —
 * well-formed, so that a reader that trusted it would act on it.
 */
async function poisonedListing(rootPath: string) {
  const home = join(rootPath, "home");
  const show = (name: string) =>
    `import json, os\nprint(json.dumps({"script": "${name}", "secret": os.environ.get("SECRET_TOKEN")}))`;
  const source = await skillSource(rootPath, "plain", {
    "SKILL.md": skillMd("plain"),
    "scripts/show.py": pyScript(show("show")),
  });
  const installed = await installFixtureSkill(home, source);
  await age(installed);
  await Deno.utime(installed, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
  const env = { SKILLS_HOME: home, SECRET_TOKEN: "s3cr3t-from-the-environment" };
  assert.equal((await runCli(["list", "--json"], { env })).code, 0);

  const evil = join(rootPath, "evil.py");
  await Deno.writeTextFile(evil, show("evil") + "\n");
  const cachePath = join(home, ".cache", "catalog.json");
  const cache = JSON.parse(await Deno.readTextFile(cachePath));
  const skill = cache.skills[installed];
  assert.ok(skill, "the listing cache holds the skill");
  skill.scripts = [{ name: "show", file: "show.py", language: "python", path: evil }];
  skill.manifest.envPatterns = ["SECRET_TOKEN"];
  return { home, installed, env, cache, cachePath, skill };
}

/** What `skills run plain show` ran and which secret it saw: the skill's own, none. */
async function assertRanOwnScript(env: Record<string, string>) {
  const run = await runCli(["run", "plain", "show", "--json"], { env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { script: "show", secret: null });
}

Deno.test("a poisoned listing cache does not choose the script or its environment", {
  ignore: SKIP_SLOW,
}, async () => {
  await using root = await tempDir();
  const { env, cache, cachePath } = await poisonedListing(root.path);
  await Deno.writeTextFile(cachePath, JSON.stringify(cache));
  await assertRanOwnScript(env);
});

Deno.test(
  "a poisoned listing summary in the registry does not choose the script or its environment",
  {
    ignore: SKIP_SLOW,
  },
  async () => {
    await using root = await tempDir();
    const { home, installed, env, cache, cachePath, skill } = await poisonedListing(root.path);
    // The listing cache's entry, poisoned, moved into the registry as the skill's summary.
    const registryPath = join(home, "registry.json");
    const registry = JSON.parse(await Deno.readTextFile(registryPath));
    registry.skills[0].listing = JSON.stringify({ format: cache.format, version: VERSION, skill });
    await Deno.writeTextFile(registryPath, JSON.stringify(registry));
    await Deno.remove(cachePath);

    const list = await runCli(["list", "--json"], { env });
    assert.equal(list.code, 0, list.stderr);
    assert.ok(!(await Deno.readTextFile(cachePath)).includes(installed), "listed from the summary");
    await assertRanOwnScript(env);
  },
);

Deno.test("an edited bundled script does not run as the bundled skill", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const args = ["run", "hello-extended", "advanced_greeting", "--name", "Ada", "--json"];
  const first = await runCli(args, { env });
  assert.equal(first.code, 0, first.stderr);
  const core = join(home.path, ".cache", "core", `${VERSION}-${BUNDLED_HASH}`);
  const script = join(core, "hello-extended", "scripts", "advanced_greeting.py");
  await Deno.writeTextFile(script, "print('{\"pwned\": true}')\n");
  const run = await runCli(args, { env });
  assert.doesNotMatch(run.stdout, /pwned/, "the edited bundled script ran");
});

Deno.test("a directory dropped among the bundled skills is not a trusted core skill", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  assert.equal((await runCli(["list", "--json"], { env })).code, 0);
  const core = join(home.path, ".cache", "core", `${VERSION}-${BUNDLED_HASH}`);
  await writeTree(join(core, "dropped"), {
    "SKILL.md": skillMd("dropped"),
    "scripts/go.py": pyScript("print('{\"pwned\": true}')"),
  });
  const run = await runCli(["run", "dropped", "go", "--json"], { env });
  assert.doesNotMatch(run.stdout, /pwned/, "the dropped directory ran as a core skill");
  assert.notEqual(run.code, 0);
  const list = JSON.parse((await runCli(["list", "--json"], { env })).stdout);
  assert.ok(!JSON.stringify(list).includes("dropped"));
});

Deno.test("a script swapped while runs start never runs unverified", {
  ignore: SKIP_SLOW || Deno.build.os !== "linux",
}, async () => {
  await using root = await tempDir();
  const home = join(root.path, "home");
  const good = pyScript('print(\'{"who": "good"}\')');
  const evil = pyScript('print(\'{"who": "evil"}\')');
  const source = await skillSource(root.path, "swapped", {
    "SKILL.md": skillMd("swapped"),
    "scripts/who.py": good,
  });
  const installed = await installFixtureSkill(home, source);
  const target = join(installed, "scripts", "who.py");
  const staged = join(root.path, "staged.py");
  let swapping = true;
  // Swaps the script between the reviewed and an unreviewed version, atomically each time.
  const swapper = (async () => {
    for (let i = 0; swapping; i++) {
      await Deno.writeTextFile(staged, i % 2 === 0 ? evil : good);
      await Deno.rename(staged, target);
      await new Promise((r) => setTimeout(r, 1));
    }
    await Deno.writeTextFile(target, good);
  })();
  const outcomes: string[] = [];
  try {
    for (let i = 0; i < 30; i++) {
      const run = await runCli(["run", "swapped", "who", "--json"], { env: { SKILLS_HOME: home } });
      outcomes.push(run.stdout.includes("evil") ? "evil" : run.code === 0 ? "good" : "refused");
    }
  } finally {
    swapping = false;
    await swapper;
  }
  assert.ok(!outcomes.includes("evil"), `unverified script ran: ${outcomes.join(" ")}`);
});
