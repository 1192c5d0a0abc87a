/**
 * Typed errors. Lower layers throw these; only `main.ts` turns them into exit codes.
 * `code` is the machine-readable reason shared with the tool envelope (DESIGN §3).
 */

export type ErrorCode =
  | "not_found"
  | "invalid_name"
  | "args_too_large"
  | "timeout"
  | "parse_error"
  | "execution_failed"
  | "permission_denied"
  | "untrusted"
  | "integrity_mismatch"
  | "dependency_unavailable"
  | "invalid_manifest"
  | "invalid_source"
  | "registry_corrupt"
  | "conflict"
  | "git_failed"
  | "cancelled"
  | "confirmation_required"
  | "io_error"
  | "usage";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_TIMEOUT = 124;
export const EXIT_INTERRUPTED = 130;

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
    this.exitCode = options.exitCode ??
      (code === "usage" || code === "invalid_name" ? EXIT_USAGE : EXIT_FAILURE);
  }
}

/** A mistake in how the command was invoked: exit 2 with a hint. */
export class UsageError extends SkillError {
  constructor(message: string, hint?: string) {
    super("usage", message, hint === undefined ? {} : { hint });
    this.name = "UsageError";
  }
}

export function isSkillError(value: unknown): value is SkillError {
  return value instanceof SkillError;
}

/** A short, single-line description of any thrown value. */
export function describeError(value: unknown): string {
  if (value instanceof Error) return value.message;
  return String(value);
}
