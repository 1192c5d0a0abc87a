/**
 * Typed errors. Lower layers throw these; only `main.ts` turns them into exit codes.
 * `code` is the machine-readable reason shared with the tool envelope (DESIGN §3).
 */

/**
 * Every error code this program (and its toolset host, toolset_host.py) can produce. The
 * union is closed: a misspelt code fails the type check. A toolset's own codes (e.g.
 * `unsupported_language`) are not ours; they pass through envelopes as
 * {@link ToolsetErrorCode}.
 */
export const ERROR_CODES = [
  // DESIGN §3, the seed-000 envelope codes
  "not_found",
  "invalid_name",
  "args_too_large",
  "timeout",
  "parse_error",
  "execution_failed",
  "permission_denied",
  // ours
  "untrusted",
  "integrity_mismatch",
  "dependency_unavailable",
  "invalid_manifest",
  "invalid_source",
  "invalid_arguments",
  /** A virtual skill tool's input failed its schema (src/agent/surface/virtual_tools.ts). */
  "invalid_input",
  "invalid_path",
  "binary_file",
  "registry_corrupt",
  "conflict",
  "git_failed",
  "cancelled",
  "confirmation_required",
  "io_error",
  "usage",
  // a critical audit finding, refused without --allow-risky (core/audit/engine.ts)
  "risky_skill",
  // an organisation's policy (core/governance) and signatures (docs/signatures.md): each
  // refusal its own exit status, so a CI step can tell them apart
  "policy_denied",
  "unsigned",
  "signature_invalid",
  "signer_not_allowed",
  "certificate_expired",
  "attestation_mismatch",
  // allowed-tools enforcement (src/agent/surface/allowed_tools.ts), spelt as that contract has it
  "TOOL_NOT_ALLOWED",
] as const;

export type ErrorCode = typeof ERROR_CODES[number];

declare const TOOLSET_CODE: unique symbol;

/** A code chosen by a skill's own toolset, passed through to the model unchanged. */
export type ToolsetErrorCode = string & { readonly [TOOLSET_CODE]: true };

/** Marks a code read from a toolset's reply (the only way to make a {@link ToolsetErrorCode}). */
export function toolsetErrorCode(code: string): ErrorCode | ToolsetErrorCode {
  return isErrorCode(code) ? code : code as ToolsetErrorCode;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return (ERROR_CODES as readonly unknown[]).includes(value);
}

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_TIMEOUT = 124;
export const EXIT_INTERRUPTED = 130;
/** Refusals of an organisation's policy and of signatures (docs/signatures.md). */
const EXIT_POLICY_DENIED = 20;
const EXIT_UNSIGNED = 21;
const EXIT_SIGNATURE_INVALID = 22;
const EXIT_SIGNER_NOT_ALLOWED = 23;
const EXIT_CERTIFICATE_EXPIRED = 24;
const EXIT_ATTESTATION_MISMATCH = 25;

/**
 * The exit status each code implies (DESIGN §4.3): usage mistakes 2, timeouts 124, an
 * interruption 130, a policy or signature refusal 20-25, everything else 1. Complete on purpose, so a new code needs a decision.
 * A thrower may still override it (a declined prompt is `cancelled` but exits 1; SIGTERM
 * exits 143).
 */
const EXIT_STATUS: Readonly<Record<ErrorCode, number>> = {
  usage: EXIT_USAGE,
  invalid_name: EXIT_USAGE,
  args_too_large: EXIT_USAGE,
  timeout: EXIT_TIMEOUT,
  cancelled: EXIT_INTERRUPTED,
  not_found: EXIT_FAILURE,
  parse_error: EXIT_FAILURE,
  execution_failed: EXIT_FAILURE,
  permission_denied: EXIT_FAILURE,
  untrusted: EXIT_FAILURE,
  integrity_mismatch: EXIT_FAILURE,
  dependency_unavailable: EXIT_FAILURE,
  invalid_manifest: EXIT_FAILURE,
  invalid_source: EXIT_FAILURE,
  invalid_arguments: EXIT_FAILURE,
  invalid_input: EXIT_FAILURE,
  invalid_path: EXIT_FAILURE,
  binary_file: EXIT_FAILURE,
  registry_corrupt: EXIT_FAILURE,
  conflict: EXIT_FAILURE,
  git_failed: EXIT_FAILURE,
  confirmation_required: EXIT_FAILURE,
  io_error: EXIT_FAILURE,
  risky_skill: EXIT_FAILURE,
  TOOL_NOT_ALLOWED: EXIT_FAILURE,
  policy_denied: EXIT_POLICY_DENIED,
  unsigned: EXIT_UNSIGNED,
  signature_invalid: EXIT_SIGNATURE_INVALID,
  signer_not_allowed: EXIT_SIGNER_NOT_ALLOWED,
  certificate_expired: EXIT_CERTIFICATE_EXPIRED,
  attestation_mismatch: EXIT_ATTESTATION_MISMATCH,
};

