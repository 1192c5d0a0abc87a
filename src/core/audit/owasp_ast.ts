/**
 * The OWASP Agentic Skills Top 10 (AST01–AST10), the shared vocabulary of skill scanners:
 * every audit rule names the category it detects (`AuditRule.ast`), findings carry it in
 * `--json`, and SARIF carries the list as a taxonomy that each rule relates to, so that
 * code-scanning tools can group findings by category. Names follow the project's 2026 list
 * (https://owasp.org/www-project-agentic-skills-top-10/); the descriptions are ours.
 */

export type AstId =
  | "AST01"
  | "AST02"
  | "AST03"
  | "AST04"
  | "AST05"
  | "AST06"
  | "AST07"
  | "AST08"
  | "AST09"
  | "AST10";

interface AstCategory {
  id: AstId;
  name: string;
  description: string;
}

export const AST_TAXONOMY = {
  name: "OWASP Agentic Skills Top 10",
  organization: "OWASP",
  version: "2026",
  informationUri: "https://owasp.org/www-project-agentic-skills-top-10/",
} as const;

export const AST_CATEGORIES: readonly AstCategory[] = [
  {
    id: "AST01",
    name: "Malicious Skills",
    description:
      "A skill that carries a payload: credential theft, backdoors, hidden or injected instructions.",
  },
  {
    id: "AST02",
    name: "Supply Chain Compromise",
    description:
      "Code that reaches the agent from outside the reviewed package: downloads run or imported at run time.",
  },
  {
    id: "AST03",
    name: "Over-Privileged Skills",
    description:
      "A skill that asks for or reaches more than its task needs: broad permissions, unrestricted shell, credential stores.",
  },
  {
    id: "AST04",
    name: "Insecure Metadata",
    description:
      "What the skill does is not what a reviewer sees: hidden characters, undeclared network use.",
  },
  {
    id: "AST05",
    name: "Untrusted External Instructions",
    description:
      "Instructions, rules or prompts fetched at run time: what the agent obeys is not what was reviewed.",
  },
  {
    id: "AST06",
    name: "Weak Isolation",
    description:
      "Code that runs outside the skill's sandboxed scripts: on load, through hooks, or from deserialised data.",
  },
  {
    id: "AST07",
    name: "Update Drift",
    description: "A skill that changes after it was approved.",
  },
  {
    id: "AST08",
    name: "Poor Scanning",
    description:
      "Content a scanner or reviewer cannot read: binaries, minified code, files past the size read.",
  },
  {
    id: "AST09",
    name: "No Governance",
    description: "Skills installed and run without inventory, policy or review.",
  },
  {
    id: "AST10",
    name: "Cross-Platform Reuse",
    description: "A skill written for one agent reused on another with different guarantees.",
  },
];
