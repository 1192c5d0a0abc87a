/**
 * Issue 23, policy mode: a `sitecustomize.py` or `usercustomize.py` that one script plants
 * where it can write (here the user site-packages, which every policy-mode script can
 * write) does not run in the next script. The parent watch (src/runtime/exec/
 * parent_watch.py), itself the first sitecustomize of every script, chains only to one in
 * a folder the process cannot write, and stands in for a writable usercustomize. Python
 * starts without the user site-packages (PYTHONNOUSERSITE), which the watch puts back without
 * running its `.pth` files' code: a planted `.pth` never runs either.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";
import { setupLab } from "../sandbox/sandbox_helpers.ts";

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

Deno.test(
  "policy mode: a .pth planted in the user site-packages never runs; packages installed there still import",
  linux,
  async () => {
    await using lab = await setupLab();
    const site = new TextDecoder().decode(
      (await new Deno.Command("python3", {
        args: ["-c", "import site; print(site.getusersitepackages())"],
        env: { HOME: lab.userHome },
        stdout: "piped",
      }).output()).stdout,
    ).trim();
    assert.ok(site.startsWith(lab.userHome), site);
    const marker = join(lab.outside, "pth-ran");
    await writeTree(site, {
      // Code at every Python start, planted by an earlier script.
      "zz-planted.pth": `import os; open(${JSON.stringify(marker)}, "w").write("planted")\n`,
      // What the user installed: a module, and a folder a .pth names.
      "honest_user_module.py": "VALUE = 1\n",
      "honest.pth": "honest-extra\n",
      "honest-extra/honest_extra_module.py": "VALUE = 2\n",
    });
    const seen = await lab.attempt(
      ["import:honest_user_module", "import:honest_extra_module"],
      { SKILLS_SANDBOX: "off" },
    );
    assert.equal(await Deno.lstat(marker).catch(() => null), null, "the planted .pth ran");
    assert.equal(
      seen["import:honest_user_module"]!.ok,
      true,
      seen["import:honest_user_module"]!.detail,
    );
    assert.equal(
      seen["import:honest_extra_module"]!.ok,
      true,
      seen["import:honest_extra_module"]!.detail,
    );
  },
);
