/**
 * The model an eval talks to: the provider `skills chat` uses (SKILLS_MODEL and its key),
 * each run through its own tape (model_tape.ts). On `--replay` the provider comes from the
 * recording, so no configuration, key or network is needed.
 */

import type { LanguageModel } from "ai";
import {
  createLanguageModel,
  type ProviderConfig,
  resolveProviderConfig,
} from "../chat/providers.ts";
import {
  ModelTape,
  readTapeMeta,
  type TapeHooks,
  type TapeMeta,
  type TapeMode,
  writeTapeMeta,
} from "./model_tape.ts";

export interface EvalModels {
  provider: ProviderConfig;
  mode: TapeMode;
  /** A model whose requests go through the tape of `scope` (one run or one grading). */
  open(scope: string): Promise<{ model: LanguageModel; tape: ModelTape }>;
}

export async function evalModels(
  env: Readonly<Record<string, string | undefined>>,
  mode: TapeMode,
  kind: TapeMeta["kind"],
  hooks: TapeHooks = {},
): Promise<EvalModels> {
  let provider: ProviderConfig;
  if (mode.kind === "replay") {
    const meta = await readTapeMeta(mode.dir);
    provider = resolveProviderConfig(
      { SKILLS_MODEL: `${meta.provider}:${meta.model}`, SKILLS_BASE_URL: "http://127.0.0.1:9/v1" },
      { requireKey: false },
    );
  } else {
    provider = resolveProviderConfig(env);
  }
  if (mode.kind === "record") {
    await writeTapeMeta(mode.dir, {
      provider: provider.provider,
      model: provider.model,
      format: provider.format,
      kind,
    });
  }
  return {
    provider,
    mode,
    open: async (scope) => {
      const tape = await ModelTape.open(scope, mode, hooks);
      return { model: createLanguageModel(provider, tape.fetch), tape };
    },
  };
}
