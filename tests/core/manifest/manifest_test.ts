import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Diagnostic, hasErrors, parseSkillMd } from "../../../src/core/manifest/manifest.ts";
import { utf8 } from "../../helpers/bytes.ts";
import { listedDescription } from "../../../src/core/listing_budget.ts";

const FIXTURES = fileURLToPath(new URL("../../fixtures/manifests", import.meta.url));

function parseFixture(kind: string, name: string, strict = false) {
  const file = join(FIXTURES, kind, name, "SKILL.md");
  return parseSkillMd(Deno.readFileSync(file), file, {
    strict,
    dirName: name,
    cliVersion: "0.1.0",
  });
}

function errors(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => d.level === "error");
}

/** Every broken manifest in the corpus, the message it must produce and the line it names. */
const BROKEN: [string, RegExp, number | undefined][] = [
  ["no-front-matter", /must start with YAML front matter/, 1],
  ["unclosed-front-matter", /not closed by a '---' line/, 1],
  ["missing-fields", /missing required field\(s\): name, description/, 2],
  ["missing-description", /missing required field\(s\): description/, 2],
  ["bad-yaml", /invalid YAML/, 4], // the line that opens the unclosed flow sequence
  ["bad-indent", /invalid YAML/, 7],
  ["list-not-mapping", /must be a YAML mapping, got a list/, 2],
  ["scalar-front-matter", /must be a YAML mapping, got a string/, 2],
  ["duplicate-keys", /invalid YAML: duplicated mapping key/, 4],

  ["bad-name", /'name' may contain only letters/, 2],
  ["bad-toolset", /toolset 'toolsets\/hello.py' must have the form module.path:ClassName/, 4],
  ["bad-env-pattern", /pattern '\*' is invalid/, 4],
  ["too-new", /requires skills 99.0.0 or newer/, 4],
  ["alias-bomb", /too large once YAML aliases are expanded/, undefined],
  ["bom", /byte order mark/, 1],
  ["invalid-utf8", /not valid UTF-8 \(first bad byte on line 3\)/, 3],
];

for (const [name, message, line] of BROKEN) {
  Deno.test(`await parseSkillMd() rejects the '${name}' manifest with a located message`, async () => {
    const parsed = await parseFixture("broken", name);
    assert.equal(parsed.manifest, undefined);
    const found = errors(parsed.diagnostics).find((d) => message.test(d.message));
    assert.ok(found, `expected ${message} in ${JSON.stringify(parsed.diagnostics)}`);
    assert.match(found.file, new RegExp(`${name}/SKILL.md$`));
    if (line !== undefined) assert.equal(found.line, line);
  });
}

Deno.test("a value holding ': ' unquoted is read as its text with a warning, and refused in strict mode with the fix", async () => {
  // Gamaroff's develop-story, tuyenivt's 53 skills: the most common broken front matter.
  const lenient = await parseFixture("broken", "colon-in-description");
  assert.equal(
    lenient.manifest?.description,
    "Automates the story lifecycle: branch, review and merge. Use when a story is ready.",
  );
  assert.equal(lenient.manifest?.license, "MIT", "the lines after it are read as before");
  const warning = lenient.diagnostics.find((d) =>
    d.level === "warning" && /unquoted/.test(d.message)
  );
  assert.equal(warning?.line, 3);
  assert.match(
    warning!.message,
    /^the value of 'description' holds ': ' unquoted, which YAML refuses: read as text here, but Codex and other agents skip the skill — put it in quotes/,
  );
  const strict = await parseFixture("broken", "colon-in-description", true);
  assert.equal(strict.manifest, undefined);
  const error = errors(strict.diagnostics)[0]!;
  assert.equal(error.line, 3);
  assert.match(
    error.message,
    /invalid YAML: .*: the value of 'description' holds ': ' unquoted — put it in quotes \("…"\) or write it as a block \(description: >\)/,
  );
});

Deno.test("a plain value holding ': ' that goes on over deeper lines is read whole, the keys after it kept", async () => {
  // joeblackwaslike's working-with-pieces: a description over several lines, two colons in it.
  const text = [
    "---",
    "name: pieces",
    "description: Use when working with the Pieces ecosystem: Pieces OS",
    "  (local daemon) and the CLI. Invoke for: setting up the MCP server  # why",
    "  or searching saved snippets.",
    "metadata:",
    "  last_updated: 2026-01-01",
    "---",
    "# Pieces",
    "",
  ].join("\n");
  const parsed = await parseSkillMd(utf8(text), "SKILL.md", {});
  assert.equal(
    parsed.manifest?.description,
    "Use when working with the Pieces ecosystem: Pieces OS (local daemon) and the CLI. " +
      "Invoke for: setting up the MCP server or searching saved snippets.",
  );
  assert.deepEqual(parsed.manifest?.metadata, { last_updated: "2026-01-01" });
  assert.deepEqual(
    parsed.diagnostics.map((d) => [d.level, d.line]),
    [["warning", 3]],
  );
});

