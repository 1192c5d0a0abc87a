/**
 * The doctor's text report (`skills check` without `--json`): each check's lines, keyed by
 * the check's id in runtime/inspect/checks.ts — a check without lines here does not compile.
 * The skills (and what to do about them) come first, the machine after.
 */

import { missingProtections } from "../../core/policy/protections.ts";
import { LANGUAGES } from "../../core/scripts/script_language.ts";
import { VERSION } from "../../core/version.ts";
import type { CheckId, CheckResults } from "../../runtime/inspect/checks.ts";
import type { DoctorReport } from "../../runtime/inspect/doctor.ts";
import type { SandboxReport } from "../../runtime/inspect/sandbox_report.ts";
import type { SkillRow } from "../../runtime/inspect/skill_states.ts";
import { shortSha, style } from "./render.ts";

type Style = ReturnType<typeof style>;

/** What every check's lines may read besides its result. */
interface Seen {
  s: Style;
  /** No skill is active: the skills' lines end with how to activate one. */
  noneActive: boolean;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function skillLine(skill: SkillRow, s: Style): string {
  const state = skill.active ? "active" : "inactive";
  if (skill.status === "error") {
    return `  ${s.red("✗")} ${skill.name} (${state}) - Load failed: ${skill.reason}`;
  }
  if (skill.status === "modified" || skill.status === "risky") {
    return `  ${s.red("✗")} ${skill.name} (${state}) - ${skill.reason}; ${skill.fix}`;
  }
  if (skill.status === "toolset_error") {
    return `  ${s.yellow("!")} ${skill.name} (${state}) - ${skill.reason}`;
  }
  const mark = skill.active ? s.green("✓") : "○";
  const tag = skill.source === "core"
    ? "core"
    : `${skill.scope === "project" ? "project " : ""}${shortSha(skill.commit_sha)}`;
  const trust = skill.trusted ? "" : ` ${s.yellow("(untrusted)")}`;
  const accepted = skill.audit?.critical.length
    ? ` ${s.yellow(`(${plural(skill.audit.critical.length, "critical finding")} accepted)`)}`
    : "";
  return `  ${mark} ${skill.name} (${state}) - ${plural(skill.scripts, "script")}, ${
    plural(skill.toolsets, "toolset")
  } [${tag}]${trust}${accepted}`;
}

function skillLines({ skills, audits }: CheckResults["skills"], { s, noneActive }: Seen) {
  const out: string[] = ["Skills:"];
  for (const skill of skills) out.push(skillLine(skill, s));
  const reaudited = [...audits.values()].filter((a) => a.refreshed).length;
  if (reaudited > 0) {
    out.push(
      `  ○ audited ${plural(reaudited, "installed skill")} again (audit rules ${
        [...audits.values()][0]!.rules_version
      })`,
    );
  }
  if (noneActive) {
    const example = skills.find((x) => x.status === "ok")?.name ?? "<name>";
    out.push("", `To enable: export AGENT_SKILLS=${example}`);
  }
  return out;
}

function toolLines(tools: CheckResults["tools"], { s }: Seen): string[] {
  const out = ["", "Tools:"];
  const found = new Set(tools.filter((t) => t.found).map((t) => t.name));
  for (const t of tools) {
    const note = t.found ? "" : missingToolNote(t.name, found);
    const mark = t.found ? s.green("✓") : note !== "" ? "○" : s.red("✗");
    const why = t.found ? "" : ` - ${t.detail ?? "unavailable"}`;
    out.push(`  ${mark} ${t.name}${t.version ? ` ${t.version}` : ""}${why}${note}`);
  }
  return out;
}

/**
 * Why a missing tool is only optional: uv (scripts without dependencies run on python3), a
 * runner whose languages another found runner covers, or the runner of a language other than
 * Python (only the scripts of the languages no other runner serves need it). Empty for
 * python3 and git.
 */
function missingToolNote(name: string, found: ReadonlySet<string>): string {
  if (name === "uv") return " (optional: needed only for scripts that declare dependencies)";
  const languages = Object.values(LANGUAGES).filter((l) =>
    l.runners.some((r) => r.program === name)
  );
  if (languages.length === 0 || name === "python3") return "";
  const unserved = languages.filter((l) => !l.runners.some((r) => found.has(r.program)));
  if (unserved.length === 0) return " (optional: another runner is found)";
  return ` (optional: needed only for ${unserved.map((l) => l.label).join(", ")} scripts)`;
}

function sandboxLine(report: SandboxReport): string {
  const setting = `SKILLS_SANDBOX=${report.setting}`;
  if (report.mode === "bwrap") return `OS sandbox (${setting}): ${report.reason}`;
  if (!report.usable) return `no OS sandbox and ${setting}: scripts are refused - ${report.reason}`;
  return `policy mode (${setting}): ${report.reason}`;
}

function sandboxLines(sandbox: SandboxReport, { s }: Seen): string[] {
  const out = ["", "Sandbox:"];
  const sandboxMark = sandbox.mode === "bwrap"
    ? s.green("✓")
    : sandbox.usable
    ? sandbox.setting === "off" ? "○" : s.yellow("!")
    : s.red("✗");
  out.push(`  ${sandboxMark} ${sandboxLine(sandbox)}`);
  if (sandbox.overlay !== undefined) {
    const mark = sandbox.overlay.engine === null ? s.yellow("!") : s.green("✓");
    out.push(`  ${mark} workspace overlay: ${sandbox.overlay.reason}`);
  }
  if (sandbox.hint !== undefined && sandbox.mode === "policy" && sandbox.setting !== "off") {
    out.push(`    hint: ${sandbox.hint}`);
  }
  const missing = missingProtections(sandbox.mode);
  if (missing.length > 0) {
    out.push("  Not enforced here without the OS sandbox:");
    for (const p of missing) {
      const instead = typeof p.policy === "string" ? ` (instead: ${p.policy})` : "";
      out.push(`    ${s.yellow("-")} ${p.label}${instead}`);
    }
  }
  return out;
}

function homeLines(home: CheckResults["home"], { s }: Seen): string[] {
  const { consistency, consistent, unused, repair } = home;
  const out = ["", "Home:"];
  if (repair) {
    const { repaired, pruned } = repair;
    out.push(
      `  repaired: ${repaired.missing.length} entries without files dropped, ${repaired.orphans.length} orphans moved to .trash, ${repaired.leftovers.length} leftovers cleared, ${pruned.length} unused files removed`,
    );
  }
  if (consistent) out.push(`  ${s.green("✓")} registry and skill directories agree`);
  for (const m of consistency.missing) {
    out.push(`  ${s.red("✗")} registry entry '${m}' has no files`);
  }
  for (const o of consistency.orphans) out.push(`  ${s.red("✗")} orphaned skill directory ${o}`);
  if (!consistent) out.push("  Run `skills check --repair` to fix");
  if (unused.length > 0) {
    out.push(
      `  ○ ${unused.length} unused file(s) from other versions, removed skills or folders gone (removed by \`skills check --repair\`)`,
    );
  }
  if (consistency.leftovers.length > 0) {
    out.push(
      `  ○ ${consistency.leftovers.length} leftover(s) from interrupted commands (cleared by the next change)`,
    );
  }
  return out;
}

function projectLines({ shown, links }: CheckResults["project"], { s }: Seen): string[] {
  const out: string[] = [];
  if (shown !== undefined) {
    const { lock } = shown;
    out.push("", `Project: ${shown.root}`);
    out.push(
      lock.state === "absent"
        ? "  ○ no skills-lock.json (record skills with `skills add <source> --project`)"
        : lock.state === "ok"
        ? `  ${s.green("✓")} skills-lock.json records ${
          Object.keys(lock.lock.skills).length
        } skill(s)`
        : `  ${lock.state === "invalid" ? s.red("✗") : "○"} skills-lock.json`,
    );
    for (const d of shown.drift) {
      const mark = d.severity === "error" ? s.red("✗") : "○";
      out.push(`  ${mark} ${d.name}: ${d.problem}; ${d.fix}`);
    }
  }
  if (links.length > 0) out.push("", "Links:");
  for (const l of links) out.push(`  ${s.red("✗")} ${l.link.skill}: ${l.problem}; ${l.fix}`);
  return out;
}

/** Each check's lines of the text report, in the order they are printed. */
const LINES: { [K in CheckId]: (result: CheckResults[K], seen: Seen) => string[] } = {
  skills: skillLines,
  warnings: (warnings, { s }) => warnings.map((w) => `${s.yellow("warning")}: ${w}`),
  project: projectLines,
  tools: toolLines,
  sandbox: sandboxLines,
  home: homeLines,
};

/** The whole text report, lines without their final newline. */
export function doctorText(report: DoctorReport, color: boolean): string[] {
  const seen: Seen = { s: style(color), noneActive: report.session.active.size === 0 };
  const out: string[] = [`skills ${VERSION}`, `Home: ${report.session.home}`, ""];
  for (const id of Object.keys(LINES) as CheckId[]) {
    const result = report.results[id];
    // A check not named on the command line did not look.
    if (result === undefined) continue;
    out.push(...(LINES[id] as (r: unknown, seen: Seen) => string[])(result, seen));
  }
  // Each section opens with a blank line; without the skills' lines one would follow the
  // header's.
  return out.filter((line, at) => !(line === "" && out[at - 1] === ""));
}
