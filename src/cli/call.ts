// PLACEHOLDER: being implemented; replaced wholesale by the owner of this command.
import { SkillError } from "../core/errors.ts";
import type { ParsedCommon } from "./command.ts";

export const help = "Usage: skills call (not available yet)\n";

export function parse(_argv: readonly string[]): ParsedCommon {
  return { help: false, json: false, verbose: false };
}

export function run(): Promise<number> {
  return Promise.reject(new SkillError("execution_failed", "'skills call' is not available yet"));
}
