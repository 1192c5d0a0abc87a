import assert from "node:assert/strict";
import { compareSemver, parseSemver } from "../../src/core/manifest/semver.ts";
import { globToRegExp, matchesAnyGlob } from "../../src/core/glob.ts";
import { applyDotenv, parseDotenv } from "../../src/core/policy/dotenv.ts";
import { combineDigest, sha256Hex } from "../../src/core/records/digest.ts";
import {
  looksLikeNetworkFailure,
  missingModuleHint,
  missingNodePackage,
  missingProgram,
  missingProgramHint,
  missingPythonModule,
  newerPythonHint,
  readOnlyHint,
  scriptFailureHint,
  unreachedHostsHint,
} from "../../src/core/scripts/script_hints.ts";
import { colorWanted } from "../../src/core/io.ts";
import { osError } from "../../src/core/errors.ts";

Deno.test("compareSemver() orders releases and pre-releases", () => {
  const order = ["0.1.0-alpha", "0.1.0-alpha.2", "0.1.0-beta", "0.1.0", "0.2.0", "1.0.0", "v1.0.1"];
  for (let i = 0; i + 1 < order.length; i++) {
    assert.ok(
      compareSemver(parseSemver(order[i]!)!, parseSemver(order[i + 1]!)!) < 0,
      `${order[i]} < ${order[i + 1]}`,
    );
  }
  for (const bad of ["1.0", "1", "01.0.0", "a.b.c", ""]) {
    assert.equal(parseSemver(bad), undefined, bad);
  }
});

Deno.test("globToRegExp() supports *, ? and [] and escapes the rest", () => {
  assert.ok(matchesAnyGlob("status_test.py", ["*_test.py"]));
  assert.ok(matchesAnyGlob("_private.py", ["_*.py"]));
  assert.ok(!matchesAnyGlob("status.py", ["*_test.py", "_*.py", "*.bak"]));
  assert.ok(globToRegExp("a?c").test("abc"));
  assert.ok(globToRegExp("[ab]x").test("bx"));
  assert.ok(!globToRegExp("a.c").test("abc"));
  assert.ok(globToRegExp("mcp__*").test("mcp__server__tool"));
});

Deno.test("parseDotenv() reads KEY=value lines and the real environment wins", () => {
  const parsed = parseDotenv(
    "# comment\nA=1\nexport B='two words'\nC=\"x\\ny\"\nD=plain # trailing\n bad line\nE=\n",
  );
  assert.deepEqual(parsed, { A: "1", B: "two words", C: "x\ny", D: "plain", E: "" });
  assert.deepEqual(applyDotenv({ A: "real" }, parsed).env.A, "real");
});

