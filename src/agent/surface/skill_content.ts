/**
 * What `activate_skill` returns (pure): the SKILL.md body wrapped in `<skill_content>`,
 * a virtual skill's `<skill_tools>` (how to call them through `call_skill_tool`), then
 * `<skill_resources>` naming the skill's scripts, references, assets and toolset tools.
 * Names only: no file contents, never script source.
 */

import { escapeXml } from "./system_prompt.ts";

interface SkillResources {
  scripts: readonly string[];
  /** The other files under `scripts/`: helper modules, data the scripts read. */
  scriptFiles?: readonly string[];
  references: readonly string[];
  assets: readonly string[];
  /** The skill's other files (forms.md, templates/…); binaries are marked. */
  files?: readonly string[];
  /** Qualified toolset tool names now callable. */
  tools: readonly string[];
  /** Toolsets that could not be loaded, one line each. */
  problems: readonly string[];
  /** A virtual skill's `<skill_tools>` block (virtual_tools.ts), if it has tools. */
  skillTools?: string;
}

export function renderSkillContent(name: string, body: string, resources: SkillResources): string {
  const lines = [`<skill_content name="${escapeXml(name)}">`, body.trim(), "</skill_content>"];
  if (resources.skillTools) lines.push(resources.skillTools);
  lines.push("<skill_resources>");
  const groups: [string, readonly string[]][] = [
    ["scripts (script_help, script_run)", resources.scripts],
    ["other files under scripts/ (read_skill_file)", (resources.scriptFiles ?? []).map(markBinary)],
    ["references (read_skill_file)", resources.references],
    ["assets (read_skill_file)", resources.assets],
    ["other files (read_skill_file)", (resources.files ?? []).map(markBinary)],
    ["tools", resources.tools],
    ["unavailable toolsets", resources.problems],
  ];
  const present = groups.filter(([, items]) => items.length > 0);
  for (const [label, items] of present) lines.push(`${label}: ${items.join(", ")}`);
  if (present.length === 0) lines.push("(none)");
  lines.push("</skill_resources>");
  return lines.join("\n");
}

/** Files read_skill_file cannot show (it reads UTF-8 text only), marked for the model. */
const BINARY =
  /\.(?:png|jpe?g|gif|webp|ico|bmp|pdf|zip|gz|tgz|bz2|xz|7z|tar|docx?|xlsx?|pptx?|odt|ods|ttf|otf|woff2?|eot|mp3|mp4|wav|ogg|webm|mov|avi|wasm|so|dylib|dll|exe|bin|class|jar|pyc|sqlite|db)$/i;

function markBinary(path: string): string {
  return BINARY.test(path) ? `${path} (binary)` : path;
}
