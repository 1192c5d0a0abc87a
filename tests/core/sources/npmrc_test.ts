/**
 * `.npmrc` read as npm reads it — registries per scope, credentials per registry prefix with
 * `${VAR}` from the environment — except that a project's file (the repository's, hostile)
 * cannot make a secret of the environment go to a host the user's own file does not name.
 */

import assert from "node:assert/strict";
import {
  authorizationFor,
  DEFAULT_REGISTRY,
  readNpmConfig,
  registryFor,
} from "../../../src/core/sources/npmrc.ts";

Deno.test("readNpmConfig() reads registries, scopes and credentials, project over user", () => {
  const config = readNpmConfig([
    {
      origin: "project",
      text:
        "; comment\n@acme:registry=https://npm.acme.test/repo/\n//npm.acme.test/repo/:_authToken=literal-token\n",
    },
    {
      origin: "user",
      text:
        "registry=https://mirror.test/npm\n//mirror.test/npm/:_authToken=${MIRROR_TOKEN}\n# x\n",
    },
  ], { MIRROR_TOKEN: "from-env" });
  assert.equal(registryFor(config, "left-pad"), "https://mirror.test/npm/");
  assert.equal(registryFor(config, "@acme/tools"), "https://npm.acme.test/repo/");
  assert.equal(registryFor(config, "@other/x"), "https://mirror.test/npm/");
  assert.equal(authorizationFor(config, "https://mirror.test/npm/left-pad"), "Bearer from-env");
  assert.equal(
    authorizationFor(config, "https://npm.acme.test/repo/@acme/tools/-/tools-1.0.0.tgz"),
    "Bearer literal-token",
  );
  assert.equal(
    authorizationFor(config, "https://npm.acme.test/other/x"),
    undefined,
    "another path",
  );
  assert.equal(authorizationFor(config, "https://evil.test/npm/x"), undefined, "another host");
  assert.deepEqual(config.notes, []);
});

Deno.test("readNpmConfig() defaults to npm's registry and reads _auth and username/_password", () => {
  const config = readNpmConfig([{
    origin: "user",
    text: "//a.test/:_auth=dTpw\n//b.test/:username=u\n//b.test/:_password=cGFzcw==\n",
  }], {});
  assert.equal(config.registry, DEFAULT_REGISTRY);
  assert.equal(authorizationFor(config, "https://a.test/x"), "Basic dTpw");
  assert.equal(authorizationFor(config, "https://b.test/x"), `Basic ${btoa("u:pass")}`);
  assert.equal(
    readNpmConfig([], { npm_config_registry: "http://127.0.0.1:4873" }).registry,
    "http://127.0.0.1:4873/",
  );
});

Deno.test("a project's .npmrc cannot send an environment secret to a host the user did not name", () => {
  const env = { GITHUB_TOKEN: "ghp-secret", NPM_TOKEN: "npm-secret" };
  const config = readNpmConfig([
    { origin: "user", text: "//npm.pkg.github.com/:_authToken=${NPM_TOKEN}\n" },
    {
      origin: "project",
      text: [
        "registry=https://evil.test/${GITHUB_TOKEN}/",
        "@x:registry=https://evil.test/",
        "//evil.test/:_authToken=${GITHUB_TOKEN}",
        "//npm.pkg.github.com/:_authToken=${NPM_TOKEN}",
      ].join("\n"),
    },
  ], env);
  assert.equal(config.registry, DEFAULT_REGISTRY, "a registry URL never reads the environment");
  assert.equal(authorizationFor(config, "https://evil.test/x"), undefined);
  assert.equal(authorizationFor(config, "https://npm.pkg.github.com/x"), "Bearer npm-secret");
  assert.equal(config.notes.length, 2);
  for (const note of config.notes) {
    assert.doesNotMatch(note, /secret/);
    assert.match(note, /project's \.npmrc reads the environment/);
  }
});

Deno.test("an unset ${VAR} leaves the line out and names only the variable", () => {
  const config = readNpmConfig([{ origin: "user", text: "//r.test/:_authToken=${MISSING}\n" }], {});
  assert.equal(authorizationFor(config, "https://r.test/x"), undefined);
  assert.deepEqual(config.notes, [
    "//r.test/:_authToken in the user's .npmrc names ${MISSING}, which is not set",
  ]);
  assert.throws(
    () => readNpmConfig([{ origin: "user", text: "registry=https://u:p@r.test/\n" }], {}),
    /carries credentials in its URL/,
  );
});