Deno.test("compatibility as a map of agents is read as text with a warning, and refused in strict mode", async () => {
  // j4flmao/agent-skills: 249 skills write which agents they suit, as a map.
  const text = "---\nname: pbt\ndescription: Property-based testing. Use when fuzzing.\n" +
    "compatibility:\n  claude-code: true\n  codex: true\n---\n# PBT\n";
  const lenient = await parseSkillMd(utf8(text), "SKILL.md", {});
  assert.equal(lenient.manifest?.compatibility, "claude-code: true, codex: true");
  assert.deepEqual(lenient.diagnostics.map((d) => [d.level, d.line]), [["warning", 4]]);
  assert.match(lenient.diagnostics[0]!.message, /'compatibility' is a map of agents/);
  const strict = await parseSkillMd(utf8(text), "SKILL.md", { strict: true });
  assert.equal(strict.manifest, undefined);
  assert.match(
    errors(strict.diagnostics)[0]!.message,
    /'compatibility' must be a string, got a mapping/,
  );
});

Deno.test("await parseSkillMd() tells a file with no front matter at all from a broken one", async () => {
  assert.equal((await parseFixture("broken", "no-front-matter")).noFrontMatter, true);
  for (const name of ["unclosed-front-matter", "bad-yaml", "missing-fields", "bom"]) {
    assert.equal((await parseFixture("broken", name)).noFrontMatter, undefined, name);
  }
});

Deno.test("await parseSkillMd() reports every wrong type at once, each on its own line", async () => {
  const parsed = await parseFixture("broken", "wrong-types");
  const byLine = new Map(errors(parsed.diagnostics).map((d) => [d.line, d.message]));
  assert.match(byLine.get(3) ?? "", /'description' must be a string, got a list/);
  // Published skills write `version: 1.0`: default mode reads it as text (a warning).
  const version = parsed.diagnostics.find((d) => d.line === 4);
  assert.equal(version?.level, "warning");
  assert.match(version?.message ?? "", /'version' should be a string, got a number; read as text/);
  assert.match(byLine.get(5) ?? "", /'toolsets' must be a list of strings/);
  assert.match(byLine.get(6) ?? "", /'scripts' must be a list of strings/);
  assert.match(byLine.get(7) ?? "", /'permissions' must be a mapping/);
});

const THIRD_PARTY = ["pdf-tools", "brand-guidelines", "api-docs-writer"];

for (const name of THIRD_PARTY) {
  Deno.test(`a public-layout third-party skill '${name}' is valid in default and strict mode`, async () => {
    for (const strict of [false, true]) {
      const parsed = await parseFixture("thirdparty", name, strict);
      assert.deepEqual(errors(parsed.diagnostics), [], `strict=${strict}`);
      assert.equal(parsed.manifest?.name, name);
    }
  });
}

Deno.test("'---' inside a value or in the body does not end the front matter", async () => {
  const parsed = await parseFixture("thirdparty", "brand-guidelines");
  assert.match(parsed.manifest?.description ?? "", /--- separated sections/);
  const pdf = await parseFixture("thirdparty", "pdf-tools");
  assert.match(pdf.body, /Horizontal rules like the one above/);
  assert.deepEqual(pdf.manifest?.allowedTools, ["Bash(python3:*)", "Read"]);
  assert.deepEqual(pdf.manifest?.metadata, { author: "example-org", version: "1.2" });
});

Deno.test("a description written as a YAML block scalar has no line break at its end", async () => {
  for (const [style, strict] of [[">", false], ["|", true], [">", true]] as const) {
    const text = [
      "---",
      "name: folded",
      `description: ${style}`,
      "  Orchestrates design workflows by routing work",
      "  in the correct order.",
      "---",
      "Body.",
      "",
    ].join("\n");
    const parsed = await parseSkillMd(utf8(text), "SKILL.md", { strict });
    assert.deepEqual(parsed.diagnostics, [], `${style} strict=${strict}`);
    assert.equal(
      parsed.manifest?.description,
      style === ">"
        ? "Orchestrates design workflows by routing work in the correct order."
        : "Orchestrates design workflows by routing work\nin the correct order.",
    );
  }
});

