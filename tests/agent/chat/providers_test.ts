import assert from "node:assert/strict";
import {
  OLLAMA_BASE_URL,
  type ProviderConfig,
  recordingFetch,
  resolveProviderConfig,
} from "../../../src/agent/chat/providers.ts";
import { isSkillError } from "../../../src/core/errors.ts";

const cases: [string, Record<string, string>, Partial<ProviderConfig>][] = [
  ["openai with its key", { SKILLS_MODEL: "openai:gpt-4o-mini", OPENAI_API_KEY: "sk-1" }, {
    provider: "openai",
    model: "gpt-4o-mini",
    apiKey: "sk-1",
    baseURL: undefined,
    format: "openai-chat",
  }],
  ["openai falls back to SKILLS_API_KEY", { SKILLS_MODEL: "openai:m", SKILLS_API_KEY: "k" }, {
    apiKey: "k",
  }],
  ["openai honours SKILLS_BASE_URL without a trailing slash", {
    SKILLS_MODEL: "openai:m",
    OPENAI_API_KEY: "k",
    SKILLS_BASE_URL: "http://127.0.0.1:9/v1/",
  }, { baseURL: "http://127.0.0.1:9/v1" }],
  ["anthropic", { SKILLS_MODEL: "Anthropic:claude-x", ANTHROPIC_API_KEY: "ak" }, {
    provider: "anthropic",
    model: "claude-x",
    label: "anthropic:claude-x",
    format: "anthropic-messages",
  }],
  [
    "ollama defaults to the local server and keeps the tag",
    { SKILLS_MODEL: "ollama:llama3.2:3b" },
    {
      provider: "ollama",
      model: "llama3.2:3b",
      baseURL: OLLAMA_BASE_URL,
      apiKey: undefined,
    },
  ],
  ["openai-compatible takes the base URL and SKILLS_API_KEY, never OPENAI_API_KEY", {
    SKILLS_MODEL: "openai-compatible:qwen",
    SKILLS_BASE_URL: "http://h/v1",
    OPENAI_API_KEY: "sk-secret",
  }, { provider: "openai-compatible", baseURL: "http://h/v1", apiKey: undefined }],
];

for (const [name, env, expected] of cases) {
  Deno.test(`resolveProviderConfig() ${name}`, () => {
    const config = resolveProviderConfig(env);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(config[key as keyof ProviderConfig], value, key);
    }
  });
}

const failures: [string, Record<string, string>, RegExp, RegExp][] = [
  [
    "needs SKILLS_MODEL",
    {},
    /SKILLS_MODEL is not set/,
    /SKILLS_MODEL=provider:model.*OPENAI_API_KEY/,
  ],
  [
    "rejects unknown providers",
    { SKILLS_MODEL: "acme:x" },
    /Unknown provider "acme"/,
    /openai, anthropic, openai-compatible, ollama/,
  ],
  ["needs a model id", { SKILLS_MODEL: "openai" }, /names no model/, /provider:model/],
  [
    "needs the OpenAI key",
    { SKILLS_MODEL: "openai:m" },
    /OPENAI_API_KEY is not set/,
    /Set OPENAI_API_KEY/,
  ],
  [
    "needs the Anthropic key",
    { SKILLS_MODEL: "anthropic:m" },
    /ANTHROPIC_API_KEY is not set/,
    /Set ANTHROPIC_API_KEY/,
  ],
  [
    "needs a base URL for openai-compatible",
    { SKILLS_MODEL: "openai-compatible:m" },
    /SKILLS_BASE_URL is not set/,
    /SKILLS_BASE_URL/,
  ],
];

for (const [name, env, message, hint] of failures) {
  Deno.test(`resolveProviderConfig() ${name}`, () => {
    try {
      resolveProviderConfig(env);
      assert.fail("expected an error");
    } catch (error) {
      assert.ok(isSkillError(error));
      assert.equal(error.exitCode, 2);
      assert.match(error.message, message);
      assert.match(error.hint ?? "", hint);
    }
  });
}

Deno.test("resolveProviderConfig() does not require a key when asked not to", () => {
  assert.equal(
    resolveProviderConfig({ SKILLS_MODEL: "openai:m" }, { requireKey: false }).apiKey,
    undefined,
  );
});

Deno.test("recordingFetch() records the JSON body and still sends the request", async () => {
  const seen: unknown[] = [];
  const inner: typeof fetch = () => Promise.resolve(new Response("pong"));
  const wrapped = recordingFetch((request) => seen.push(request), inner);
  const response = await wrapped("http://example.invalid/x", {
    method: "POST",
    body: JSON.stringify({ a: 1 }),
  });
  assert.equal(await response.text(), "pong");
  assert.deepEqual(seen, [{ url: "http://example.invalid/x", body: { a: 1 } }]);
});

Deno.test("resolveProviderConfig() refuses a SKILLS_BASE_URL that is not http(s), with a hint", () => {
  for (
    const [url, says] of [
      ["ftp://example.com/v1", /is not an http:\/\/ or https:\/\/ URL \(ftp\)/],
      ["not a url", /SKILLS_BASE_URL="not a url" is not a URL/],
      ["file:///etc/passwd", /\(file\)/],
    ] as const
  ) {
    for (const model of ["openai:gpt-4o-mini", "openai-compatible:local", "ollama:llama3.2"]) {
      assert.throws(
        () =>
          resolveProviderConfig({
            SKILLS_MODEL: model,
            SKILLS_BASE_URL: url,
            OPENAI_API_KEY: "sk-x",
          }),
        (error: unknown) => {
          assert.ok(isSkillError(error));
          assert.equal(error.code, "usage");
          assert.match(error.message, says);
          assert.match(error.hint ?? "", /API root, e\.g\. https:\/\/api\.openai\.com\/v1/);
          return true;
        },
        `${model} ${url}`,
      );
    }
  }
  const ok = resolveProviderConfig({
    SKILLS_MODEL: "openai:gpt-4o-mini",
    SKILLS_BASE_URL: "http://127.0.0.1:8000/v1/",
    OPENAI_API_KEY: "sk-x",
  });
  assert.equal(ok.baseURL, "http://127.0.0.1:8000/v1");
});
