/**
 * The model provider's configuration from environment variables, without the AI SDK:
 *
 *   SKILLS_MODEL=provider:model   openai | anthropic | openai-compatible | ollama
 *   OPENAI_API_KEY / ANTHROPIC_API_KEY / SKILLS_API_KEY
 *   SKILLS_BASE_URL               base URL override (required for openai-compatible)
 *
 * Apart from ./providers.ts (which builds the SDK's clients from it) so that a command that
 * only reads it — `skills context` with its counts kept (./accounting.ts) — loads no SDK.
 */

import { SkillError } from "../../core/errors.ts";

const PROVIDERS = ["openai", "anthropic", "openai-compatible", "ollama"] as const;
type ProviderName = (typeof PROVIDERS)[number];

/** How the request body is laid out on the wire. */
export type WireFormat = "openai-chat" | "anthropic-messages";

export const OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1";

export interface ProviderConfig {
  provider: ProviderName;
  model: string;
  /** `provider:model`, as given in SKILLS_MODEL. */
  label: string;
  /** Undefined: the provider's default endpoint. */
  baseURL: string | undefined;
  /** Undefined: none is sent (local servers). */
  apiKey: string | undefined;
  format: WireFormat;
}

const CONFIG_HINT =
  "Set SKILLS_MODEL=provider:model (e.g. openai:gpt-4o-mini, anthropic:claude-sonnet-4-5, " +
  "ollama:llama3.2, or openai-compatible:<model> with SKILLS_BASE_URL) and the key " +
  "(OPENAI_API_KEY, ANTHROPIC_API_KEY or SKILLS_API_KEY); see .env.example";

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

interface ResolveOptions {
  /** Whether a missing key is an error (false for `skills context`, which sends nothing). */
  requireKey?: boolean;
}

/** Pure: the effective environment → a provider configuration, or a SkillError saying what to set. */
export function resolveProviderConfig(
  env: Readonly<Record<string, string | undefined>>,
  options: ResolveOptions = {},
): ProviderConfig {
  const requireKey = options.requireKey ?? true;
  const spec = nonEmpty(env.SKILLS_MODEL);
  if (spec === undefined) {
    throw new SkillError("usage", "Cannot start a model session: SKILLS_MODEL is not set", {
      hint: CONFIG_HINT,
    });
  }
  const colon = spec.indexOf(":");
  const provider = (colon === -1 ? spec : spec.slice(0, colon)).trim().toLowerCase();
  const model = colon === -1 ? "" : spec.slice(colon + 1).trim();
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    throw new SkillError("usage", `Unknown provider "${provider}" in SKILLS_MODEL="${spec}"`, {
      hint: `Use one of ${PROVIDERS.join(", ")}, e.g. SKILLS_MODEL=openai:gpt-4o-mini`,
    });
  }
  if (model === "") {
    throw new SkillError("usage", `SKILLS_MODEL="${spec}" names no model`, {
      hint: `Write it as provider:model, e.g. SKILLS_MODEL=${provider}:<model-id>`,
    });
  }
  const name = provider as ProviderName;
  const label = `${name}:${model}`;
  const baseOverride = checkedBaseUrl(nonEmpty(env.SKILLS_BASE_URL)?.replace(/\/+$/, ""));
  const skillsKey = nonEmpty(env.SKILLS_API_KEY);
  const missingKey = (variable: string): never => {
    throw new SkillError("usage", `Cannot use ${label}: ${variable} is not set`, {
      hint: `Set ${variable} (or SKILLS_API_KEY) in the environment or in .env`,
    });
  };
  switch (name) {
    case "openai": {
      const apiKey = nonEmpty(env.OPENAI_API_KEY) ?? skillsKey;
      if (apiKey === undefined && requireKey) missingKey("OPENAI_API_KEY");
      return { provider: name, model, label, baseURL: baseOverride, apiKey, format: "openai-chat" };
    }
    case "anthropic": {
      const apiKey = nonEmpty(env.ANTHROPIC_API_KEY) ?? skillsKey;
      if (apiKey === undefined && requireKey) missingKey("ANTHROPIC_API_KEY");
      return {
        provider: name,
        model,
        label,
        baseURL: baseOverride,
        apiKey,
        format: "anthropic-messages",
      };
    }
    case "openai-compatible": {
      if (baseOverride === undefined) {
        throw new SkillError("usage", `Cannot use ${label}: SKILLS_BASE_URL is not set`, {
          hint: "Set SKILLS_BASE_URL to the server's OpenAI-compatible endpoint, " +
            "e.g. http://127.0.0.1:8000/v1 (and SKILLS_API_KEY if it needs one)",
        });
      }
      return {
        provider: name,
        model,
        label,
        baseURL: baseOverride,
        apiKey: skillsKey,
        format: "openai-chat",
      };
    }
    case "ollama":
      return {
        provider: name,
        model,
        label,
        baseURL: baseOverride ?? OLLAMA_BASE_URL,
        apiKey: skillsKey,
        format: "openai-chat",
      };
  }
}

/**
 * SKILLS_BASE_URL as given, when it is an http(s) URL; a usage error with the form it takes
 * otherwise (`ftp://…`, `not a url`), said before any request instead of by the HTTP client.
 */
function checkedBaseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let scheme: string | undefined;
  try {
    scheme = new URL(value).protocol;
  } catch {
    scheme = undefined;
  }
  if (scheme === "http:" || scheme === "https:") return value;
  const shown = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  throw new SkillError(
    "usage",
    scheme === undefined
      ? `SKILLS_BASE_URL=${shown} is not a URL`
      : `SKILLS_BASE_URL=${shown} is not an http:// or https:// URL (${scheme.slice(0, -1)})`,
    {
      hint: "Set SKILLS_BASE_URL to the provider's API root, e.g. https://api.openai.com/v1 " +
        "or http://127.0.0.1:8000/v1, or unset it for the provider's default",
    },
  );
}

/**
 * Routes the AI SDK's warnings (unknown model capabilities, unsupported settings) to `log`
 * — the `--verbose` debug log — instead of the console. Without a logger they are dropped.
 */
export function routeSdkWarnings(log?: (message: string) => void): void {
  (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = log === undefined
    ? false
    : (options: { warnings: unknown[]; provider?: string; model?: string }) => {
      for (const warning of options.warnings) {
        const text = (warning as { message?: unknown }).message ?? JSON.stringify(warning);
        log(`model warning (${options.provider ?? "?"}/${options.model ?? "?"}): ${text}`);
      }
    };
}
