/**
 * Secrets: no API key, token or `.env` value reaches a script's environment (unless the
 * skill allowlists it), `--json` output, logs at any level, or error messages.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

const SECRETS: Record<string, string> = {
  OPENAI_API_KEY: "sk-test-openai-4f1d9c0e7b2a",
  ANTHROPIC_API_KEY: "sk-ant-test-98c7b6a5d4e3",
  SKILLS_API_KEY: "skills-key-1a2b3c4d5e6f",
  GITHUB_TOKEN: "ghp_test0123456789abcdef",
  AWS_SECRET_ACCESS_KEY: "aws-secret-5e4d3c2b1a09",
};
const DOTENV_SECRET = "dotenv-secret-77aa88bb99cc";

function assertNoSecret(label: string, text: string) {
  for (const [name, value] of Object.entries(SECRETS)) {
    assert.ok(!text.includes(value), `${label}: ${name} leaked`);
  }
  assert.ok(!text.includes(DOTENV_SECRET), `${label}: the .env value leaked`);
}

Deno.test("no secret from the environment or .env leaks into scripts, JSON, logs or errors", {
  ignore: SKIP_SLOW,
}, async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  await Deno.writeTextFile(
    join(cwd.path, ".env"),
    `DOTENV_TOKEN=${DOTENV_SECRET}\nAGENT_SKILLS=all\n`,
  );
  const llm = await startLlmServer([
    { status: 401, message: "Incorrect API key provided" },
    { status: 401, message: "Incorrect API key provided" },
  ]);
  try {
    const env = { SKILLS_HOME: home.path, ...SECRETS };
    const commands: string[][] = [
      ["list", "--json", "--verbose"],
      ["info", "runner-lab", "--json", "--verbose"],
      ["check", "--json", "--verbose"],
      ["scripts", "--json", "--verbose"],
      ["run", "--verbose", "runner-lab", "env_dump", "--json"],
      ["run", "--verbose", "runner-lab", "fail_json", "--json"],
      ["run", "--verbose", "--env", "OPENAI_API_KEY", "runner-lab", "env_dump", "--json"],
      ["prompt", "--json"],
      ["context", "--json", "--verbose"],
    ];
    for (const args of commands) {
      const result = await runCli(args, { env, cwd: cwd.path });
      assertNoSecret(args.join(" "), result.stdout + result.stderr);
    }
    // The script really ran and saw only its allowlist: the dump has no secret names either.
    const dump = await runCli(["run", "runner-lab", "env_dump", "--json"], { env, cwd: cwd.path });
    assert.equal(dump.code, 0, dump.stderr);
    const seen = JSON.stringify(JSON.parse(dump.stdout));
    for (const name of [...Object.keys(SECRETS), "DOTENV_TOKEN"]) {
      assert.ok(!seen.includes(name), name);
    }

    // A provider that rejects the key: the error names the variable, never its value.
    const chat = await runCli(["chat", "-p", "hi", "--json", "--verbose"], {
      env: { ...env, SKILLS_MODEL: "openai:gpt-test", SKILLS_BASE_URL: llm.baseUrl },
      cwd: cwd.path,
    });
    assert.notEqual(chat.code, 0);
    assert.match(chat.stdout + chat.stderr, /OPENAI_API_KEY/);
    assertNoSecret("chat 401", chat.stdout + chat.stderr);
  } finally {
    await llm.close();
  }
});

Deno.test("an allowlisted variable reaches the script, and only that one", async () => {
  await using home = await tempDir();
  await installRunnerSkill(home.path, "runner-lab");
  const result = await runCli(["run", "runner-lab", "env_dump", "--json"], {
    env: {
      SKILLS_HOME: home.path,
      EXTRA_TOKEN: "allowed-value",
      OPENAI_API_KEY: SECRETS.OPENAI_API_KEY!,
    },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stdout.includes("allowed-value"));
  assert.ok(!result.stdout.includes(SECRETS.OPENAI_API_KEY!));
});

Deno.test("secrets in SKILLS_BASE_URL or echoed by a provider never appear in errors", async () => {
  await using home = await tempDir();
  const llm = await startLlmServer([
    { status: 401, message: `Incorrect API key provided: ${SECRETS.OPENAI_API_KEY}` },
    { status: 500, message: `upstream said: token=${SECRETS.OPENAI_API_KEY}` },
  ]);
  try {
    const url = new URL(llm.baseUrl);
    const cases = [
      // Credentials in the URL's userinfo and in its query.
      `http://user:userinfo-pass-31337@127.0.0.1:1/v1?api-key=query-key-31337`,
      `${llm.baseUrl}?api-key=query-key-31337`,
      `${url.protocol}//${url.host}${url.pathname}?key=query-key-31337`,
    ];
    for (const base of cases) {
      const chat = await runCli(["chat", "-p", "hi", "--json", "--verbose"], {
        env: {
          SKILLS_HOME: home.path,
          SKILLS_MODEL: "openai:gpt-test",
          OPENAI_API_KEY: SECRETS.OPENAI_API_KEY!,
          SKILLS_BASE_URL: base,
        },
      });
      const text = chat.stdout + chat.stderr;
      assert.notEqual(chat.code, 0);
      assert.doesNotMatch(text, /userinfo-pass-31337|query-key-31337/, text);
      assertNoSecret(base, text);
    }
  } finally {
    await llm.close();
  }
});
