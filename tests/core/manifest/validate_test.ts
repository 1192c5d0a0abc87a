import assert from "node:assert/strict";
import {
  anyOf,
  array,
  boolean,
  custom,
  formatIssue,
  formatPath,
  type Infer,
  integer,
  literal,
  matches,
  nullable,
  number,
  object,
  oneOf,
  optional,
  parse,
  record,
  refine,
  string,
  unknownValue,
  validate,
  ValidationError,
  type Validator,
} from "../../../src/core/manifest/validation.ts";

/** The formatted problem, or undefined when the value passes. */
function problem(validator: Validator<unknown>, value: unknown): string | undefined {
  const issue = validator(value);
  return issue === undefined ? undefined : formatIssue(issue);
}

function accepts(validator: Validator<unknown>, values: unknown[]): void {
  for (const value of values) assert.equal(problem(validator, value), undefined, String(value));
}

Deno.test("string() checks the type, length bounds and a named pattern", () => {
  accepts(string(), ["", "x"]);
  assert.equal(problem(string(), 3), "expected string, got number");
  assert.equal(problem(string(), undefined), "expected string, got nothing");
  assert.equal(problem(string(), null), "expected string, got null");
  assert.equal(problem(string(), ["a"]), "expected string, got array");
  const bounded = string({ min: 2, max: 3 });
  accepts(bounded, ["ab", "abc"]);
  assert.equal(problem(bounded, "a"), "expected at least 2 characters, got 1");
  assert.equal(problem(bounded, "abcd"), "expected at most 3 characters, got 4");
  const sha = string({
    pattern: /^([0-9a-f]{40}|[0-9a-f]{64})$/,
    patternName: "a 40- or 64-hex string",
  });
  accepts(sha, ["a".repeat(40), "b".repeat(64)]);
  assert.equal(problem(sha, "abc"), 'expected a 40- or 64-hex string, got "abc"');
  assert.match(problem(string({ pattern: /^x+$/ }), "y") ?? "", /a string matching \/\^x\+\$\//);
  // A long offending value is cut in the message.
  assert.match(problem(sha, "z".repeat(500)) ?? "", /got "z{40}…"$/);
});

Deno.test("number() and integer() refuse other types, non-finite values and out-of-range ones", () => {
  accepts(number(), [0, -1.5, 1e9]);
  assert.equal(problem(number(), "1"), "expected number, got string");
  assert.equal(problem(number(), NaN), "expected a finite number, got NaN");
  assert.equal(problem(number(), Infinity), "expected a finite number, got Infinity");
  const seconds = number({ min: 0, exclusiveMin: true, max: 3600 });
  accepts(seconds, [0.5, 3600]);
  assert.equal(problem(seconds, 0), "expected number > 0, got 0");
  assert.equal(problem(seconds, 3600.5), "expected number <= 3600, got 3600.5");
  assert.equal(problem(number({ max: 1, exclusiveMax: true }), 1), "expected number < 1, got 1");
  assert.equal(problem(number({ min: 2 }), 1), "expected number >= 2, got 1");
  accepts(integer({ min: 1024 }), [1024, 2048]);
  assert.equal(problem(integer(), 1.5), "expected integer, got 1.5");
  assert.equal(problem(integer(), true), "expected integer, got boolean");
  assert.equal(problem(integer({ min: 1024 }), 1023), "expected integer >= 1024, got 1023");
});

Deno.test("boolean(), literal() and oneOf() accept exactly their values", () => {
  accepts(boolean(), [true, false]);
  assert.equal(problem(boolean(), "true"), "expected boolean, got string");
  accepts(literal(1), [1]);
  assert.equal(problem(literal(1), 2), "expected 1, got 2");
  assert.equal(problem(literal(1), "1"), 'expected 1, got "1"');
  const op = oneOf("install", "update", "remove");
  accepts(op, ["install", "remove"]);
  assert.equal(problem(op, "erase"), 'expected "install", "update" or "remove", got "erase"');
  assert.equal(problem(oneOf("git", "local"), {}), 'expected "git" or "local", got object');
  assert.equal(problem(oneOf("a", null), undefined), 'expected "a" or null, got nothing');
});

Deno.test("nullable() and optional() widen a validator and keep its rules", () => {
  const text = nullable(string({ max: 2 }));
  accepts(text, [null, "ab"]);
  assert.equal(problem(text, 1), "expected string or null, got number");
  assert.equal(problem(text, undefined), "expected string or null, got nothing");
  assert.equal(problem(text, "abc"), "expected at most 2 characters, got 3");
  const maybe = optional(integer());
  accepts(maybe, [undefined, 3]);
  assert.equal(problem(maybe, null), "expected integer, got null");
  assert.equal(maybe.optional, true);
});

Deno.test("anyOf() accepts any alternative and names them all, or the closest one", () => {
  const scalar = anyOf(string({ max: 3 }), number(), boolean());
  accepts(scalar, ["abc", 1, false]);
  assert.equal(problem(scalar, {}), "expected string, number or boolean, got object");
  // A string that breaks the string rule is explained by that rule.
  assert.equal(problem(scalar, "abcd"), "expected at most 3 characters, got 4");
});

Deno.test("array() checks every item and its size, naming the index", () => {
  const names = array(string(), { min: 1, max: 2 });
  accepts(names, [["a"], ["a", "b"]]);
  assert.equal(problem(names, "a"), "expected array, got string");
  assert.equal(problem(names, []), "expected at least 1 items, got 0");
  assert.equal(problem(names, ["a", "b", "c"]), "expected at most 2 items, got 3");
  assert.equal(problem(names, ["a", 7]), "1: expected string, got number");
});

Deno.test("object() checks its fields in order, allows optional ones and keeps unknown keys", () => {
  const point = object({ x: number(), y: number(), label: optional(string()) });
  accepts(point, [{ x: 1, y: 2 }, { x: 1, y: 2, label: "p" }, { x: 1, y: 2, extra: [] }]);
  assert.equal(problem(point, [1, 2]), "expected object, got array");
  assert.equal(problem(point, null), "expected object, got null");
  assert.equal(problem(point, { y: "2" }), "x: expected number, got nothing");
  assert.equal(problem(point, { x: 1, y: 2, label: 3 }), "label: expected string, got number");
  // A kept unknown key is left exactly as it was: validators never copy.
  const value = { x: 1, y: 2, future: { a: 1 } };
  const checked = validate(point, value);
  assert.ok(checked.ok);
  assert.equal(checked.value, value);
});

Deno.test("object() with unknownKeys: reject refuses the first key it does not know", () => {
  const strict = object({ a: boolean() }, { unknownKeys: "reject" });
  accepts(strict, [{ a: true }]);
  assert.equal(problem(strict, { a: true, b: 1 }), "b: unknown field");
  // Field checks come first: a wrong field is reported before an unknown key.
  assert.equal(problem(strict, { b: 1 }), "a: expected boolean, got nothing");
});

Deno.test("object() never reads a field from Object.prototype", () => {
  const shape = object({ constructor: string(), toString: optional(string()) });
  assert.equal(problem(shape, {}), "constructor: expected string, got nothing");
  accepts(shape, [{ constructor: "c" }]);
  // A JSON "__proto__" key is an own property like any other.
  accepts(object({ a: number() }), [JSON.parse('{"a":1,"__proto__":{"polluted":true}}')]);
});

Deno.test("record() checks every value, optionally every key, and the number of keys", () => {
  const env = record(string(), { key: string({ pattern: /^[A-Z_]+$/ }), maxKeys: 2 });
  accepts(env, [{}, { A: "1", B_C: "2" }]);
  assert.equal(problem(env, []), "expected object, got array");
  assert.equal(problem(env, { A: 1 }), "A: expected string, got number");
  assert.match(
    problem(env, { "bad key": "x" }) ?? "",
    /^\["bad key"\]: expected a string matching/,
  );
  assert.equal(problem(env, { A: "", B: "", C: "" }), "expected at most 2 keys, got 3");
});

Deno.test("nested problems carry the whole path", () => {
  const registry = object({
    skills: array(object({ name: string(), source: object({ type: oneOf("git", "local") }) })),
  });
  const value = { skills: [{ name: "a", source: { type: "git" } }, { name: "b", source: {} }] };
  const issue = registry(value);
  assert.deepEqual(issue, {
    path: ["skills", 1, "source", "type"],
    message: 'expected "git" or "local", got nothing',
  });
  assert.equal(
    formatIssue(issue!, "registry.json"),
    'registry.json at skills.1.source.type: expected "git" or "local", got nothing',
  );
  // The path is built on the way out of each failure, never shared between calls.
  assert.deepEqual(registry(value)?.path, ["skills", 1, "source", "type"]);
});

Deno.test("formatPath() and formatIssue() read like property accesses", () => {
  assert.equal(formatPath([]), "");
  assert.equal(formatPath([0, "a"]), "0.a");
  assert.equal(formatPath(["metadata", "a b", "allowed-tools"]), 'metadata["a b"].allowed-tools');
  assert.equal(formatIssue({ path: [], message: "m" }), "m");
  assert.equal(formatIssue({ path: [], message: "m" }, "intent.json"), "intent.json: m");
  assert.equal(formatIssue({ path: ["x"], message: "m" }), "x: m");
});

Deno.test("matches(), validate() and parse() are three views of one check", () => {
  const flag = boolean();
  assert.equal(matches(flag, true), true);
  assert.equal(matches(flag, 1), false);
  assert.deepEqual(validate(flag, 1), {
    ok: false,
    issue: { path: [], message: "expected boolean, got number" },
  });
  assert.equal(parse(flag, false), false);
  assert.throws(() => parse(object({ on: flag }), { on: 1 }, "settings"), (error: unknown) => {
    assert.ok(error instanceof ValidationError);
    assert.equal(error.message, "settings at on: expected boolean, got number");
    assert.deepEqual(error.issue.path, ["on"]);
    return true;
  });
});

Deno.test("refine() and custom() add site rules with the same issue shape", () => {
  const even = refine(
    integer(),
    (n) => n % 2 === 0 ? undefined : `expected an even number, got ${n}`,
  );
  accepts(even, [2]);
  assert.equal(problem(even, 3), "expected an even number, got 3");
  assert.equal(problem(even, "2"), "expected integer, got string");
  const nonEmpty = custom<string>(
    "text",
    (v) => typeof v === "string" && v !== "" ? undefined : { path: [], message: "expected text" },
  );
  assert.equal(problem(object({ t: nonEmpty }), { t: "" }), "t: expected text");
  accepts(unknownValue(), [undefined, null, {}, [], 1]);
});

Deno.test("Infer<> gives the checked type (optional fields may be missing)", () => {
  const shape = object({ a: string(), b: optional(integer()), c: nullable(boolean()) });
  const value: Infer<typeof shape> = { a: "x", c: null };
  assert.equal(matches(shape, value), true);
  const strict = object({ a: string() }, { unknownKeys: "reject" });
  const exact: Infer<typeof strict> = { a: "x" };
  // @ts-expect-error: a rejecting object's type has no room for other keys
  exact.other;
  // @ts-expect-error: a required field cannot be left out
  const missing: Infer<typeof shape> = { c: null };
  assert.ok(missing);
});
