/**
 * The one validation kit for untrusted records (DESIGN §4.7): registry and intent JSON,
 * front matter, tool-call arguments from a model, toolset host replies.
 *
 * A validator is a plain function that returns `undefined` when the value has the expected
 * shape and the first problem otherwise, as one {@link Issue}: where (`["skills", 3,
 * "commit_sha"]`) and what (`expected string or null, got number`). Validators never copy
 * or transform: a value that passes is used as it is, typed by the validator. Nothing is
 * allocated on success and a path is built only on the way out of a failure, which keeps
 * the registry read (every `skills list` and `skills run`) as fast as the hand-written
 * checks it replaced. Pure and dependency-free on purpose: it is on start-up paths, where
 * a schema library costs 10-20 ms.
 */

type PathSegment = string | number;

/** The one error shape: a location inside the checked value, and what is wrong there. */
interface Issue {
  /** Keys and indices from the checked value down to the problem ([] = the value itself). */
  path: PathSegment[];
  message: string;
}

declare const OUTPUT: unique symbol;

/** Checks a value: `undefined` when it is a `T`, else the first problem. */
export interface Validator<T> {
  (value: unknown): Issue | undefined;
  /** What it accepts, for messages that combine validators (`string or null`). */
  readonly expected: string;
  /** Set by {@link optional}: an object may omit the field. */
  readonly optional?: true;
  /** Type-level only: the type a passing value has. */
  readonly [OUTPUT]?: T;
}

/** The type a validator accepts. */
export type Infer<V> = V extends Validator<infer T> ? T : never;

type Result<T> = { ok: true; value: T } | { ok: false; issue: Issue };

/** An {@link Issue} thrown; its message names what was checked (see {@link formatIssue}). */
export class ValidationError extends Error {
  readonly issue: Issue;
  constructor(issue: Issue, subject?: string) {
    super(formatIssue(issue, subject));
    this.name = "ValidationError";
    this.issue = issue;
  }
}

/** Whether `value` passes `validator` (a type guard). */
export function matches<T>(validator: Validator<T>, value: unknown): value is T {
  return validator(value) === undefined;
}

/** Checks `value` and returns it typed, or the problem. */
export function validate<T>(validator: Validator<T>, value: unknown): Result<T> {
  const issue = validator(value);
  return issue === undefined ? { ok: true, value: value as T } : { ok: false, issue };
}

