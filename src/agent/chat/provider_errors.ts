/**
 * Provider failures → SkillError with a clear reason and a next step: authentication,
 * rate limits, unknown models, server errors, network failures, malformed responses and
 * cancellation.
 */

import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  InvalidStreamPartError,
  JSONParseError,
  NoContentGeneratedError,
  RetryError,
  TypeValidationError,
} from "ai";
import { isSkillError, SkillError } from "../../core/errors.ts";
import { EndpointNotImplementedError } from "./endpoint_guard.ts";
import type { ProviderConfig } from "./providers.ts";

export function cancelledError(reason?: unknown): SkillError {
  if (isSkillError(reason) && reason.code === "cancelled") return reason;
  return new SkillError("cancelled", "Turn cancelled");
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function keyVariable(config: ProviderConfig): string {
  switch (config.provider) {
    case "openai":
      return "OPENAI_API_KEY (or SKILLS_API_KEY)";
    case "anthropic":
      return "ANTHROPIC_API_KEY (or SKILLS_API_KEY)";
    default:
      return "SKILLS_API_KEY";
  }
}

function endpoint(config: ProviderConfig): string {
  return config.baseURL ?? `the ${config.provider} API`;
}

function firstLine(text: string, max = 300): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? text;
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** Query parameters that carry credentials (`?api-key=…`, `&token=…`). */
const SECRET_PARAM =
  /([?&;](?:api[-_]?key|apikey|key|token|access[-_]?token|secret|password|passwd|pass|auth|sig|signature|code)=)[^&#\s'"]+/gi;

/**
 * `text` with credentials masked: the given secrets (the configured key) wherever they
 * appear, a URL's user-info (`https://user:pass@host`), credential query parameters, and
 * key-shaped tokens a provider may echo back (`sk-…`, `Bearer …`).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= 4) out = out.replaceAll(secret, "***");
  }
  return out
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@?#]+@/gi, "$1***@")
    .replace(SECRET_PARAM, "$1***")
    .replace(/\b((?:sk|pk|rk)-(?:[a-z]+-)?)[A-Za-z0-9_-]{8,}/g, "$1***")
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/-]{8,}=*/gi, "$1***");
}

/**
 * Converts anything a model request threw into a SkillError. Aborts become `cancelled`.
 * Its message and hint never carry a credential (see {@link redactSecrets}).
 */
export function providerError(
  error: unknown,
  config: ProviderConfig,
  signal?: AbortSignal,
): SkillError {
  const found = classify(error, config, signal);
  const scrub = (text: string) => redactSecrets(text, [config.apiKey]);
  const message = scrub(found.message);
  const hint = found.hint === undefined ? undefined : scrub(found.hint);
  if (message === found.message && hint === found.hint) return found;
  return new SkillError(found.code, message, {
    ...hint === undefined ? {} : { hint },
    exitCode: found.exitCode,
  });
}

function classify(error: unknown, config: ProviderConfig, signal?: AbortSignal): SkillError {
  if (isSkillError(error)) return error;
  if (signal?.aborted || isAbort(error)) return cancelledError(signal?.reason);
  const action = `Cannot get an answer from ${config.label}`;
  let attempts = "";
  let cause = error;
  if (RetryError.isInstance(error)) {
    cause = error.lastError;
    attempts = ` after ${error.errors.length} attempts`;
  }
  if (cause instanceof EndpointNotImplementedError) {
    return new SkillError(
      "execution_failed",
      `${action}: ${cause.url} is not an endpoint this server implements (HTTP 501: ${
        firstLine(cause.detail)
      })`,
      {
        hint: "Check SKILLS_BASE_URL: it must be the API root of the provider in SKILLS_MODEL " +
          "(e.g. https://api.openai.com/v1)",
        cause: error,
      },
    );
  }
  if (APICallError.isInstance(cause) && isSuccess(cause.statusCode)) {
    return malformed(config, action, cause.message, error);
  }
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    const detail = firstLine(cause.message);
    if (status === 401 || status === 403) {
      return new SkillError(
        "permission_denied",
        `${action}: authentication failed (HTTP ${status}: ${detail})`,
        { hint: `Check ${keyVariable(config)}`, cause: error },
      );
    }
    if (status === 429) {
      return new SkillError(
        "execution_failed",
        `${action}: rate limited${attempts} (HTTP 429: ${detail})`,
        { hint: "Wait a moment and try again, or use another model", cause: error },
      );
    }
    if (status === 404) {
      return new SkillError(
        "not_found",
        `${action}: the model or endpoint was not found (HTTP 404: ${detail})`,
        { hint: "Check SKILLS_MODEL and SKILLS_BASE_URL", cause: error },
      );
    }
    if (status !== undefined) {
      return new SkillError(
        "execution_failed",
        `${action}: the server answered HTTP ${status}${attempts} (${detail})`,
        {
          hint: status >= 500 ? "Try again later" : "Check SKILLS_MODEL and SKILLS_BASE_URL",
          cause: error,
        },
      );
    }
    return networkError(config, detail + attempts, error);
  }
  if (cause instanceof TypeError && /fetch|connect|request|dns|network/i.test(cause.message)) {
    return networkError(config, firstLine(cause.message) + attempts, error);
  }
  if (
    InvalidResponseDataError.isInstance(cause) || JSONParseError.isInstance(cause) ||
    TypeValidationError.isInstance(cause) || EmptyResponseBodyError.isInstance(cause) ||
    NoContentGeneratedError.isInstance(cause) || InvalidStreamPartError.isInstance(cause)
  ) {
    return malformed(config, action, (cause as Error).message, error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SkillError("execution_failed", `${action}: ${firstLine(message)}`, { cause: error });
}

function isSuccess(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

function malformed(
  config: ProviderConfig,
  action: string,
  detail: string,
  cause: unknown,
): SkillError {
  return new SkillError(
    "parse_error",
    `${action}: the response was malformed (${firstLine(detail, 200)})`,
    { hint: `Check that ${endpoint(config)} speaks the ${config.format} wire format`, cause },
  );
}

function networkError(config: ProviderConfig, detail: string, cause: unknown): SkillError {
  return new SkillError(
    "execution_failed",
    `Cannot reach ${endpoint(config)} for ${config.label}: ${detail}`,
    {
      hint: config.provider === "ollama"
        ? "Start Ollama (`ollama serve`) or set SKILLS_BASE_URL"
        : "Check the network connection and SKILLS_BASE_URL",
      cause,
    },
  );
}
