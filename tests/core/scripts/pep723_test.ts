import assert from "node:assert/strict";
import { pep723Dependencies } from "../../../src/core/scripts/pep723.ts";

Deno.test("pep723Dependencies() reads the script block's dependency list", () => {
  const block = (body: string) => `#!/usr/bin/env python3\n# /// script\n${body}# ///\nimport os\n`;
  const cases: [string, ReturnType<typeof pep723Dependencies>][] = [
    ["print('no block')\n", "none"],
    [block('# requires-python = ">=3.10"\n'), "none"],
    [block("# dependencies = []\n"), "none"],
    [block('# dependencies = ["httpx"]\n'), ["httpx"]],
    [block("# dependencies = [\n#   \"httpx[http2]>=0.27\",  # comment ]\n#   'rich',\n# ]\n"), [
      "httpx[http2]>=0.27",
      "rich",
    ]],
    [block('# [tool.uv]\n# dependencies = ["not-top-level"]\n'), "none"],
    [block("# dependencies = 42\n"), "unknown"],
    ['# /// script\n# dependencies = ["x"]\nprint("never closed")\n', "unknown"],
  ];
  for (const [source, expected] of cases) {
    assert.deepEqual(pep723Dependencies(source), expected, source);
  }
});
