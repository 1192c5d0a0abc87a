/**
 * docs/setup.md's `deno install` block, run as written in a fresh clone (this checkout's
 * files, without the git-ignored `src/generated/`), into a temporary DENO_INSTALL_ROOT: the
 * `skills` it installs must list and check, and a generated module that goes missing later
 * (a `git pull` without `deno task gen`) is named with what to do, never a stack trace.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { baseEnv, REPO_ROOT, runProgram, tempDir } from "../helpers/cli.ts";
import { fencedBlocks } from "./markdown.ts";

/** The setup.md block that installs `skills` on PATH, as one shell script. */
async function installBlock(): Promise<string> {
  const text = await Deno.readTextFile(join(REPO_ROOT, "docs", "setup.md"));
  const block = fencedBlocks(text).find((b) =>
    b.lang === "sh" && b.lines.some((l) => l.startsWith("deno install "))
  );
  assert.ok(block !== undefined, "docs/setup.md has a deno install block");
  return block.lines.join("\n");
}

/**
 * A fresh clone of this checkout as it stands: `git clone`, then the working tree's changes
 * to tracked files and its new (not ignored) files, so uncommitted work is what is tested.
 */
async function freshClone(dest: string): Promise<void> {
  const git = (args: string[], cwd = REPO_ROOT) => runProgram("git", args, cwd, {});
  const cloned = await git(["clone", "--quiet", REPO_ROOT, dest]);
  assert.equal(cloned.code, 0, cloned.stderr);
  const diff = await git(["diff", "HEAD", "--binary"]);
  if (diff.stdout.trim() !== "") {
    const patch = join(dest, "..", "worktree.patch");
    await Deno.writeTextFile(patch, diff.stdout);
    const applied = await git(["apply", "--whitespace=nowarn", patch], dest);
    assert.equal(applied.code, 0, applied.stderr);
  }
  const untracked = await git(["ls-files", "--others", "--exclude-standard", "-z"]);
  for (const path of untracked.stdout.split("\0").filter((p) => p !== "")) {
    await Deno.mkdir(join(dest, path, ".."), { recursive: true });
    await Deno.copyFile(join(REPO_ROOT, path), join(dest, path));
  }
}

Deno.test("docs/setup.md's deno install block gives a working skills in a fresh clone", async () => {
  await using tmp = await tempDir("skills-setup-install-");
  const clone = join(tmp.path, "skills");
  await freshClone(clone);
  assert.equal(
    await Deno.stat(join(clone, "src", "generated", "bundled_index.ts")).then(
      () => true,
      () => false,
    ),
    false,
    "a fresh clone has no generated modules",
  );
  const root = join(tmp.path, "install-root");
  const home = join(tmp.path, "skills-home");
  const denoDir = join(Deno.execPath(), "..");
  const env = {
    DENO_INSTALL_ROOT: root,
    PATH: `${join(root, "bin")}:${denoDir}:${baseEnv().PATH}`,
    SKILLS_HOME: home,
  };
  const installed = await runProgram("bash", ["-euc", await installBlock()], clone, env);
  assert.equal(installed.code, 0, installed.stderr);
  const skills = join(root, "bin", "skills");

  const list = await runProgram(skills, ["list"], tmp.path, env);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /hello-extended/);
  const check = await runProgram(skills, ["check"], tmp.path, env);
  assert.doesNotMatch(check.stderr, /Module not found|Unexpected error/);
  assert.equal(check.code, 0, check.stderr);

  // A generated module gone (a pull without `deno task gen`): said plainly, no stack trace.
  await Deno.remove(join(clone, "src", "generated", "bundled_index.ts"));
  const broken = await runProgram(skills, ["list"], tmp.path, env);
  assert.equal(broken.code, 1);
  assert.match(
    broken.stderr,
    /error: This installation of skills is incomplete: \S*\/src\/generated\/bundled_index\.ts is missing/,
  );
  assert.match(broken.stderr, /hint: .*`deno task gen`: run it in \S*skills,/);
  assert.doesNotMatch(broken.stderr, /^\s+at /m, "no stack trace");
  assert.doesNotMatch(broken.stderr, /Unexpected error/);
});
