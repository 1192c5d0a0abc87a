/**
 * `skills eval` on a terminal: it says how many model requests it will make and asks before
 * sending any; the progress line counts the runs; without --with, the active skills are the
 * competition.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { PtySession } from "../../helpers/pty.ts";
import { cliArgv } from "../../helpers/cli.ts";
import { withEvalFixture } from "../../helpers/eval_fixture.ts";

const linux = Deno.build.os !== "linux";

Deno.test({
  name: "skills eval on a terminal asks before spending, then shows its progress",
  ignore: linux,
  fn: async () => {
    await withEvalFixture(async (f) => {
      const env = {
        SKILLS_HOME: f.home,
        SKILLS_MODEL: "openai:gpt-eval",
        OPENAI_API_KEY: "sk-test",
        SKILLS_BASE_URL: f.llm.baseUrl,
        // the active skills stand in for --with
        AGENT_SKILLS: "kalshi-markets",
      };
      const argv = cliArgv(["eval", "./report-writer", "--triggers", "--runs", "1"]);
      const declined = new PtySession(argv, env, f.root);
      await declined.waitFor(/This eval sends 20 model requests[^\n]*\n[^\n]*Continue\?/);
      await declined.type("n\n");
      assert.equal((await declined.close()).code, 3);
      assert.equal(f.llm.requests.length, 0);
      const pty = new PtySession(argv, env, f.root);
      await pty.waitFor(/Continue\?/);
      await pty.type("y\n");
      await pty.waitFor(/trigger runs 20\/20/);
      await pty.waitFor(/^all\s+20\s+17\/20/m);
      assert.equal((await pty.close()).code, 0, pty.output);
      assert.equal(f.llm.requests.length, 20);
      assert.ok(f.llm.requests.every((r) => r.text.includes("kalshi-markets")));
      const reports = [...Deno.readDirSync(join(f.root, "report-writer-workspace", "triggers"))];
      assert.equal(reports.length, 1);
    });
  },
});
