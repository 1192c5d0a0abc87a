/**
 * Scripts as published skills ship them, through the real CLI, in the OS sandbox and in
 * policy mode: `.sh` run with bash, `.mjs` with node, `.ts` with deno; Python scripts that
 * import each other from the skill root; a requirements.txt handed to uv (a fake one that
 * records its argv), or named when uv is missing (a help run shows the usage all the same); and
 * a script writing into its own folder, which fails with a hint and never locks the skill out.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, okJson, runCli, tempDir } from "../../helpers/cli.ts";
import { installFixtureSkill, installRunnerSkill } from "../../helpers/install_fixture.ts";
import { realPython } from "../../helpers/python.ts";
import { computeDigest } from "../../../src/runtime/trust/file_hashes.ts";
import { SANDBOX_MODES } from "../../helpers/sandbox.ts";
import { writeTree } from "../../helpers/tree.ts";

async function polyglot() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const installed = await installRunnerSkill(home, "polyglot");
  const run = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
    runCli(["run", "polyglot", ...args], { env: { SKILLS_HOME: home, ...env }, cwd: dir.path });
  return { dir, home, installed, run, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

Deno.test("skills scripts lists shell, Node, Deno and Python scripts with what runs them; _modules are not scripts", async () => {
  await using p = await polyglot();
  const listed = await runCli(["scripts", "polyglot", "--json"], { env: { SKILLS_HOME: p.home } });
  const scripts = okJson(listed).polyglot as { name: string; interpreter: string }[];
  assert.deepEqual(scripts.map((s) => [s.name, s.interpreter]), [
    ["check", "deno"],
    ["render", "node"],
    ["report", "bash"],
    ["uses_shared", "python"],
    ["writes_self", "python"],
  ]);
});

for (const [label, mode, where] of SANDBOX_MODES) {
  Deno.test(
    `${label}: a .sh script runs with bash and --json, and has a work folder of its own`,
    where,
    async () => {
      await using p = await polyglot();
      const version = await new Deno.Command("bash", { args: ["-c", "echo ${BASH_VERSINFO[0]}"] })
        .output();
      assert.deepEqual(
        okJson(await p.run(["report", "one", "two", "--json"], { SKILLS_SANDBOX: mode })),
        {
          shell: "bash",
          bash_major: Number(new TextDecoder().decode(version.stdout).trim()),
          words: 2,
          wrote_scratch: true,
        },
      );
      // By file name too, extension and all.
      assert.equal(okJson(await p.run(["report.sh", "--json"], { SKILLS_SANDBOX: mode })).words, 0);
    },
  );

  Deno.test(`${label}: .mjs runs with node and .ts with deno`, where, async () => {
    await using p = await polyglot();
    assert.deepEqual(okJson(await p.run(["render", "a", "--json"], { SKILLS_SANDBOX: mode })), {
      runtime: "node",
      args: ["a"],
    });
    assert.deepEqual(okJson(await p.run(["check", "b", "--json"], { SKILLS_SANDBOX: mode })), {
      runtime: "deno",
      typescript: true,
      args: ["b"],
    });
  });

  Deno.test(
    `${label}: a script imports its sibling as scripts.<module> from the skill root`,
    where,
    async () => {
      await using p = await polyglot();
      assert.deepEqual(
        okJson(await p.run(["uses_shared", "Ada", "--json"], { SKILLS_SANDBOX: mode })),
        {
          greeting: "hello Ada",
        },
      );
    },
  );

  Deno.test(
    `${label}: a script writing into its own folder never changes the skill or locks it out`,
    where,
    async () => {
      await using p = await polyglot();
      const before = await computeDigest(p.installed);
      const env = { SKILLS_SANDBOX: mode };
      const first = await p.run(["writes_self", "--json"], env);
      // In the sandbox (and for any user but root) the write fails at once, with a way out.
      const refused = mode === "auto" || Deno.uid() !== 0;
      if (refused) {
        assert.equal(first.code, 1, first.stdout);
        const envelope = JSON.parse(first.stdout);
        assert.equal(envelope.error, "execution_failed");
        assert.match(
          envelope.message,
          /(Read-only file system|Permission denied): '[^']*scripts\/out\.txt'/,
        );
        assert.match(envelope.message, /hint: Scripts cannot change their skill.*SKILLS_WORK_DIR/s);
      }
      await assert.rejects(
        Deno.lstat(join(p.installed, "scripts", "out.txt")),
        Deno.errors.NotFound,
      );
      assert.equal(await computeDigest(p.installed), before, "the installed skill is unchanged");
      // The next run is not refused as modified; writing to the work folder works.
      const again = await p.run(["writes_self", "--json"], env);
      assert.doesNotMatch(again.stdout + again.stderr, /integrity_mismatch/);
      const work = okJson(await p.run(["writes_self", "--work-dir", "--json"], env));
      assert.match(work.wrote, /skills-work-[^/]+\/out\.txt$/);
      const check = await runCli(["check", "--json"], { env: { SKILLS_HOME: p.home } });
      const polyglotState = JSON.parse(check.stdout).skills.find((s: { name: string }) =>
        s.name === "polyglot"
      );
      assert.equal(polyglotState.status, "ok", check.stdout);
    },
  );

  Deno.test(
    `${label}: a requirements.txt goes to uv as --with-requirements; without uv the error names its packages, and a help run shows the usage all the same`,
    where,
    async () => {
      await using p = await polyglot();
      // A skill laid out like slack-gif-creator: no PEP 723, a requirements.txt at its root.
      const source = join(p.dir.path, "gif-maker");
      await writeTree(source, {
        "SKILL.md":
          "---\nname: gif-maker\ndescription: Makes GIFs with the packages in requirements.txt.\n---\n\n# gif-maker\n",
        "requirements.txt": "imageio>=2.31\n",
        "scripts/make.py": 'import json\nprint(json.dumps({"ran": True}))\n',
        // Its usage before the import the work needs, as many scripts are written.
        "scripts/frames.py":
          'import argparse\nargparse.ArgumentParser(description="Joins frames into a GIF.").parse_args()\nimport imageio\n',
        "scripts/eager.py": "import imageio\n",
      });
      await installFixtureSkill(p.home, source);
      const run = (env: Record<string, string>) =>
        runCli(["run", "gif-maker", "make", "--json"], {
          env: { SKILLS_HOME: p.home, ...env },
          cwd: p.dir.path,
        });
      // As root the sandbox runs scripts as a user of their own, who must reach the fake uv.
      await Deno.chmod(p.dir.path, 0o755);
      const bin = join(p.dir.path, "bin");
      await Deno.mkdir(bin);
      // Its python3 is the one on PATH, which the sandbox shows (uv looks there too).
      const python = join(bin, "python3");
      await Deno.symlink(await realPython(), python);
      // A fake uv that reports its argv on stderr, then runs the script with python3.
      await Deno.writeTextFile(
        join(bin, "uv"),
        `#!${python}\nimport json, os, sys\nsys.stderr.write("uv-argv " + json.dumps(sys.argv[1:]) + "\\n")\nscript = sys.argv.index("--script") + 1\nos.execv(${
          JSON.stringify(python)
        }, [${JSON.stringify(python)}, *sys.argv[script:]])\n`,
        { mode: 0o755 },
      );
      const env = { SKILLS_SANDBOX: mode, PATH: `${bin}:/usr/bin:/bin` };
      const ran = await run(env);
      assert.deepEqual(okJson(ran), { ran: true });
      const argv: string[] = JSON.parse(
        ran.stderr.split("\n").find((l) => l.startsWith("uv-argv "))!.slice("uv-argv ".length),
      );
      const at = argv.indexOf("--with-requirements");
      assert.ok(at > 0, argv.join(" "));
      // The verified copy's requirements file, at the skill root (none beside the script).
      assert.match(argv[at + 1]!, /\/\.cache\/run\/gif-maker-[0-9a-f]+\/requirements\.txt$/);
      assert.equal(await Deno.readTextFile(argv[at + 1]!), "imageio>=2.31\n");
      assert.deepEqual(argv.slice(at + 2, at + 4).map((a) => a.split("/").pop()), [
        "--script",
        "make.py",
      ]);

      const noUv = await run({ SKILLS_SANDBOX: mode, PATH: "/usr/bin:/bin" });
      assert.equal(noUv.code, 1);
      const envelope = JSON.parse(noUv.stdout);
      assert.equal(envelope.error, "dependency_unavailable");
      // The package it lists, named, and the file that lists it.
      assert.match(
        envelope.message,
        /^Cannot run scripts\/make\.py: the script needs the Python package imageio \(listed in requirements\.txt\), not installed for python3, and uv is not installed$/m,
      );

      // Asked for its help, the script runs all the same (an agent learns it from its usage),
      // and one whose help needs the package too gets the same refusal.
      const help = (script: string) =>
        runCli(["run", "gif-maker", script, "--help", "--json"], {
          env: { SKILLS_HOME: p.home, SKILLS_SANDBOX: mode, PATH: "/usr/bin:/bin" },
          cwd: p.dir.path,
        });
      assert.match(okJson(await help("frames")).help_text, /Joins frames into a GIF\./);
      const eager = JSON.parse((await help("eager")).stdout);
      assert.equal(eager.error, "dependency_unavailable");
      assert.match(
        eager.message,
        /^Cannot run scripts\/eager\.py: the script needs the Python package imageio \(listed in requirements\.txt\)/,
      );
    },
  );
}
