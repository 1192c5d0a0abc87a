import assert from "node:assert/strict";
import {
  canonicalPublishedName,
  canonicalScriptName,
  canonicalSkillName,
  publishedSkillKey,
  qualifiedToolName,
  quoteName,
  scriptDisplayName,
  skillNameProblem,
} from "../../src/core/names.ts";
import { SkillError } from "../../src/core/errors.ts";

Deno.test("canonicalSkillName() lower-cases and maps '_' to '-'", () => {
  const table: [string, string][] = [
    ["my-skill-123", "my-skill-123"],
    ["My_Skill_123", "my-skill-123"],
    ["Kalshi-Markets", "kalshi-markets"],
    ["kalshi_markets", "kalshi-markets"],
    ["A", "a"],
    ["x".repeat(64), "x".repeat(64)],
  ];
  for (const [input, expected] of table) assert.equal(canonicalSkillName(input), expected, input);
});

Deno.test("canonicalSkillName() rejects hostile names with invalid_name", () => {
  const hostile = [
    "../../../etc/passwd",
    "/abs",
    "/absolute/path",
    ".hidden",
    ".",
    "..",
    "~",
    "__pycache__",
    "__PYCACHE__",
    "skill name with spaces",
    "nul\0byte",
    "tab\tname",
    "new\nline",
    "x".repeat(65),
    "",
    "a/b",
    "a\\b",
    "C:",
    "con",
    "LPT1",
    "café",
    "ѕkill", // Cyrillic look-alike
    "---",
  ];
  for (const name of hostile) {
    assert.throws(
      () => canonicalSkillName(name),
      (e: unknown) => e instanceof SkillError && e.code === "invalid_name",
      JSON.stringify(name),
    );
  }
});

Deno.test("invalid_name messages never echo raw control characters", () => {
  try {
    canonicalSkillName("evil\u001b[31mred\0");
    assert.fail("expected an error");
  } catch (e) {
    assert.ok(e instanceof SkillError);
    assert.ok(![...e.message].some((ch) => ch.charCodeAt(0) < 0x20), e.message);
    assert.match(e.message, /^Invalid skill name: '/);
  }
});

Deno.test("skillNameProblem() explains why a name is refused", () => {
  assert.equal(skillNameProblem("ok-name"), undefined);
  assert.equal(skillNameProblem(42), "must be a string");
  assert.equal(skillNameProblem(".."), "is reserved");
  assert.equal(skillNameProblem("x".repeat(65)), "is longer than 64 characters");
});

Deno.test("canonicalScriptName() asks for a script by name, or by file when a script extension is given", () => {
  for (const input of ["Status", "status", "STATUS"]) {
    assert.equal(canonicalScriptName(input), "status", input);
  }
  for (const input of ["status.py", "STATUS.PY", "Status.py"]) {
    assert.equal(canonicalScriptName(input), "status.py", input);
  }
  assert.equal(canonicalScriptName("Build.SH"), "build.sh");
  assert.equal(canonicalScriptName("render.mjs"), "render.mjs");
  assert.equal(canonicalScriptName("series_list"), "series_list");
  // Nested scripts by their path, and files elsewhere by theirs from the skill root.
  assert.equal(canonicalScriptName("scripts/Office/unpack.py"), "scripts/office/unpack.py");
  assert.equal(canonicalScriptName("office/unpack"), "office/unpack");
  assert.equal(canonicalScriptName("resources/deploy.sh"), "resources/deploy.sh");
  // `./` is the skill root, as instructions write a script there (`./find-polluter.sh`).
  assert.equal(canonicalScriptName("./Find-Polluter.sh"), "find-polluter.sh");
  assert.equal(canonicalScriptName("./status"), "status");
  for (
    const bad of [
      "../status",
      "status.sh/..",
      "",
      ".py",
      "a b",
      "x.tar",
      "./",
      "./../status",
      "/etc/passwd",
      "a//b",
      "scripts/.hidden.py",
      "scripts/_private.py",
      "a/b/c/d/e/f/g.py",
    ]
  ) {
    assert.throws(() => canonicalScriptName(bad), SkillError, bad);
  }
});

Deno.test("scriptDisplayName() and qualifiedToolName() name things for users and models", () => {
  assert.equal(scriptDisplayName("status.py"), "status");
  assert.equal(scriptDisplayName("build.sh"), "build");
  assert.equal(scriptDisplayName("render.test.ts"), "render.test");
  assert.equal(
    qualifiedToolName("hello-extended", "greet_in_language"),
    "hello_extended__greet_in_language",
  );
});

Deno.test("publishedSkillKey() derives the installed name from names as published", () => {
  const cases: [string, string | undefined][] = [
    ["pdf", "pdf"],
    ["Kalshi_Markets", "kalshi-markets"],
    // Valid names keep their canonical form: nothing installed changes its name.
    ["my__skill", "my--skill"],
    ["Ahrefs Automation", "ahrefs-automation"],
    ["-draft-notes", "draft-notes"],
    ["  Spaced   Out _ Name ", "spaced-out-name"],
    ["_private", "private"],
    ["Customer.io Automation", "customer-io-automation"],
    ["...", undefined],
    ["v1.2 notes", "v1-2-notes"],
    // Display names with ASCII punctuation (HoangNguyen0403/agent-skills-standard).
    ["Next.js Internationalization (i18n)", "next-js-internationalization-i18n"],
    ["Android Resources & Localization", "android-resources-localization"],
    ["Flutter Layer-based Clean Architecture + DDD", "flutter-layer-based-clean-architecture-ddd"],
    ["C++ Tips: 100% Coverage!", "c-tips-100-coverage"],
    // A path separator or a control character is never read away.
    ["Flutter CI/CD", undefined],
    ["a\\b", undefined],
    ["evil\u001b[31m", undefined],
    ["a/b", undefined],
    ["../etc", undefined],
    ["Café Tools", undefined],
    ["-", undefined],
    ["__pycache__", undefined],
    ["con", undefined],
    ["x".repeat(65), undefined],
  ];
  for (const [input, expected] of cases) assert.equal(publishedSkillKey(input), expected, input);
  assert.equal(canonicalPublishedName("Ahrefs Automation"), "ahrefs-automation");
  assert.throws(() => canonicalPublishedName("a/b"), /Invalid skill name: 'a\/b'/);
});

Deno.test("quoteName() shows a long name's start and end, and escapes control characters", () => {
  const source = `file:///tmp/${"deep/".repeat(20)}base.git`;
  const shown = quoteName(source);
  assert.equal(shown.length, 80);
  assert.ok(shown.startsWith("file:///tmp/deep/"), shown);
  assert.ok(shown.endsWith("/deep/base.git"), shown);
  assert.ok(shown.includes("…"));
  assert.equal(quoteName("short-name"), "short-name");
  assert.equal(quoteName("a\u001b[31mb"), "a\\u001b[31mb");
});