Deno.test("strict mode applies the Agent Skills spec exactly", async () => {
  const text = [
    "---",
    "name: My_Skill",
    "description: ok",
    "version: 1.0.0",
    "allowed-tools: [Read, Write]",
    "metadata:",
    "  count: 3",
    "---",
    "",
  ].join("\n");
  const strict = await parseSkillMd(utf8(text), "x/SKILL.md", {
    strict: true,
    dirName: "my-skill",
  });
  const messages = errors(strict.diagnostics).map((d) => d.message).join("\n");
  assert.match(messages, /'name' must be 1-64 lower-case letters/);
  assert.match(messages, /must equal the directory name/);
  assert.match(messages, /'version' is not an Agent Skills spec field/);
  assert.match(messages, /'allowed-tools' must be a space-delimited string/);
  assert.match(messages, /'metadata.count' must be a string/);

  const lenient = await parseSkillMd(utf8(text), "x/SKILL.md", { dirName: "my-skill" });
  assert.deepEqual(errors(lenient.diagnostics), []);
  const warnings = lenient.diagnostics.map((d) => d.message).join("\n");
  assert.match(warnings, /not portable/);
  assert.deepEqual(lenient.manifest?.allowedTools, ["Read", "Write"]);
});

Deno.test("default mode accepts every seed field and warns above 500 description characters", async () => {
  const text = [
    "---",
    "name: kalshi-markets",
    `description: ${"d".repeat(600)}`,
    "version: 1.0.0",
    "author: Someone",
    "repository: https://example.com/x.git",
    "license: MIT",
    "min_agent_base_version: 0.1.0",
    "max_agent_base_version: 1.0.0",
    "toolsets:",
    "  - toolsets.hello:HelloExtended",
    "scripts: [status, markets.py]",
    "scripts_ignore: ['*_test.py']",
    "permissions:",
    "  env: [KALSHI_API_KEY, KALSHI_*]",
    "limits: {timeout: 30, max_output: 65536}",
    "---",
    "# Body",
  ].join("\n");
  const parsed = await parseSkillMd(utf8(text), "k/SKILL.md", {
    cliVersion: "0.1.0",
    dirName: "kalshi-markets",
  });
  assert.deepEqual(errors(parsed.diagnostics), []);
  assert.ok(!hasErrors(parsed.diagnostics));
  assert.match(parsed.diagnostics.map((d) => d.message).join(), /600 characters/);
  const m = parsed.manifest!;
  assert.deepEqual(m.scripts, ["status", "markets.py"]);
  assert.deepEqual(m.envPatterns, ["KALSHI_API_KEY", "KALSHI_*"]);
  assert.deepEqual(m.limits, { timeoutSeconds: 30, maxOutputBytes: 65536 });
  assert.deepEqual(m.toolsets, ["toolsets.hello:HelloExtended"]);
});

Deno.test("limits are bounded: timeout in (0, 3600] seconds, max_output a whole 1 KiB-256 MiB", async () => {
  const limitsOf = async (limits: string) => {
    const text = `---\nname: lim\ndescription: d\nlimits: ${limits}\n---\n`;
    const parsed = await parseSkillMd(utf8(text), "lim/SKILL.md", {});
    return { limits: parsed.manifest?.limits, errors: errors(parsed.diagnostics) };
  };
  // Accepted up to 256 MiB, but a manifest gets at most 16 MiB (with a warning).
  assert.deepEqual((await limitsOf("{timeout: 3600, max_output: 268435456}")).limits, {
    timeoutSeconds: 3600,
    maxOutputBytes: 16777216,
  });
  assert.deepEqual((await limitsOf("{max_output: 16777216}")).limits, {
    maxOutputBytes: 16777216,
  });
  assert.deepEqual((await limitsOf("{timeout: 0.5, max_output: 1024}")).limits, {
    timeoutSeconds: 0.5,
    maxOutputBytes: 1024,
  });
  for (const timeout of ["0", "-1", "3600.5", ".inf", ".nan", "'30'"]) {
    const { errors: found } = await limitsOf(`{timeout: ${timeout}}`);
    assert.equal(found.length, 1, timeout);
    assert.equal(found[0]!.line, 4, timeout);
    assert.match(found[0]!.message, /'limits.timeout' must be a number of seconds/, timeout);
  }
  for (const bytes of ["1023", "1024.5", "268435457", ".inf", "true"]) {
    const { errors: found } = await limitsOf(`{max_output: ${bytes}}`);
    assert.equal(found.length, 1, bytes);
    assert.match(found[0]!.message, /'limits.max_output' must be a byte count/, bytes);
  }
});

