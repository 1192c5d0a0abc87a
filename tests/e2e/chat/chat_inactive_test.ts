/**
 * `skills chat` with skills installed and none active: the banner says how to activate them,
 * and `/<skill>` of an inactive one says the same instead of "Unknown command".
 */

import assert from "node:assert/strict";
import { withLlmServer } from "../../fixtures/llm_server.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";

Deno.test("skills chat with nothing active says how to activate skills, in the banner and for /<skill>", async () => {
  await using home = await tempDir();
  await withLlmServer([], async (server) => {
    const chat = await runCli(["chat"], {
      env: {
        SKILLS_HOME: home.path,
        SKILLS_MODEL: "openai-compatible:scripted",
        SKILLS_BASE_URL: server.baseUrl,
      },
      stdin: "/kalshi_markets status\n/no-such-thing\n",
    });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stderr, /no active skills\. \/help for commands/);
    assert.match(
      chat.stderr,
      /2 skills are available but none is active: restart with --skills a,b \(or AGENT_SKILLS=a,b; all for every trusted one\)/,
    );
    assert.match(
      chat.stderr,
      /Skill 'kalshi-markets' is installed but not active in this session: restart with --skills kalshi-markets \(or AGENT_SKILLS=kalshi-markets\)\./,
    );
    assert.match(chat.stderr, /Unknown command '\/no-such-thing'/);
    assert.equal(server.requests.length, 0, "nothing was sent to the model");
  });
});
