import assert from "node:assert/strict";
import { pep723Dependencies, requirementsTxtEntries } from "../../../src/core/scripts/pep723.ts";

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

Deno.test("requirementsTxtEntries() lists a requirements file's packages, or nothing when a line is more", () => {
  const cases: [string, string[] | undefined][] = [
    ["", []],
    ["defusedxml>=0.7,<1\n", ["defusedxml>=0.7,<1"]],
    ["# tools\nPillow==9.5.0  # images\n\nrequests[socks] >= 2\r\nnumpy\\\n  >=1.24\n", [
      "Pillow==9.5.0",
      "requests[socks] >= 2",
      "numpy   >=1.24",
    ]],
    ["docx2pdf>=0.1.8  \n", ["docx2pdf>=0.1.8"]],
    // Each of these may install what no line names, or leave a line out: not told.
    ["-r base.txt\nrequests\n", undefined],
    ["--index-url https://example.com/simple\nrequests\n", undefined],
    ["requests==2.32.3 --hash=sha256:abc\n", undefined],
    ["git+https://github.com/psf/requests\n", undefined],
    ["requests @ https://example.com/requests.whl\n", undefined],
    ["./vendor/lib\n", undefined],
    ["pywin32; sys_platform == 'win32'\n", undefined],
  ];
  for (const [text, expected] of cases) {
    assert.deepEqual(requirementsTxtEntries(text), expected, JSON.stringify(text));
  }
});
