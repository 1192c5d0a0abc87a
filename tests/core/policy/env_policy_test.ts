import assert from "node:assert/strict";
import { SkillError } from "../../../src/core/errors.ts";
import {
  envMatcher,
  type EnvSubject,
  forwardsTrust,
  isValidEnvPattern,
  scriptEnvironment,
} from "../../../src/core/policy/env_policy.ts";

Deno.test("envMatcher() matches exact names and trailing-* prefixes", () => {
  const match = envMatcher(["KALSHI_API_KEY", "KALSHI_*", "OTHER"]);
  assert.ok(match("KALSHI_API_KEY"));
  assert.ok(match("KALSHI_API_BASE"));
  assert.ok(match("OTHER"));
  assert.ok(!match("OTHER_X"));
  assert.ok(!match("KALSH"));
  assert.ok(!match("OPENAI_API_KEY"));
});

Deno.test("isValidEnvPattern() refuses a bare * and odd characters", () => {
  for (const ok of ["A", "KALSHI_*", "_X1"]) assert.ok(isValidEnvPattern(ok), ok);
  for (const bad of ["*", "A*B", "1ABC", "A-B", "", "A B", "**"]) {
    assert.ok(!isValidEnvPattern(bad), bad);
  }
});

function fakeSkill(envPatterns: string[]): EnvSubject {
  return { canonical: "demo", manifest: { envPatterns } };
}

const SOURCE = {
  PATH: "/usr/bin",
  HOME: "/home/me",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  TERM: "xterm",
  TMPDIR: "/tmp",
  UV_CACHE_DIR: "/cache/uv",
  KALSHI_API_BASE: "http://127.0.0.1:1",
  KALSHI_TIMEOUT: "3",
  EXTRA_TOKEN: "t",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  OPENAI_API_KEY: "sk-secret",
  DENO_DIR: "/deno",
};

Deno.test("scriptEnvironment() passes only the base set and the skill's allowlist", () => {
  const env = scriptEnvironment(fakeSkill(["KALSHI_*", "EXTRA_TOKEN"]), SOURCE);
  // SOURCE minus the secrets and DENO_DIR, plus Python's two settings.
  const { AWS_SECRET_ACCESS_KEY: _aws, OPENAI_API_KEY: _openai, DENO_DIR: _deno, ...passed } =
    SOURCE;
  assert.deepEqual(env, { ...passed, PYTHONUTF8: "1", PYTHONDONTWRITEBYTECODE: "1" });
  const bare = scriptEnvironment(fakeSkill([]), SOURCE);
  assert.equal(bare.KALSHI_API_BASE, undefined);
  assert.equal(bare.AWS_SECRET_ACCESS_KEY, undefined);
  assert.equal(bare.OPENAI_API_KEY, undefined);
});

Deno.test("scriptEnvironment() forwards --env NAME=VALUE only when the allowlist covers it", () => {
  const skill = fakeSkill(["KALSHI_*"]);
  const env = scriptEnvironment(skill, SOURCE, ["KALSHI_LIMIT=5", "KALSHI_API_BASE", "TZ=UTC"]);
  assert.equal(env.KALSHI_LIMIT, "5");
  assert.equal(env.KALSHI_API_BASE, "http://127.0.0.1:1");
  assert.equal(env.TZ, "UTC");
  for (const request of ["OPENAI_API_KEY", "SECRET_KEY=1"]) {
    assert.throws(
      () => scriptEnvironment(skill, SOURCE, [request]),
      (error: unknown) => {
        assert.ok(error instanceof SkillError);
        assert.equal(error.code, "permission_denied");
        assert.equal(error.message, `Env var '${request.split("=")[0]}' not in allowlist`);
        assert.match(error.hint ?? "", /allows: KALSHI_\*/);
        return true;
      },
    );
  }
});

Deno.test("isValidEnvPattern() wants three characters before '*'; envMatcher() never forwards loader variables", () => {
  for (const bad of ["*", "A*", "OP*", "A**", "1AB*"]) assert.ok(!isValidEnvPattern(bad), bad);
  for (const good of ["KAL*", "KALSHI_*", "A", "GITHUB_TOKEN"]) {
    assert.ok(isValidEnvPattern(good), good);
  }
  const allowed = envMatcher(["PYTHONPATH", "LD_*", "PATH", "BASH_ENV", "UV_INDEX_URL", "MY_*"]);
  for (const name of ["PYTHONPATH", "LD_PRELOAD", "PATH", "BASH_ENV", "UV_INDEX_URL"]) {
    assert.ok(!allowed(name), name);
  }
  assert.ok(allowed("MY_TOKEN"));
});

Deno.test("forwardsTrust(): absolute CA paths outside the caller's home, of the TLS trust names only", () => {
  const home = { HOME: "/home/dev" };
  assert.equal(forwardsTrust("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt", home), true);
  assert.equal(forwardsTrust("SSL_CERT_DIR", "/etc/ssl/certs:/opt/corp/certs", home), true);
  assert.equal(forwardsTrust("SSL_CERT_DIR", "/etc/ssl/certs:/home/dev/certs", home), false);
  assert.equal(forwardsTrust("NODE_EXTRA_CA_CERTS", "/home/dev/corp.pem", home), false);
  assert.equal(forwardsTrust("NODE_EXTRA_CA_CERTS", "/home/devops/corp.pem", home), true);
  // The sandbox's /tmp is a fresh one: a bundle there is not the caller's.
  assert.equal(forwardsTrust("SSL_CERT_FILE", "/tmp/corp-ca.pem", home), false);
  assert.equal(forwardsTrust("REQUESTS_CA_BUNDLE", "certs/corp.pem", home), false);
  assert.equal(forwardsTrust("CURL_CA_BUNDLE", "/etc/../home/dev/x.pem", home), false);
  assert.equal(forwardsTrust("NODE_OPTIONS", "/etc/ssl/certs/ca-certificates.crt", home), false);
});
