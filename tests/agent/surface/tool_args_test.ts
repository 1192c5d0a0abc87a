import assert from "node:assert/strict";
import {
  activateArgs,
  argumentObject,
  readFileArgs,
  scriptHelpArgs,
  scriptListArgs,
  scriptRunArgs,
  skillFilePath,
} from "../../../src/agent/surface/tool_args.ts";

function errorCode(result: { ok: boolean; error?: { error: string } }): string | undefined {
  return result.ok ? undefined : result.error?.error;
}

Deno.test("argumentObject() accepts objects, nothing, and stringified objects only", () => {
  assert.deepEqual(argumentObject(undefined), { ok: true, value: {} });
  assert.deepEqual(argumentObject(null), { ok: true, value: {} });
  assert.deepEqual(argumentObject('{"name":"x"}'), { ok: true, value: { name: "x" } });
  for (const bad of [[1], 3, "not json", "[1]", true]) {
    assert.equal(errorCode(argumentObject(bad)), "invalid_arguments", JSON.stringify(bad));
  }
});

Deno.test("activateArgs() requires a string name", () => {
  assert.deepEqual(activateArgs({ name: "kalshi-markets" }), {
    ok: true,
    value: { name: "kalshi-markets" },
  });
  // A missing argument and a wrong type are both a malformed call, whichever argument it is.
  assert.equal(errorCode(activateArgs({})), "invalid_arguments");
  assert.equal(errorCode(activateArgs({ name: 7 })), "invalid_arguments");
  assert.equal(errorCode(activateArgs({ name: "x".repeat(5000) })), "invalid_name");
});

Deno.test("readFileArgs() requires skill and path", () => {
  assert.deepEqual(readFileArgs({ skill: "a", path: "references/x.md" }), {
    ok: true,
    value: { skill: "a", path: "references/x.md" },
  });
  assert.equal(errorCode(readFileArgs({ skill: "a" })), "invalid_arguments");
  assert.equal(errorCode(readFileArgs({ path: "x" })), "invalid_arguments");
  assert.equal(errorCode(readFileArgs({ skill: "a", path: 3 })), "invalid_arguments");
  assert.equal(errorCode(readFileArgs({ skill: "a", path: "x".repeat(5000) })), "invalid_path");
});

Deno.test("scriptListArgs() makes skill_name optional", () => {
  assert.deepEqual(scriptListArgs({}), { ok: true, value: {} });
  assert.deepEqual(scriptListArgs({ skill_name: "" }), { ok: true, value: {} });
  assert.deepEqual(scriptListArgs({ skill_name: "a" }), { ok: true, value: { skillName: "a" } });
  assert.equal(errorCode(scriptListArgs({ skill_name: ["a"] })), "invalid_arguments");
});

Deno.test("scriptHelpArgs() requires both names", () => {
  assert.deepEqual(scriptHelpArgs({ skill_name: "a", script_name: "status" }), {
    ok: true,
    value: { skillName: "a", scriptName: "status" },
  });
  assert.equal(errorCode(scriptHelpArgs({ skill_name: "a" })), "invalid_arguments");
  assert.equal(errorCode(scriptHelpArgs({ skill_name: 1, script_name: "s" })), "invalid_arguments");
});

Deno.test("scriptRunArgs() defaults json to true and stringifies scalar args", () => {
  assert.deepEqual(scriptRunArgs({ skill_name: "a", script_name: "s" }), {
    ok: true,
    value: { skillName: "a", scriptName: "s", args: [], json: true },
  });
  assert.deepEqual(
    scriptRunArgs({ skill_name: "a", script_name: "s", args: ["--limit", 5, true], json: false }),
    {
      ok: true,
      value: { skillName: "a", scriptName: "s", args: ["--limit", "5", "true"], json: false },
    },
  );
  assert.equal(
    errorCode(scriptRunArgs({ skill_name: "a", script_name: "s", args: "--x" })),
    "invalid_arguments",
  );
  assert.equal(
    errorCode(scriptRunArgs({ skill_name: "a", script_name: "s", args: [{}] })),
    "invalid_arguments",
  );
  assert.equal(
    errorCode(scriptRunArgs({ skill_name: "a", script_name: "s", json: "yes" })),
    "invalid_arguments",
  );
});

Deno.test("scriptRunArgs() names the list item a model got wrong", () => {
  const message = (args: unknown) => {
    const checked = scriptRunArgs({ skill_name: "a", script_name: "s", args });
    return checked.ok ? undefined : checked.error.message;
  };
  assert.equal(
    message(["--limit", 5, { n: 1 }]),
    "Argument 'args' must be a list of strings (args.2: expected string, number or boolean, got object)",
  );
  assert.equal(message("--x"), "Argument 'args' must be a list of strings");
  assert.equal(message(null), undefined);
});

Deno.test("skillFilePath() accepts relative paths and refuses escapes", () => {
  assert.deepEqual(skillFilePath("references/api.md"), {
    ok: true,
    value: ["references", "api.md"],
  });
  assert.deepEqual(skillFilePath("./SKILL.md"), { ok: true, value: ["SKILL.md"] });
  const refused = [
    "/etc/passwd",
    "../x",
    "references/../../x",
    "C:/x",
    "references\\x.md",
    ".env",
    "references/.secret",
    "",
    ".",
    "a\0b",
  ];
  for (const path of refused) assert.equal(errorCode(skillFilePath(path)), "invalid_path", path);
});
