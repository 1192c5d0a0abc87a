/**
 * A fresh checkout of this tree in a temporary folder: what a commit would hold (tracked
 * files and new files git does not ignore), so none of `deno task gen`'s git-ignored output
 * (src/generated/*.ts) is there. The tests that ask what a newcomer's clone does start here.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "./cli.ts";

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: REPO_ROOT, stdout: "piped" }).output();
  assert.ok(out.success, `git ${args.join(" ")}`);
  return new TextDecoder().decode(out.stdout);
}

/** A fresh checkout of the tree in a new temporary folder; the caller removes it. */
export async function freshCheckout(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "skills-fresh-" });
  const listed = await git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"]);
  for (const path of listed.split("\0").filter((p) => p !== "")) {
    const from = join(REPO_ROOT, path);
    // Deleted but not yet staged: a commit would not hold it.
    if ((await Deno.lstat(from).catch(() => undefined))?.isFile !== true) continue;
    await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
    await Deno.copyFile(from, join(dir, path));
  }
  return dir;
}

/** Runs deno with `args` in `cwd` (no colour): whether it passed, and what it printed. */
export async function denoIn(cwd: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { success: out.success, text };
}
