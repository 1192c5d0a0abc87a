/** The seed-000 tool result envelope: every model-facing tool returns one of these. */

import type { ErrorCode, ToolsetErrorCode } from "./errors.ts";
import { isSkillError, missingModuleError, osError } from "./errors.ts";

interface SuccessEnvelope<T = unknown> {
  success: true;
  result: T;
  message: string;
  /** What a script run did (files, network, environment names): see exec/receipt.ts. */
  receipt?: unknown;
}

export interface FailureEnvelope {
  success: false;
  /** One of our codes, or a toolset's own one such as `unsupported_language`, passed through. */
  error: ErrorCode | ToolsetErrorCode;
  message: string;
  /** Extra structured detail, e.g. a failing script's JSON output or its exit code. */
  details?: Record<string, unknown>;
  /** What a script run did (files, network, environment names): see exec/receipt.ts. */
  receipt?: unknown;
}

export type Envelope<T = unknown> = SuccessEnvelope<T> | FailureEnvelope;

export function ok<T>(result: T, message: string): SuccessEnvelope<T> {
  return { success: true, result, message };
}

export function fail(
  error: ErrorCode | ToolsetErrorCode,
  message: string,
  details?: Record<string, unknown>,
): FailureEnvelope {
  return details === undefined ? { success: false, error, message } : {
    success: false,
    error,
    message,
    details,
  };
}

/** Converts anything thrown into a failure envelope, so nothing throws across the tool boundary. */
export function failFromError(value: unknown): FailureEnvelope {
  const known = isSkillError(value) ? value : osError(value) ?? missingModuleError(value);
  if (known !== undefined) {
    return fail(known.code, known.hint ? `${known.message}\n${known.hint}` : known.message);
  }
  return fail("execution_failed", value instanceof Error ? value.message : String(value));
}
