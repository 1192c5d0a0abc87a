/**
 * A repository checked out the way CI checks it out (actions/checkout leaves the job's token
 * in `.git/config` as `http.https://github.com/.extraheader`; other tools put it in the
 * remote's URL or a credential helper): a script in the sandbox reads a `.git/config` without
 * any of it — in the repository, in a sub-folder of it, in a linked worktree — and git still
 * reads the repository (runtime/masks/clean_git_config.ts).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { setupLab } from "../sandbox/sandbox_helpers.ts";
import { needsSandbox, visibleFolder } from "../../helpers/sandbox.ts";
import { git } from "../../fixtures/git_repos.ts";

const TOKENS = {
  header: "eC1hY2Nlc3MtdG9rZW46Z2hzX2NoZWNrb3V0VG9rZW4=",
  url: "ghs_urlToken4242",
  insteadOf: "ghp_insteadOf4242",
  helper: "/srv/ci/credential-store-4242",
  included: "Z2hzX2luY2x1ZGVkVG9rZW4=",
};

/** A repository with one commit, configured as a CI checkout with credentials. */
async function checkout(dir: string): Promise<void> {
  await git(dir, ["init", "-q"]);
  await Deno.writeTextFile(join(dir, "README.md"), "# app\n");
  await git(dir, ["add", "README.md"]);
  await git(dir, ["commit", "-q", "-m", "first commit of the app"]);
  await git(dir, [
    "remote",
    "add",
    "origin",
    `https://x-access-token:${TOKENS.url}@github.com/acme/app`,
  ]);
  const config = (key: string, value: string) => git(dir, ["config", "--local", key, value]);
  await config("http.https://github.com/.extraheader", `AUTHORIZATION: basic ${TOKENS.header}`);
  await config(`url.https://ci:${TOKENS.insteadOf}@github.com/.insteadOf`, "https://github.com/");
  await config("credential.helper", `store --file ${TOKENS.helper}`);
  // actions/checkout@v6: the header in a file of its own, included for this repository.
  const included = join(dir, ".ci-temp", "git-credentials-1.config");
  await Deno.mkdir(join(dir, ".ci-temp"));
  await Deno.writeTextFile(
    included,
    `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${TOKENS.included}\n`,
  );
  await config(`includeIf.gitdir:${dir}/.git.path`, included);
}

function assertClean(label: string, text: string): void {
  for (const [name, token] of Object.entries(TOKENS)) {
    assert.ok(!text.includes(token), `${label}: the ${name} credential is readable:\n${text}`);
  }
}

Deno.test(
  "a CI checkout's .git/config reaches the script without its token, and git still works",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    await checkout(lab.callerDir);
    const seen = await lab.attempt([
      "read:.git/config",
      "exec:git log --format=%s",
      "exec:git config --get remote.origin.url",
      "exec:git status --short",
      "exec:git config --get-regexp http\\..*",
      "read:.ci-temp/git-credentials-1.config",
    ]);
    assert.equal(seen["read:.ci-temp/git-credentials-1.config"]!.ok, false, "the included file");
    assert.equal(seen["read:.git/config"]!.ok, true, seen["read:.git/config"]!.detail);
    assert.match(seen["read:.git/config"]!.detail, /\[remote "origin"\]/);
    for (const [op, result] of Object.entries(seen)) assertClean(op, result.detail);
    assert.equal(seen["exec:git log --format=%s"]!.detail, "first commit of the app\n");
    assert.equal(
      seen["exec:git config --get remote.origin.url"]!.detail,
      "https://github.com/acme/app\n",
    );
    assert.equal(
      seen["exec:git status --short"]!.ok,
      true,
      seen["exec:git status --short"]!.detail,
    );
    // The user's file is as it was.
    assert.ok(
      (await Deno.readTextFile(join(lab.callerDir, ".git/config"))).includes(TOKENS.header),
    );
  },
);

Deno.test(
  "from a sub-folder of the repository and from a linked worktree, the config is shown clean too",
  needsSandbox,
  async () => {
    await using lab = await setupLab();
    await using repo = await visibleFolder(".masks-repo-");
    await checkout(repo.path);
    await Deno.mkdir(join(repo.path, "packages", "web"), { recursive: true });
    await git(repo.path, ["worktree", "add", "-q", join(repo.path, "wt"), "-b", "feature"]);
    for (const cwd of [join(repo.path, "packages", "web"), join(repo.path, "wt")]) {
      const result = await lab.run(
        [
          "--read-only",
          "sandbox-lab",
          "attempt",
          `read:${repo.path}/.git/config`,
          "--json",
        ],
        {},
        { cwd },
      );
      assert.equal(result.code, 0, result.stderr);
      const read = JSON.parse(result.stdout)[`read:${repo.path}/.git/config`];
      assert.equal(read.ok, true, `${cwd}: ${read.detail}`);
      assert.match(read.detail, /\[remote "origin"\]/);
      assertClean(cwd, read.detail);
    }
  },
);