/** The exit status `code` implies. */
export function exitCodeFor(code: ErrorCode): number {
  return EXIT_STATUS[code];
}

export class SkillError extends Error {
  readonly code: ErrorCode;
  /** The next step for the user, printed after the message. */
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; exitCode?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SkillError";
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? exitCodeFor(code);
  }
}

/** A mistake in how the command was invoked: exit 2 with a hint. */
export class UsageError extends SkillError {
  constructor(message: string, hint?: string) {
    super("usage", message, hint === undefined ? {} : { hint });
    this.name = "UsageError";
  }
}

/**
 * The user answered no to a prompt: code `cancelled` like an interruption, but exit 1, since
 * nothing was interrupted (the table's 130 means Ctrl-C).
 */
export function declined(message: string): SkillError {
  return new SkillError("cancelled", message, { exitCode: EXIT_FAILURE });
}

export function isSkillError(value: unknown): value is SkillError {
  return value instanceof SkillError;
}

/** A short, single-line description of any thrown value. */
export function describeError(value: unknown): string {
  if (value instanceof Error) return value.message;
  return String(value);
}

/** What the user can do about an OS error, by errno (Linux and macOS numbers). */
const OS_ERRORS: Readonly<Record<number, { what: string; hint: string }>> = {
  28: { what: "the disk is full", hint: "Free some space, then try again" },
  122: { what: "the disk quota is exceeded", hint: "Free some space, then try again" },
  69: { what: "the disk quota is exceeded", hint: "Free some space, then try again" },
  30: {
    what: "the file system is read-only",
    hint: "Point SKILLS_HOME at a writable directory, or remount it read-write",
  },
  13: {
    what: "permission denied",
    hint: "Check the permissions of that path (or point SKILLS_HOME elsewhere)",
  },
  1: {
    what: "operation not permitted",
    hint: "Check the permissions of that path (or point SKILLS_HOME elsewhere)",
  },
};

/** Deno's operation names, as a user would say them. */
const OPERATIONS: Readonly<Record<string, string>> = {
  writefile: "write",
  readfile: "read",
  mkdir: "create the directory",
  open: "open",
  rename: "move",
  remove: "remove",
  copy: "copy",
  symlink: "create the link",
  chmod: "change the mode of",
};

/**
 * A filesystem failure a user can act on (a full disk, a read-only or unwritable place) as
 * an `io_error` with the path and the next step, never a stack trace; undefined for any
 * other value. Pure: it reads the `(os error N): op 'path'` Deno puts in such messages.
 */
export function osError(value: unknown): SkillError | undefined {
  if (!(value instanceof Error)) return undefined;
  const match = /\(os error (\d+)\)(?::\s*(\w+)\s+'([^']*)')?/.exec(value.message);
  const known = match === null ? undefined : OS_ERRORS[Number(match[1])];
  if (known === undefined) return undefined;
  const path = match![3];
  const op = match![2] ?? "";
  const verb = OPERATIONS[op] ?? op.replaceAll("_", " ");
  const message = path === undefined
    ? `Cannot complete the command: ${known.what}`
    : `Cannot ${verb} ${path}: ${known.what}`;
  return new SkillError("io_error", message, { hint: known.hint, cause: value });
}

/**
 * A module of this program that is not there (`Module not found "file:///…"`): an
 * incomplete installation, said as such with what to do, never a stack trace. The modules
 * under `src/generated/` exist only after `deno task gen` (a fresh clone has none); a
 * bundle's chunks must sit next to its entry. Undefined for any other value.
 */
export function missingModuleError(value: unknown): SkillError | undefined {
  if (!(value instanceof Error)) return undefined;
  const match = /Module not found "([^"]+)"/.exec(value.message);
  if (match === null) return undefined;
  const url = match[1]!;
  const path = url.startsWith("file://") ? decodeURIComponent(new URL(url).pathname) : url;
  const generated = /^(.*)\/src\/generated\/[^/]+$/.exec(path);
  const hint = generated !== null
    ? `The generated modules are written by \`deno task gen\`: run it in ${
      generated[1]
    }, then run skills again (docs/setup.md)`
    : /\/bundle\/[^/]+$/.test(path)
    ? "Copy the bundle's dist/ folder whole (dist/skills.js loads its chunks from dist/bundle/)"
    : "Reinstall skills (docs/setup.md)";
  return new SkillError(
    "execution_failed",
    `This installation of skills is incomplete: ${path} is missing`,
    { hint, cause: value },
  );
}
