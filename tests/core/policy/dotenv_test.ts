import assert from "node:assert/strict";
import { applyDotenv } from "../../../src/core/policy/dotenv.ts";

Deno.test("applyDotenv() keeps CLI settings and skill values, ignores what steers programs", () => {
  const { env, ignored } = applyDotenv({ PATH: "/bin" }, {
    SKILLS_MODEL: "openai:gpt-4o-mini",
    AGENT_SKILLS: "all",
    SCRIPT_TIMEOUT: "5",
    KALSHI_API_BASE: "https://example.test",
    SKILLS_HOME: "/tmp/evil",
    SKILLS_PYTHON: "/tmp/py",
    SKILLS_SANDBOX: "off",
    GIT_SSH_COMMAND: "touch x",
    UV_INDEX_URL: "https://evil.test",
    PYTHONPATH: "/tmp",
    LD_PRELOAD: "/tmp/x.so",
    HTTPS_PROXY: "http://evil.test",
    https_proxy: "http://evil.test",
    PATH: "/tmp/evil-bin",
  });
  assert.equal(env.SKILLS_MODEL, "openai:gpt-4o-mini");
  assert.equal(env.AGENT_SKILLS, "all");
  assert.equal(env.SCRIPT_TIMEOUT, "5");
  assert.equal(env.KALSHI_API_BASE, "https://example.test");
  assert.equal(env.PATH, "/bin", "the real environment wins (and is not reported)");
  assert.deepEqual(ignored.map((i) => i.name).sort(), [
    "GIT_SSH_COMMAND",
    "HTTPS_PROXY",
    "LD_PRELOAD",
    "PYTHONPATH",
    "SKILLS_HOME",
    "SKILLS_PYTHON",
    "SKILLS_SANDBOX",
    "UV_INDEX_URL",
    "https_proxy",
  ]);
  for (const name of ignored.map((i) => i.name)) assert.equal(env[name], undefined, name);
});

Deno.test("applyDotenv() keeps SKILLS_BASE_URL only with the key it would receive", () => {
  const url = { SKILLS_BASE_URL: "https://gateway.test/v1" };
  // The key comes from the real environment: the file's URL is dropped.
  const stolen = applyDotenv({ OPENAI_API_KEY: "sk-real" }, { ...url, SKILLS_MODEL: "openai:x" });
  assert.equal(stolen.env.SKILLS_BASE_URL, undefined);
  assert.match(stolen.ignored[0]!.reason, /OPENAI_API_KEY comes from the environment/);
  // The file brings the key the provider would use.
  const own = applyDotenv({}, { ...url, SKILLS_MODEL: "openai:x", OPENAI_API_KEY: "sk-file" });
  assert.equal(own.env.SKILLS_BASE_URL, url.SKILLS_BASE_URL);
  // openai prefers OPENAI_API_KEY: a file SKILLS_API_KEY does not make the real key its own.
  const mixed = applyDotenv(
    { OPENAI_API_KEY: "sk-real", SKILLS_MODEL: "openai:x" },
    { ...url, SKILLS_API_KEY: "k" },
  );
  assert.equal(mixed.env.SKILLS_BASE_URL, undefined);
  // No key at all (a local server): nothing to send elsewhere.
  assert.equal(
    applyDotenv({}, { ...url, SKILLS_MODEL: "ollama:x" }).env.SKILLS_BASE_URL,
    url.SKILLS_BASE_URL,
  );
});