Deno.test("max_agent_base_version below the CLI version is refused", async () => {
  const text = "---\nname: old\ndescription: d\nmax_agent_base_version: 0.0.1\n---\n";
  const parsed = await parseSkillMd(utf8(text), "o/SKILL.md", { cliVersion: "0.1.0" });
  assert.match(errors(parsed.diagnostics)[0]?.message ?? "", /supports skills up to 0.0.1/);
});

Deno.test("a huge front matter read as a bounded prefix fails fast with a clear message", async () => {
  const huge = "---\nname: big\ndescription: d\npad: " + "x".repeat(50 * 1024 * 1024);
  const prefix = utf8(huge.slice(0, 64 * 1024));
  const started = performance.now();
  const parsed = await parseSkillMd(prefix, "big/SKILL.md", {}, false);
  assert.ok(performance.now() - started < 1000);
  assert.match(errors(parsed.diagnostics)[0]?.message ?? "", /larger than 64 KiB or not closed/);
});

Deno.test("deeply nested YAML is refused without crashing", async () => {
  const nested = "---\nname: deep\ndescription: d\nx: " + "[".repeat(5000) + "]".repeat(5000) +
    "\n---\n";
  const parsed = await parseSkillMd(utf8(nested), "deep/SKILL.md", {});
  assert.equal(parsed.manifest, undefined);
  assert.match(errors(parsed.diagnostics)[0]?.message ?? "", /nest|deep/i);
});

/** What published skills contain: accepted with a warning by default, refused by --strict. */
const LENIENT: [string, RegExp, RegExp][] = [
  [
    "long-description",
    /'description' is 1100 characters long \(max 1024 in the specification; agents may cut it\)/,
    /'description' is 1100 characters long \(max 1024\)/,
  ],
  [
    "non-semver-version",
    /'version' is not a semver version such as 1\.0\.0 \(got 'one point oh'\); kept as text/,
    /'version' is not an Agent Skills spec field/,
  ],
];

for (const [name, warning, strictError] of LENIENT) {
  Deno.test(`the '${name}' manifest loads with a warning by default and fails --strict`, async () => {
    const lenient = await parseFixture("lenient", name);
    assert.deepEqual(errors(lenient.diagnostics), []);
    assert.ok(lenient.manifest, "loaded");
    assert.ok(lenient.diagnostics.some((d) => warning.test(d.message)), JSON.stringify(lenient));
    const strict = await parseFixture("lenient", name, true);
    assert.ok(errors(strict.diagnostics).some((d) => strictError.test(d.message)));
  });
}

Deno.test("default mode reads padded names, scalar licenses and the agents' own fields", async () => {
  const text = [
    "---",
    "name: ' pdf '",
    "description: Fill forms.",
    "license: 2",
    "when_to_use: when a form must be filled",
    "disable-model-invocation: true",
    "argument-hint: '[file]'",
    "model: some-model",
    "context: fork",
    "hooks: {}",
    "---",
    "",
    "Body.",
  ].join("\n");
  const parsed = await parseSkillMd(utf8(text), "SKILL.md", {});
  assert.deepEqual(errors(parsed.diagnostics), []);
  assert.equal(parsed.manifest?.name, "pdf");
  assert.equal(parsed.manifest?.license, "2");
  assert.equal(parsed.manifest?.whenToUse, "when a form must be filled");
  assert.deepEqual(parsed.manifest?.invocation, {
    modelInvocable: false,
    userInvocable: true,
    argumentHint: "[file]",
  });
  const messages = parsed.diagnostics.map((d) => d.message).join("\n");
  assert.match(messages, /'name' has surrounding spaces; read as 'pdf'/);
  assert.match(messages, /'license' should be a string, got a number; read as text/);
  assert.doesNotMatch(messages, /unknown field/, "the agents' fields are known by name");
});

Deno.test("when_to_use is read as text and follows the description in what a model reads", async () => {
  const parse = (when: string) =>
    parseSkillMd(
      utf8(`---\nname: pdf\ndescription: Fills PDF forms\nwhen_to_use: ${when}\n---\n\nBody.\n`),
      "SKILL.md",
      {},
    );
  const listed = await parse("[forms, invoices]");
  assert.equal(listed.manifest?.whenToUse, undefined);
  assert.match(listed.diagnostics.map((d) => d.message).join("\n"), /'when_to_use' must be text/);
  const lower = (await parse("when a form must be filled")).manifest!;
  assert.equal(listedDescription(lower), "Fills PDF forms when a form must be filled");
  const sentence = (await parse("Use when a form must be filled.")).manifest!;
  assert.equal(listedDescription(sentence), "Fills PDF forms. Use when a form must be filled.");
  const none = (await parse("''")).manifest!;
  assert.equal(listedDescription(none), "Fills PDF forms");
});
