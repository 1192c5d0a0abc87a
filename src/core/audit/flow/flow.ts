/**
 * The data-flow analysis of one script, by its language: Python and JavaScript/TypeScript
 * through code_flow.ts, shell through shell_flow.ts, PowerShell through powershell_flow.ts. Comments and docstrings (the inert
 * spans audit_code.ts finds) are not code and carry no flow.
 */

import type { CodeLanguage, Span } from "./audit_code.ts";
import { analyzeCode, INLINE_CODE } from "./code_flow.ts";
import type { Flow } from "./flow_model.ts";
import { analyzeShell } from "./shell_flow.ts";
import { analyzePowerShell } from "./powershell_flow.ts";
import { codeOnly, readCode } from "./audit_code.ts";

export type { Flow } from "./flow_model.ts";

/** The flows of `text`; never throws on malformed code (a script it cannot read has none). */
export function analyzeFlows(language: CodeLanguage, text: string, inert: readonly Span[]): Flow[] {
  try {
    if (language === "powershell") {
      return analyzePowerShell(codeOnly(text, readCode(language, text)));
    }
    return language === "shell"
      ? analyzeShell(text, undefined, undefined, INLINE_CODE)
      : analyzeCode(language, text, inert);
  } catch {
    return [];
  }
}
