/**
 * The system prompt and the `<available_skills>` block (pure). `skills prompt` prints the
 * block rendered here: without `<location>` it is byte-identical to what the chat loop sends;
 * MCP's instructions name each SKILL.md by its resource URI, never by a host path.
 */

import { markInvisible } from "../../core/terminal_text.ts";

interface SkillSummary {
  name: string;
  description: string;
  /** Where the skill's SKILL.md is (an absolute path, or `skill://<name>/SKILL.md`). */
  location?: string;
}

type PromptFormat = "xml" | "markdown";

/** The instructions sent when no skill is active: nothing about skills at all. */
export const BASE_INSTRUCTIONS = "You are a helpful assistant.";

/** Short instructions for a session with active skills (kept small: it is fixed overhead). */
export const SKILL_INSTRUCTIONS = "You are a helpful assistant with skills (listed below). " +
  "When a task matches a skill, call activate_skill first and follow its instructions. " +
  "Run scripts with script_help, then script_run; do not read script sources.";

// C0 controls except tab/newline/CR, and DEL: never useful in a prompt.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * One line of plain text: control characters and lone surrogates removed, whitespace
 * collapsed, and invisible characters (tag characters, zero-width, bidi controls, variation
 * selectors) marked as `[U+XXXX]`, so what the model reads is what a reviewer sees.
 */
export function oneLine(text: string): string {
  return markInvisible(text.toWellFormed().replace(CONTROL, "").replace(/\s+/g, " ").trim());
}

/** Escapes text for an XML element body or attribute value. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => XML_ENTITIES[ch]!);
}

const XML_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Escapes Markdown inline syntax so a description cannot open a link, emphasis or code span. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (ch) => `\\${ch}`);
}

/**
 * The `<available_skills>` block (or its Markdown form). Empty string for no skills, so the
 * caller can leave the block out entirely.
 */
export function renderAvailableSkills(
  skills: readonly SkillSummary[],
  format: PromptFormat = "xml",
): string {
  if (skills.length === 0) return "";
  if (format === "markdown") {
    const lines = ["## Available skills", ""];
    for (const skill of skills) {
      const where = skill.location === undefined ? "" : ` (\`${oneLine(skill.location)}\`)`;
      lines.push(
        `- **${escapeMarkdown(oneLine(skill.name))}**: ${
          escapeMarkdown(oneLine(skill.description))
        }${where}`,
      );
    }
    return lines.join("\n");
  }
  const lines = ["<available_skills>"];
  for (const skill of skills) {
    lines.push("<skill>");
    lines.push(`<name>${escapeXml(oneLine(skill.name))}</name>`);
    lines.push(`<description>${escapeXml(oneLine(skill.description))}</description>`);
    if (skill.location !== undefined) {
      lines.push(`<location>${escapeXml(oneLine(skill.location))}</location>`);
    }
    lines.push("</skill>");
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}

/** The whole system prompt: base instructions alone, or skill instructions plus the block. */
export function buildSystemPrompt(skills: readonly SkillSummary[]): string {
  if (skills.length === 0) return BASE_INSTRUCTIONS;
  return `${SKILL_INSTRUCTIONS}\n\n${renderAvailableSkills(skills, "xml")}`;
}
