import assert from "node:assert/strict";
import { activationHint } from "../../../src/cli/ui/add_ui.ts";

Deno.test("activationHint() names a few skills, and `all` for a collection of hundreds", () => {
  assert.equal(activationHint(["pdf", "docx"]), "Activate with: export AGENT_SKILLS=pdf,docx");
  const many = Array.from({ length: 536 }, (_, i) => `skill-${i}`);
  const hint = activationHint(many);
  assert.equal(
    hint,
    "Activate with: export AGENT_SKILLS=all (every trusted skill; 536 were installed), " +
      "or name the ones you want: export AGENT_SKILLS=skill-0,skill-1",
  );
});