/** Checks `value` and returns it typed; throws a {@link ValidationError} naming `subject`. */
export function parse<T>(validator: Validator<T>, value: unknown, subject?: string): T {
  const issue = validator(value);
  if (issue !== undefined) throw new ValidationError(issue, subject);
  return value as T;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** `skills.3.commit_sha`; keys that are not plain words are quoted: `metadata["a b"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number" || IDENTIFIER.test(segment)) {
      out += out === "" ? String(segment) : `.${segment}`;
    } else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/**
 * One line for an issue: `skills.3.commit_sha: expected string or null, got number`, or
 * with what was checked, `registry.json at skills.3.commit_sha: ...` (`registry.json: ...`
 * for a problem with the whole value).
 */
export function formatIssue(issue: Issue, subject?: string): string {
  const where = formatPath(issue.path);
  if (subject === undefined) return where === "" ? issue.message : `${where}: ${issue.message}`;
  return where === "" ? `${subject}: ${issue.message}` : `${subject} at ${where}: ${issue.message}`;
}

/** The JSON-ish kind of a value, for messages: `nothing` for undefined. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  return Array.isArray(value) ? "array" : typeof value;
}

/** A value shown in a message: short scalars as JSON, anything else by its kind. */
function shown(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  return kindOf(value);
}

function mismatchMessage(expected: string, value: unknown): string {
  return `expected ${expected}, got ${kindOf(value)}`;
}

function issue(message: string): Issue {
  return { path: [], message };
}

/**
 * A validator from a check function (for site-specific rules the primitives lack). The
 * function itself becomes the validator (no wrapper call on hot paths): pass a fresh one.
 */
export function custom<T>(
  expected: string,
  check: (value: unknown) => Issue | undefined,
): Validator<T> {
  return Object.assign(check, { expected }) as Validator<T>;
}

/** Adds a rule to a validator: `test` returns a message when the (typed) value is wrong. */
export function refine<T>(
  validator: Validator<T>,
  test: (value: T) => string | undefined,
): Validator<T> {
  return custom<T>(validator.expected, (value) => {
    const problem = validator(value);
    if (problem !== undefined) return problem;
    const message = test(value as T);
    return message === undefined ? undefined : issue(message);
  });
}

/** "a", "b" or "c". */
function orList(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? "nothing")
    : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

// --- primitives ----------------------------------------------------------------------------

interface StringOptions {
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** Says what the pattern means, e.g. `a 40- or 64-hex string`. */
  patternName?: string;
}

export function string(options: StringOptions = {}): Validator<string> {
  const { min, max, pattern } = options;
  if (min === undefined && max === undefined && pattern === undefined) {
    // The common case, on the registry's hot path: one typeof.
    return custom<string>(
      "string",
      (value) => typeof value === "string" ? undefined : issue(mismatchMessage("string", value)),
    );
  }
  const patternName = options.patternName ?? `a string matching ${pattern}`;
  return custom<string>("string", (value) => {
    if (typeof value !== "string") return issue(mismatchMessage("string", value));
    if (min !== undefined && value.length < min) {
      return issue(`expected at least ${min} characters, got ${value.length}`);
    }
    if (max !== undefined && value.length > max) {
      return issue(`expected at most ${max} characters, got ${value.length}`);
    }
    if (pattern !== undefined && !pattern.test(value)) {
      return issue(`expected ${patternName}, got ${shown(value)}`);
    }
    return undefined;
  });
}

interface NumberOptions {
  min?: number;
  max?: number;
  /** `min` itself is refused (`0 < x`). */
  exclusiveMin?: boolean;
  /** `max` itself is refused (`x < 1`). */
  exclusiveMax?: boolean;
}

function numeric(integer: boolean, options: NumberOptions): Validator<number> {
  const { min, max, exclusiveMin = false, exclusiveMax = false } = options;
  const expected = integer ? "integer" : "number";
  return custom<number>(expected, (value) => {
    if (typeof value !== "number") return issue(mismatchMessage(expected, value));
    // NaN and the infinities come from YAML (.nan, .inf), never from a real count.
    if (!Number.isFinite(value)) return issue(`expected a finite ${expected}, got ${value}`);
    if (integer && !Number.isInteger(value)) return issue(`expected integer, got ${value}`);
    if (min !== undefined && (exclusiveMin ? value <= min : value < min)) {
      return issue(`expected ${expected} ${exclusiveMin ? ">" : ">="} ${min}, got ${value}`);
    }
    if (max !== undefined && (exclusiveMax ? value >= max : value > max)) {
      return issue(`expected ${expected} ${exclusiveMax ? "<" : "<="} ${max}, got ${value}`);
    }
    return undefined;
  });
}

/** A finite number within optional bounds. */
export function number(options: NumberOptions = {}): Validator<number> {
  return numeric(false, options);
}

/** A finite whole number within optional bounds. */
export function integer(options: NumberOptions = {}): Validator<number> {
  return numeric(true, options);
}

export function boolean(): Validator<boolean> {
  return custom<boolean>(
    "boolean",
    (value) => typeof value === "boolean" ? undefined : issue(mismatchMessage("boolean", value)),
  );
}

/** Anything at all (a field whose content is someone else's business). */
export function unknownValue(): Validator<unknown> {
  return custom<unknown>("anything", () => undefined);
}

type Literal = string | number | boolean | null;

/** Exactly one of the given values: `oneOf("git", "local")`. */
export function oneOf<const L extends readonly Literal[]>(...values: L): Validator<L[number]> {
  const expected = orList(values.map((v) => JSON.stringify(v)));
  return custom<L[number]>(
    expected,
    (value) =>
      values.includes(value as Literal)
        ? undefined
        : issue(`expected ${expected}, got ${shown(value)}`),
  );
}

/** Exactly `value`: `literal(1)`. */
export function literal<const L extends Literal>(value: L): Validator<L> {
  return oneOf(value);
}

/** Also accepts null: `expected string or null, got number`. */
export function nullable<T>(validator: Validator<T>): Validator<T | null> {
  const expected = `${validator.expected} or null`;
  return custom<T | null>(expected, (value) => {
    if (value === null) return undefined;
    const problem = validator(value);
    // A wrong type is reported with both choices; a broken rule (too long, ...) as it is.
    if (
      problem !== undefined && problem.path.length === 0 &&
      problem.message === mismatchMessage(validator.expected, value)
    ) return issue(mismatchMessage(expected, value));
    return problem;
  });
}

/** Also accepts undefined; as an object field, the key may be missing. */
export function optional<T>(validator: Validator<T>): Validator<T | undefined> & {
  readonly optional: true;
} {
  const check = custom<T | undefined>(
    validator.expected,
    (value) => value === undefined ? undefined : validator(value),
  );
  return Object.assign(check, { optional: true as const });
}

/** The first validator that accepts wins: `anyOf(string(), number())`. */
export function anyOf<const V extends readonly Validator<unknown>[]>(
  ...validators: V
): Validator<Infer<V[number]>> {
  const expected = orList(validators.map((v) => v.expected));
  return custom<Infer<V[number]>>(expected, (value) => {
    let closest: Issue | undefined;
    for (const validator of validators) {
      const problem = validator(value);
      if (problem === undefined) return undefined;
      // A choice of the right type that broke one of its rules explains more than "expected".
      if (
        problem.path.length > 0 || problem.message !== mismatchMessage(validator.expected, value)
      ) {
        closest ??= problem;
      }
    }
    return closest ?? issue(mismatchMessage(expected, value));
  });
}

/** A problem found under `segment`: its path gains the segment (only ever on failure). */
function under(segment: PathSegment, problem: Issue): Issue {
  problem.path.unshift(segment);
  return problem;
}

interface ArrayOptions {
  min?: number;
  max?: number;
}

/** A list whose every item passes `item`. */
export function array<T>(item: Validator<T>, options: ArrayOptions = {}): Validator<T[]> {
  const { min, max } = options;
  return custom<T[]>("array", (value) => {
    if (!Array.isArray(value)) return issue(mismatchMessage("array", value));
    if (min !== undefined && value.length < min) {
      return issue(`expected at least ${min} items, got ${value.length}`);
    }
    if (max !== undefined && value.length > max) {
      return issue(`expected at most ${max} items, got ${value.length}`);
    }
    for (let index = 0; index < value.length; index++) {
      const problem = item(value[index]);
      if (problem !== undefined) return under(index, problem);
    }
    return undefined;
  });
}

/** A JSON/YAML mapping: an object that is neither null nor an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

type Shape = Record<string, Validator<unknown>>;
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends { readonly optional: true } ? K : never;
}[keyof S];
type Simplify<T> = { [K in keyof T]: T[K] } & unknown;
type ObjectOf<S extends Shape> = Simplify<
  & { [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> }
  & { [K in OptionalKeys<S>]?: Infer<S[K]> }
>;

interface ObjectOptions {
  /**
   * What other keys mean: `"keep"` (the default) lets them through untouched, e.g. fields a
   * newer version wrote; `"reject"` makes the first one a problem (`unknown field`).
   */
  unknownKeys?: "keep" | "reject";
}

/** With unknown keys kept, the type says they may be there. */
type ObjectWith<S extends Shape, O extends ObjectOptions> = O["unknownKeys"] extends "reject"
  ? ObjectOf<S>
  : ObjectOf<S> & { [extra: string]: unknown };

/** A mapping with the fields of `shape`, checked in its order. */
export function object<S extends Shape, const O extends ObjectOptions = Record<never, never>>(
  shape: S,
  options?: O,
): Validator<ObjectWith<S, O>> {
  const keys = Object.keys(shape);
  const validators = keys.map((key) => shape[key]!);
  const count = keys.length;
  // A field named like an Object.prototype member ("constructor") must not read the
  // inherited one; every other field is read directly, which is what keeps this fast.
  const inherited = keys.some((key) => key in Object.prototype);
  const reject = options?.unknownKeys === "reject";
  return custom<ObjectWith<S, O>>("object", (value) => {
    if (!isPlainObject(value)) return issue(mismatchMessage("object", value));
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      const field = inherited && !Object.hasOwn(value, key) ? undefined : value[key];
      const problem = validators[i]!(field);
      if (problem !== undefined) return under(key, problem);
    }
    if (reject) {
      for (const key in value) {
        if (!Object.hasOwn(shape, key)) return under(key, issue("unknown field"));
      }
    }
    return undefined;
  });
}

interface RecordOptions {
  /** Checks each key (a key's problem is reported at that key). */
  key?: Validator<string>;
  maxKeys?: number;
}

/** A mapping from any keys to values that all pass `item`. */
export function record<T>(
  item: Validator<T>,
  options: RecordOptions = {},
): Validator<Record<string, T>> {
  const { key: keyValidator, maxKeys } = options;
  return custom<Record<string, T>>("object", (value) => {
    if (!isPlainObject(value)) return issue(mismatchMessage("object", value));
    const keys = Object.keys(value);
    if (maxKeys !== undefined && keys.length > maxKeys) {
      return issue(`expected at most ${maxKeys} keys, got ${keys.length}`);
    }
    for (const key of keys) {
      const problem = keyValidator?.(key) ?? item(value[key]);
      if (problem !== undefined) return under(key, problem);
    }
    return undefined;
  });
}