Deno.test("combineDigest() is independent of input order and sensitive to paths and content", async () => {
  const a = { path: "SKILL.md", sha256: "1" };
  const b = { path: "scripts/x.py", sha256: "2" };
  assert.equal(await combineDigest([a, b]), await combineDigest([b, a]));
  assert.notEqual(await combineDigest([a, b]), await combineDigest([a, { ...b, sha256: "3" }]));
  assert.notEqual(
    await combineDigest([a, b]),
    await combineDigest([a, { ...b, path: "scripts/y.py" }]),
  );
  assert.match(await combineDigest([a]), /^sha256:[0-9a-f]{64}$/);
  // A known vector: sha256("abc").
  assert.equal(
    await sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test(".env.example sets nothing until the user uncomments it (no placeholder key dials out)", async () => {
  const text = await Deno.readTextFile(new URL("../../.env.example", import.meta.url));
  assert.deepEqual(parseDotenv(text), {});
});

Deno.test("missingPythonModule() reads the top-level module of a ModuleNotFoundError", () => {
  const traceback = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n' +
    "ModuleNotFoundError: No module named 'pypdf.generic'\n";
  assert.equal(missingPythonModule(traceback), "pypdf");
  assert.equal(missingPythonModule("ImportError: cannot import name 'x' from 'y'"), undefined);
  assert.match(
    missingModuleHint(traceback) ?? "",
    /Python module 'pypdf'.*Install uv.*python3 -m pip install.*tell its author/s,
  );
  assert.equal(missingModuleHint("ValueError: nope"), undefined);
  assert.equal(scriptFailureHint(traceback), missingModuleHint(traceback));
});

Deno.test("missingModuleHint() tells a module of the skill's own package from a package to install", () => {
  // trailofbits' interpreting-culture-index, its package's module run as a file.
  const own = "Traceback (most recent call last):\n" +
    '  File "/h/.cache/run/ci-ab12/scripts/culture_index/extract.py", line 20, in <module>\n' +
    "    from culture_index.models import ExtractionResult\n" +
    "ModuleNotFoundError: No module named 'culture_index'\n";
  const hint = missingModuleHint(own)!;
  assert.match(hint, /'culture_index' is a package the skill ships/);
  assert.match(hint, /SKILL\.md names/);
  assert.doesNotMatch(hint, /pip install|uv/);
  // The same module missing for a script beside the package, or a file merely named like it,
  // is a package to install.
  for (
    const file of ["/h/.cache/run/ci-ab12/scripts/extract_pdf.py", "/w/culture_index.py"]
  ) {
    const other = own.replace(/File "[^"]+"/, `File "${file}"`);
    assert.match(missingModuleHint(other)!, /python3 -m pip install/, file);
  }
  // A frame of the standard library's before the failing import names no package of the skill.
  const stdlib = "Traceback (most recent call last):\n" +
    '  File "/usr/lib/python3.11/runpy.py", line 198, in _run_module_as_main\n' +
    '  File "/h/.cache/run/x-ab12/scripts/run.py", line 3, in <module>\n' +
    "ModuleNotFoundError: No module named 'lib'\n";
  assert.match(missingModuleHint(stdlib)!, /python3 -m pip install/);
});

Deno.test("newerPythonHint() speaks of a newer Python for the skill's own file that does not parse, not a library's", () => {
  const own = '  File "/h/.cache/run/ui-ux-pro-max-4829ff12/scripts/design_system.py", line 437\n' +
    "    lines.append(f\"- {anti_patterns.replace(' + ', '\\n- ')}\")\n" +
    "                                                            ^\n" +
    "SyntaxError: f-string expression part cannot include a backslash\n";
  assert.match(newerPythonHint(own)!, /newer Python.*SKILLS_PYTHON.*requires-python/s);
  assert.equal(scriptFailureHint(own), newerPythonHint(own));
  const library = 'Traceback (most recent call last):\n  File "/h/.cache/run/s-1/scripts/a.py", ' +
    'line 1, in <module>\n    import odd\n  File "/usr/lib/python3/dist-packages/odd.py", line 3\n' +
    "    x = = 1\n      ^\nSyntaxError: invalid syntax\n";
  assert.equal(newerPythonHint(library), undefined);
  assert.equal(newerPythonHint("ValueError: not a syntax error\n"), undefined);
});

Deno.test("missingNodePackage() names the npm package a Node script could not import, never a path", () => {
  const esm =
    "node:internal/modules/esm/resolve:873\n  throw new ERR_MODULE_NOT_FOUND(packageName, " +
    "fileURLToPath(base), null);\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'puppeteer' " +
    "imported from /h/.cache/run/chrome-devtools-00ee/scripts/lib/browser.js\n";
  assert.equal(missingNodePackage(esm), "puppeteer");
  assert.match(scriptFailureHint(esm)!, /npm package 'puppeteer'.*installs no npm packages/);
  const cjs = "Error: Cannot find module '@scope/tool/dist/index.js'\nRequire stack:\n- /s/x.js\n";
  assert.equal(missingNodePackage(cjs), "@scope/tool");
  assert.equal(missingNodePackage("Error: Cannot find module 'lodash/fp'\n"), "lodash");
  const deno = 'error: Could not resolve "@modelcontextprotocol/sdk/client/stdio.js", but found ' +
    "it in a package.json. Deno expects the node_modules/ directory to be up to date.";
  assert.equal(missingNodePackage(deno), "@modelcontextprotocol/sdk");
  // The skill's own missing file, or a built-in: nothing to install.
  assert.equal(missingNodePackage("Error: Cannot find module './lib/helpers'\n"), undefined);
  assert.equal(missingNodePackage("Error: Cannot find module '/abs/x.js'\n"), undefined);
  assert.equal(missingNodePackage("Error: Cannot find module 'node:sqlite'\n"), undefined);
  assert.equal(scriptFailureHint("Error: Cannot find module './lib/helpers'\n"), undefined);
  // A hostile script's escape sequence is never repeated in a hint of ours.
  const hostile = "Error: Cannot find package '\x1b]0;pwned\x07evil' imported from /s/x.js\n";
  assert.equal(missingNodePackage(hostile), undefined);
  assert.equal(scriptFailureHint(hostile), undefined);
});

Deno.test("missingProgram() reads the program a script could not start, in each language's words", () => {
  const python = "Traceback (most recent call last):\n" +
    '  File "/usr/lib/python3.11/subprocess.py", line 1901, in _execute_child\n' +
    "FileNotFoundError: [Errno 2] No such file or directory: 'gh'\n";
  assert.equal(missingProgram(python), "gh");
  assert.equal(missingProgram("./run.sh: line 4: codeql: command not found\n"), "codeql");
  assert.equal(missingProgram("sh: 1: soffice: not found\n"), "soffice");
  assert.equal(missingProgram("bash: gh: command not found\n"), "gh");
  assert.equal(missingProgram("/s/x.sh: 3: yara: not found\n"), "yara");
  assert.equal(missingProgram("error: config: not found\n"), undefined);
  assert.equal(missingProgram("Error: spawn \x1b[2Jgh ENOENT\n"), undefined, "no escapes repeated");
  assert.equal(missingProgram("Error: spawn semgrep ENOENT\n    at ChildProcess"), "semgrep");
  assert.equal(
    missingProgram("error: Uncaught NotFound: Failed to spawn 'yara': entity not found"),
    "yara",
  );
  // A data file the script could not open is no program.
  assert.equal(
    missingProgram(
      'Traceback (most recent call last):\n  File "x.py", line 2, in <module>\n' +
        "FileNotFoundError: [Errno 2] No such file or directory: 'data.csv'\n",
    ),
    undefined,
  );
  assert.match(missingProgramHint("gh"), /`gh`, which is not installed on this machine/);
  assert.match(missingProgramHint("gh", "/home/u/.local/bin/gh", true), /sandbox hides/);
  assert.doesNotMatch(missingProgramHint("gh", "/usr/bin/gh"), /sandbox hides|not installed/);
});

Deno.test("readOnlyHint() explains a write into the skill, not every permission error", () => {
  const erofs = "OSError: [Errno 30] Read-only file system: 'out.json'";
  const relative = "PermissionError: [Errno 13] Permission denied: 'cache/out.json'";
  const copy = "PermissionError: [Errno 13] Permission denied: '/h/.cache/run/x-ab/scripts/o'";
  for (const stderr of [erofs, relative, copy]) {
    assert.match(readOnlyHint(stderr) ?? "", /SKILLS_WORK_DIR/, stderr);
    assert.equal(scriptFailureHint(stderr), readOnlyHint(stderr));
  }
  // EROFS is the sandbox's answer; EACCES in the workspace is the file's own mode (a
  // template copied read-only, as docx's comment.py does): no blame on the sandbox, no --write.
  assert.match(readOnlyHint(erofs)!, /sandbox refused the write.*--write PATH/s);
  const mode = readOnlyHint(
    "PermissionError: [Errno 13] Permission denied: 'unpacked/word/comments.xml'",
  )!;
  assert.match(mode, /'unpacked\/word\/comments\.xml' does not let the script write it/);
  assert.match(mode, /chmod u\+w/);
  assert.doesNotMatch(mode, /sandbox|--write/);
  assert.equal(
    readOnlyHint("PermissionError: [Errno 13] Permission denied: '/etc/shadow'"),
    undefined,
  );
  assert.equal(readOnlyHint("ValueError: nope"), undefined);
});

Deno.test("colorWanted(): only a non-empty NO_COLOR or --no-color turns colour off", () => {
  assert.equal(colorWanted({}, ["list"], true), true);
  assert.equal(colorWanted({ NO_COLOR: "" }, ["list"], true), true, "empty NO_COLOR is unset");
  assert.equal(colorWanted({ NO_COLOR: "1" }, ["list"], true), false);
  assert.equal(colorWanted({}, ["list", "--no-color"], true), false);
  assert.equal(colorWanted({}, ["list"], false), false, "never on a pipe");
});

Deno.test("osError() turns a full disk or a read-only place into io_error with the path", () => {
  const full = osError(new Error("No space left on device (os error 28): writefile '/h/x'"));
  assert.equal(full?.code, "io_error");
  assert.equal(full?.message, "Cannot write /h/x: the disk is full");
  const ro = osError(new Error("Read-only file system (os error 30): mkdir '/h/.cache'"));
  assert.equal(ro?.message, "Cannot create the directory /h/.cache: the file system is read-only");
  assert.match(
    osError(new Error("No space left on device (os error 28)"))!.message,
    /disk is full/,
  );
  assert.equal(osError(new Error("Connection refused (os error 111)")), undefined);
  assert.equal(osError("text"), undefined);
});

Deno.test("unreachedHostsHint() names the services a script's URLs reach, never an example or this machine", () => {
  const script = [
    'DEPLOY_ENDPOINT="https://claude-skills-deploy.vercel.com/api/deploy"',
    'curl -s "$DEPLOY_ENDPOINT" https://api.vendor.io:8443/v1 https://claude-skills-deploy.vercel.com/x',
    "# see http://localhost:3000, https://example.com/x, http://127.0.0.1:9/ and https://docs.test",
  ].join("\n");
  assert.equal(
    unreachedHostsHint("deploy-to-vercel", "resources/deploy.sh", script),
    "'deploy-to-vercel' declares no network access, so the sandbox gave this run none, and " +
      "resources/deploy.sh names claude-skills-deploy.vercel.com, api.vendor.io:8443. If the " +
      "script should reach them, run it with --allow-net claude-skills-deploy.vercel.com " +
      "--allow-net api.vendor.io:8443 or set " +
      "SKILLS_ALLOW_NET=claude-skills-deploy.vercel.com,api.vendor.io:8443.",
  );
  assert.equal(unreachedHostsHint("x", "scripts/x.py", "print('no url here')"), undefined);
  assert.equal(unreachedHostsHint("x", "scripts/x.py", "http://localhost:8080/"), undefined);
});

Deno.test("looksLikeNetworkFailure(): curl's and wget's exit codes or a connection error, never an argument error", () => {
  assert.equal(looksLikeNetworkFailure(6, ""), true); // curl -s: could not resolve host
  assert.equal(
    looksLikeNetworkFailure(1, "urllib.error.URLError: <urlopen error [Errno -3]>"),
    true,
  );
  assert.equal(looksLikeNetworkFailure(1, "TypeError: fetch failed"), true);
  assert.equal(looksLikeNetworkFailure(1, "publish.sh: line 7: $2: unbound variable"), false);
  assert.equal(looksLikeNetworkFailure(2, "usage: upload.py <document>"), false);
  // One pattern for both hints: what looks like a failed connection gets the general one too.
  for (const stderr of ["curl: (6) Could not resolve host: x.io", "socket.gaierror: [Errno -3]"]) {
    assert.match(scriptFailureHint(stderr)!, /The sandbox gives scripts no network/, stderr);
  }
});
