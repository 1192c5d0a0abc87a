/**
 * src/cli/command_index.ts is generated from the command specs: start-up reads the names,
 * aliases and summaries there instead of loading every spec (and its help prose). This
 * test fails when the file is stale; `UPDATE_SNAPSHOTS=1` rewrites it.
 */

import { join } from "node:path";
import { COMMAND_INDEX } from "../../src/cli/command_index.ts";
import type { CommandSpec } from "../../src/cli/spec.ts";
import { SPECS } from "../../src/cli/specs/all.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { assertSnapshot } from "../helpers/snapshot.ts";
import assert from "node:assert/strict";

export function renderCommandIndex(specs: readonly CommandSpec[]): string {
  const rows = specs.map((s) =>
    `  {\n    name: ${JSON.stringify(s.name)},\n    aliases: ${
      JSON.stringify(s.aliases ?? []).replaceAll(",", ", ")
    },\n    summary: ${JSON.stringify(s.summary)},\n  },`
  );
  return `// Generated from the command specs (src/cli/specs/) by tests/cli/command_index_test.ts:
// do not edit. After changing a command's name, aliases or summary, regenerate it with
//   UPDATE_SNAPSHOTS=1 deno test -A tests/cli/command_index_test.ts

import type { CommandIndexEntry } from "./command.ts";

/** What start-up needs of every command, in the order of \`skills --help\`. */
export const COMMAND_INDEX: readonly CommandIndexEntry[] = [
${rows.join("\n")}
];
`;
}

Deno.test("command_index.ts is what the specs say", async () => {
  await assertSnapshot(join(REPO_ROOT, "src/cli/command_index.ts"), renderCommandIndex(SPECS));
  assert.deepEqual(
    COMMAND_INDEX,
    SPECS.map((s) => ({ name: s.name, aliases: s.aliases ?? [], summary: s.summary })),
  );
});
