import assert from "node:assert/strict";
import { includedPaths, sanitizeGitConfig } from "../../../src/core/policy/git_config.ts";

/** What actions/checkout@v4 leaves in `.git/config`, plus the other places tokens hide. */
const CHECKOUT = `[core]
\trepositoryformatversion = 0
\tbare = false
[remote "origin"]
\turl = https://x-access-token:ghs_remoteToken123@github.com/acme/app
\tpushurl = https://deploy:glpat-pushToken456@gitlab.example.com/acme/app.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[http "https://github.com/"]
\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2hlYWRlclRva2Vu
[url "https://ci:ghp_insteadOfToken789@github.com/"]
\tinsteadOf = https://github.com/
[credential "https://github.com"]
\thelper = store --file /srv/ci/creds
\tusername = ci-bot
[credential]
\thelper = cache
[includeIf "gitdir:/runner/work/app/.git"]
\tpath = /runner/_temp/git-credentials-1234.config
[user]
\temail = ci@example.com
[github]
\toauth-token = gho_hubToken000
[branch "main"]
\tremote = origin
\tmerge = refs/heads/main
`;

Deno.test("sanitizeGitConfig() removes URL credentials, extraheader, credential helpers and includes", () => {
  const clean = sanitizeGitConfig(CHECKOUT);
  for (
    const secret of [
      "ghs_remoteToken123",
      "glpat-pushToken456",
      "AUTHORIZATION",
      "ghp_insteadOfToken789",
      "store --file",
      "ci-bot",
      "git-credentials-1234",
      "gho_hubToken000",
      "[credential",
      "includeIf",
    ]
  ) {
    assert.ok(!clean.includes(secret), `${secret} is still there:\n${clean}`);
  }
  // What git needs to read the repository stays.
  for (
    const kept of [
      "\tbare = false",
      "\turl = https://github.com/acme/app",
      "\tpushurl = https://gitlab.example.com/acme/app.git",
      "\tfetch = +refs/heads/*:refs/remotes/origin/*",
      '[url "https://github.com/"]',
      "\temail = ci@example.com",
      '[branch "main"]',
      "\tmerge = refs/heads/main",
    ]
  ) {
    assert.ok(clean.includes(kept), `${kept} is gone:\n${clean}`);
  }
});

Deno.test("sanitizeGitConfig() leaves a config without credentials as it is, and follows continuations", () => {
  const plain = '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/app.git\n';
  assert.equal(sanitizeGitConfig(plain), plain);
  const continued =
    "[http]\n\textraHeader = AUTHORIZATION: \\\n basic c2VjcmV0\n[core]\n\tbare = false\n";
  const clean = sanitizeGitConfig(continued);
  assert.ok(!clean.includes("c2VjcmV0") && clean.includes("bare = false"), clean);
  const inline = "[http] extraheader = AUTHORIZATION: basic abc\n";
  assert.ok(!sanitizeGitConfig(inline).includes("abc"));
});

Deno.test("includedPaths() names the files include sections point at", () => {
  assert.deepEqual(includedPaths(CHECKOUT), ["/runner/_temp/git-credentials-1234.config"]);
  assert.deepEqual(
    includedPaths('[include]\n\tpath = "extra.conf" ; local\n[core]\n\tpath = no\n'),
    ["extra.conf"],
  );
});
