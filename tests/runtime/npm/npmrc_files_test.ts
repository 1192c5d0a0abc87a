/**
 * Which .npmrc files are read: the project's (the nearest from the working directory up to
 * the repository root, never above it) and the user's (`$NPM_CONFIG_USERCONFIG`, else
 * `~/.npmrc`), the project's winning where both set a key.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadNpmConfig } from "../../../src/runtime/npm/npmrc_files.ts";
import { authorizationFor, registryFor } from "../../../src/core/sources/npmrc.ts";
import { tempTree } from "../../helpers/tree.ts";

Deno.test("loadNpmConfig() reads the project's .npmrc up to the repository root and the user's", async () => {
  await using tmp = await tempTree({
    ".npmrc": "registry=https://above-the-repository.test/\n",
    "home/.npmrc": "registry=https://user.test/\n//user.test/:_authToken=${TOKEN}\n",
    "alt/npmrc": "registry=https://alternative.test/\n",
    "repo/.npmrc": "@acme:registry=https://acme.test/\n",
    "repo/src/deep/file.txt": "",
    "bare/src/file.txt": "",
  });
  await Deno.mkdir(join(tmp.path, "repo", ".git"));
  await Deno.mkdir(join(tmp.path, "bare", ".git"));
  const env = { HOME: join(tmp.path, "home"), TOKEN: "t0k" };

  const inRepo = await loadNpmConfig(env, join(tmp.path, "repo", "src", "deep"));
  assert.equal(registryFor(inRepo, "left-pad"), "https://user.test/");
  assert.equal(registryFor(inRepo, "@acme/x"), "https://acme.test/");
  assert.equal(authorizationFor(inRepo, "https://user.test/left-pad"), "Bearer t0k");

  const noProjectFile = await loadNpmConfig(env, join(tmp.path, "bare", "src"));
  assert.equal(
    noProjectFile.registry,
    "https://user.test/",
    "the folder above the repository is not read",
  );

  const alternative = await loadNpmConfig(
    { ...env, NPM_CONFIG_USERCONFIG: join(tmp.path, "alt", "npmrc") },
    join(tmp.path, "bare"),
  );
  assert.equal(alternative.registry, "https://alternative.test/");
});
