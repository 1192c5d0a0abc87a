/**
 * Issue 23, policy mode: a `sitecustomize.py` or `usercustomize.py` that one script plants
 * where it can write (here the user site-packages, which every policy-mode script can
 * write) does not run in the next script. The parent watch (src/runtime/exec/
 * parent_watch.py), itself the first sitecustomize of every script, chains only to one in
 * a folder the process cannot write, and stands in for a writable usercustomize.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/cli.ts";
import { installRunnerSkill } from "../helpers/install_fixture.ts";

const linux = { ignore: Deno.build.os !== "linux" };

Deno.test(
  "policy mode: a planted sitecustomize or usercustomize never runs in a script",
  linux,
  async () => {
    await using dir = await tempDir();
    const home = join(dir.path, "skills-home");
    const userHome = join(dir.path, "user");
    await Deno.mkdir(userHome, { recursive: true });
    await installRunnerSkill(home, "runner-lab");
    const site = new TextDecoder().decode(
      (await new Deno.Command("python3", {
        args: ["-c", "import site; print(site.getusersitepackages())"],
        env: { HOME: userHome },
        stdout: "piped",
      }).output()).stdout,
    ).trim();
    assert.ok(site.startsWith(userHome), site);
    await Deno.mkdir(site, { recursive: true });
    const marker = (name: string) => join(dir.path, `${name}-ran`);
    for (const name of ["sitecustomize", "usercustomize"]) {
      await Deno.writeTextFile(
        join(site, `${name}.py`),
        `open(${JSON.stringify(marker(name))}, "w").write("planted")\n`,
      );
    }
    const result = await runCli(["run", "runner-lab", "echo_args", "--json", "ok"], {
      env: { SKILLS_HOME: home, SKILLS_SANDBOX: "off", HOME: userHome },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout).args, ["--json", "ok"]);
    for (const name of ["sitecustomize", "usercustomize"]) {
      assert.equal(await Deno.lstat(marker(name)).catch(() => null), null, `${name} did not run`);
    }
  },
);
