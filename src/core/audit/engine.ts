/**
 * The audit engine: applies the rule records of audit_rules.ts to a skill's files (given
 * as bytes, so the OS stays outside) and reports findings with file, line, rule and the
 * matched excerpt (control and invisible characters shown escaped). Also what an update
 * adds compared with the installed version.
 */

import { FenceReader, shownText } from "./markdown_fences.ts";
import type { HostOwner } from "../policy/host_owners.ts";
import { formatNetGrant, namesNonPublicAddress, type NetPolicy } from "../policy/net_grants.ts";
import { codeLanguageOf, inSpans, readCode, readsOwnSource, type Span } from "./flow/audit_code.ts";
import { documentFlows, saidInProse } from "./document_code.ts";
import {
  AUDIT_MAX_FILE_BYTES,
  AUDIT_RULES,
  AUDIT_RULES_VERSION,
  type AuditRule,
  type FileKind,
  SEVERITIES,
  type Severity,
} from "./audit_rules.ts";
import type { AstId } from "./owasp_ast.ts";
import { analyzeFlows, type Flow } from "./flow/flow.ts";
import { isEnvFileLabel } from "./flow/vocabulary.ts";
import { remoteInstructionSpots } from "./remote_instructions.ts";
import {
  EXCERPT_CHARS,
  flowExcerpt,
  type FlowNote,
  flowSeverity,
  hostsNamed,
} from "./flow_findings.ts";
import { cacheableFile, type FileFindings } from "./file_findings.ts";
import { PatternGate } from "./literals/pattern_gate.ts";

export interface AuditFile {
  /** Path inside the skill, `/`-separated (`SKILL.md`, `scripts/run.py`). */
  path: string;
  /** The file's bytes (at most AUDIT_MAX_FILE_BYTES of them). */
  bytes: Uint8Array;
  /** The file's full size when `bytes` holds only its beginning. */
  size?: number;
}

interface AuditInput {
  files: readonly AuditFile[];
  /** The skill's name and `permissions.env`, when its manifest could be read. */
  name?: string | undefined;
  envPatterns?: readonly string[] | undefined;
  /** Its `permissions.network`, when its manifest could be read. */
  network?: NetPolicy | undefined;
  /** Its `permissions.services` (scripts that may keep running), when its manifest could be read. */
  services?: readonly string[] | undefined;
}

/** What the rules read of the manifest besides the files. */
type ManifestInput = Pick<AuditInput, "name" | "envPatterns" | "network" | "services">;

export interface Finding {
  rule: string;
  /** The rule's OWASP Agentic Skills Top 10 category (`AST01`…`AST10`). */
  ast: AstId;
  severity: Severity;
  title: string;
  explanation: string;
  file: string;
  line: number;
  /** The matched text, clipped, with control and invisible characters escaped. */
  excerpt: string;
}

export interface AuditReport {
  rules_version: string;
  files: number;
  /** Most severe first, then by file and line. */
  findings: Finding[];
  counts: Record<Severity, number>;
  /** Every distinct URL the skill names (the network-endpoint findings). */
  endpoints: string[];
}

const SCRIPT_EXTENSIONS = new Set([
  "py",
  "sh",
  "bash",
  "zsh",
  "fish",
  "js",
  "mjs",
  "cjs",
  "ts",
  "mts",
  "rb",
  "pl",
  "php",
  "ps1",
  "psm1",
  "bat",
  "cmd",
  "lua",
  // Languages a skill's scripts are run in with a command of their own (`go run`, `Rscript`,
  // `swift`, `dotnet script`): scripts the audit does not follow (unread-script).
  "go",
  "rs",
  "swift",
  "cs",
  "csx",
  "java",
  "kt",
  "kts",
  "r",
  "jl",
  "ex",
  "exs",
  "groovy",
  "scala",
  "dart",
  "tcl",
]);
const PROSE_EXTENSIONS = new Set(["md", "markdown", "mdx", "txt", "rst"]);
const EXECUTABLE_EXTENSIONS = new Set([
  "exe",
  "dll",
  "so",
  "dylib",
  "pyc",
  "pyo",
  "class",
  "jar",
  "whl",
  "node",
  "wasm",
  "bin",
]);

/**
 * Audits one skill. Pure: every byte it looks at is in `input`. Without `owner`
 * (core/policy/host_owners.ts `hostOwner`), a secret sent to a host only the Public Suffix List
 * can judge keeps the severity it was found with.
 */
export function auditSkill(input: AuditInput, owner?: (host: string) => HostOwner): AuditReport {
  const audit = new SkillAudit(input);
  for (const file of input.files) audit.add(file);
  return audit.report(owner);
}

/**
 * An audit fed one file at a time, so that a reader never holds a whole skill in memory:
 * `add` each file (its bytes can be dropped afterwards), then take the `report`.
 */
export class SkillAudit {
  readonly #facts: ManifestInput;
  readonly #findings: Finding[] = [];
  /** Secret flows, judged at the end by the hosts the skill declares. */
  readonly #notes = new Map<Finding, FlowNote>();
  readonly #declared = new Set<string>();
  #files = 0;

  constructor(facts: ManifestInput) {
    this.#facts = facts;
  }

  /**
   * Adds one file. `known`: its findings as a cache keeps them (file_findings.ts; never
   * SKILL.md's, which depend on the manifest too), used instead of reading it again. Returns
   * the file's findings in that shape, for a cache to keep.
   */
  add(file: AuditFile, known?: FileFindings): FileFindings {
    this.#files++;
    const found = known !== undefined && cacheableFile(file)
      ? known
      : fileFindings(file, this.#facts);
    for (const stored of found.findings) {
      const rule = RULES_BY_ID.get(stored.rule)!;
      const f: Finding = {
        rule: rule.id,
        ast: rule.ast,
        severity: stored.severity,
        title: rule.title,
        explanation: rule.explanation,
        file: file.path,
        line: stored.line,
        excerpt: stored.excerpt,
      };
      this.#findings.push(f);
      if (stored.note !== undefined) this.#notes.set(f, stored.note);
    }
    if (file.path === "SKILL.md") {
      const shown = shownText(UTF8.decode(file.bytes));
      for (const host of hostsNamed(shown)) this.#declared.add(host);
    }
    return found;
  }

  /**
   * Hosts the last {@link report} judged without knowing who owns them (see `owner` there):
   * when any, the caller loads core/policy/host_owners.ts and asks for the report again.
   */
  readonly unjudged = new Set<string>();

  /** The findings, each secret sent judged by where it goes (`owner`: see {@link unjudged}). */
  report(owner?: (host: string) => HostOwner): AuditReport {
    for (const grant of this.#facts.network?.grants ?? []) {
      this.#declared.add(grant.host.toLowerCase());
    }
    this.unjudged.clear();
    const facts = {
      declared: this.#declared,
      skill: this.#facts.name,
      owner,
      unjudged: this.unjudged,
    };
    const judged = this.#findings.map((f) => {
      const note = this.#notes.get(f);
      if (note === undefined) return f;
      return { ...f, severity: flowSeverity(note, facts, f.severity) };
    });
    const findings = judged.sort(compareFindings);
    const counts = { critical: 0, high: 0, medium: 0, info: 0 };
    for (const f of findings) counts[f.severity]++;
    const endpoints = [
      ...new Set(findings.filter((f) => f.rule === "network-endpoint").map((f) => f.excerpt)),
    ].sort();
    return { rules_version: AUDIT_RULES_VERSION, files: this.#files, findings, counts, endpoints };
  }
}

function compareFindings(a: Finding, b: Finding): number {
  const s = SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity);
  if (s !== 0) return s;
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line !== b.line) return a.line - b.line;
  return a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0;
}

/** A region of a text file read as one kind; `offset` is where it starts in the file. */
interface Region {
  kind: FileKind;
  text: string;
  offset: number;
}

const RULES_BY_ID = new Map(AUDIT_RULES.map((rule) => [rule.id, rule]));

/** One file's findings without its path, each with its flow note (file_findings.ts). */
function fileFindings(
  file: AuditFile,
  input: ManifestInput,
): FileFindings {
  const { findings, notes } = auditFile(file, input);
  return {
    findings: findings.map((f) => {
      const note = notes.get(f);
      const stored = { rule: f.rule, severity: f.severity, line: f.line, excerpt: f.excerpt };
      return note === undefined ? stored : { ...stored, note };
    }),
  };
}

/** Every rule over one file: a binary by its class, a text file region by region. */
function auditFile(
  file: AuditFile,
  input: ManifestInput,
): { findings: Finding[]; notes: Map<Finding, FlowNote> } {
  const text = decodeText(file.bytes);
  if (text === undefined) return { findings: auditBinary(file), notes: new Map() };
  const audit = openFileAudit(file, input, text);
  for (const rule of AUDIT_RULES) {
    for (const region of audit.regions) {
      if (rule.kinds.includes(region.kind)) matchRule(audit, rule, region);
    }
  }
  dropTwinFlows(audit);
  addCombinedRules(audit);
  return { findings: audit.out, notes: audit.notes };
}

/** A file that is not text: only the binary rules for its class (media passes). */
function auditBinary(file: AuditFile): Finding[] {
  const out: Finding[] = [];
  const cls = binaryClass(file);
  for (const rule of AUDIT_RULES) {
    if (rule.match.type === "binary" && cls !== "media" && rule.match.classes.includes(cls)) {
      out.push(finding(rule, file.path, 1, describeBinary(file.bytes)));
    }
  }
  return out;
}

/**
 * What every rule over one text file shares, worked out once: its regions, each region's
 * folded readings, the inert spans (comments, docstrings) of its scripts, the findings so
 * far and the rules that fired in code.
 */
interface FileAudit {
  file: AuditFile;
  input: ManifestInput;
  regions: Region[];
  /** Each region read as a reviewer would (confusables folded, string pieces joined). */
  readingsOf: Map<Region, readonly string[]>;
  out: Finding[];
  /**
   * Rules that fired in code (not in a comment), each with the text it matched there: what
   * the `together` rules combine.
   */
  fired: Map<string, string[]>;
  /** Each script region's data flows (flow/). */
  flowsOf: Map<Region, readonly Flow[]>;
  /** The flow behind each secret-flow finding. */
  notes: Map<Finding, FlowNote>;
  lineAt(offset: number): number;
  /** Whether `index` of the region lies in a comment or docstring of a script. */
  isInert(region: Region, index: number): boolean;
  /** Whether `pattern` can match `text`: false when the text lacks literals it requires. */
  mayMatch(pattern: RegExp, text: string): boolean;
  /** A match at file offset `at`, its severity by context (lowered in a comment). */
  push(rule: AuditRule, region: Region, at: number, matched: string): void;
  /** A finding that always counts as fired (the permission, layout and size rules). */
  report(rule: AuditRule, line: number, matched: string, severity?: Severity): void;
}

function openFileAudit(
  file: AuditFile,
  input: ManifestInput,
  text: string,
): FileAudit {
  const lines = lineStarts(text);
  const lineAt = (offset: number) => lineOf(lines, offset);
  const regions = regionsOf(file.path, text);
  // Folded once per region, matched by every rule.
  const readingsOf = new Map(regions.map((region) => [region, readings(region)]));
  const flowsOf = new Map<Region, readonly Flow[]>();
  const inertOf = inertSpans(file, regions, readingsOf, flowsOf);
  const isInert = (region: Region, index: number) => {
    const spans = inertOf.get(region);
    return spans !== undefined && inSpans(spans, index);
  };
  const out: Finding[] = [];
  const fired = new Map<string, string[]>();
  const fire = (id: string, matched: string) => {
    const list = fired.get(id);
    if (list === undefined) fired.set(id, [matched]);
    else list.push(matched);
  };
  const push = (rule: AuditRule, region: Region, at: number, matched: string) => {
    const inert = isInert(region, at - region.offset);
    const severity = inert && !HIDING_RULES.has(rule.id)
      ? commentSeverity(rule.severity)
      : severityInContext(rule, file.path, region, at - region.offset, matched);
    out.push(finding(rule, file.path, lineAt(at), matched, false, severity));
    if (!inert) fire(rule.id, matched);
  };
  const report = (rule: AuditRule, line: number, matched: string, severity?: Severity) => {
    out.push(finding(rule, file.path, line, matched, false, severity));
    fire(rule.id, matched);
  };
  const notes = new Map<Finding, FlowNote>();
  // Each reading scanned once, for every pattern of every rule (null: not scanned, all run).
  const literalsOf = new Map<string, Uint8Array | null>();
  const mayMatch = (pattern: RegExp, text: string) => {
    let found = literalsOf.get(text);
    if (found === undefined) {
      auditedChars += text.length;
      found = auditedChars > GATE_AFTER_CHARS ? patternGate().scan(text) : null;
      literalsOf.set(text, found);
    }
    return found === null || patternGate().mayMatch(pattern, found);
  };
  return {
    file,
    input,
    regions,
    readingsOf,
    out,
    fired,
    flowsOf,
    notes,
    lineAt,
    isInert,
    mayMatch,
    push,
    report,
  };
}

/**
 * Text a process audits before the patterns are gated: building the gate takes ~20 ms and
 * saves ~100 ns a character (a skill of 40 KB would pay more than it gains; anthropics/skills'
 * 17 MB and a documentation skill's 47 MB gain seconds).
 */
const GATE_AFTER_CHARS = 256 * 1024;
let auditedChars = 0;
let gate: PatternGate | undefined;

/** The rules' patterns and their required literals, read once a process. */
function patternGate(): PatternGate {
  return gate ??= new PatternGate(
    AUDIT_RULES.flatMap((rule) =>
      rule.match.type === "pattern" || rule.match.type === "remote-instructions"
        ? rule.match.patterns
        : []
    ),
  );
}

/**
 * A script's comments and docstrings, told apart by a tokenizer (flow/audit_code.ts). A script
 * that reads its own source can run what its comments hold: none is inert then — whether it
 * names the read (`open(__file__)`, read as written and with string pieces joined: `"__do" +
 * "c__"` is `__doc__`) or its flows carry a file's text to exec, a shell or an interpreter
 * (`open(os.path.realpath(__file__)).read()` by way of any names).
 */
function inertSpans(
  file: AuditFile,
  regions: readonly Region[],
  readingsOf: ReadonlyMap<Region, readonly string[]>,
  flowsOf: Map<Region, readonly Flow[]>,
): Map<Region, readonly Span[]> {
  const inertOf = new Map<Region, readonly Span[]>();
  for (const region of regions) {
    if (region.kind === "instructions") {
      const flows = documentFlows(region.text);
      if (flows.length > 0) flowsOf.set(region, flows);
      continue;
    }
    if (region.kind !== "script") continue;
    const language = codeLanguageOf(file.path, region.text);
    if (language === undefined) continue;
    const reading = readCode(language, region.text);
    const texts = readingsOf.get(region)!;
    const ownSource = texts.some((text) => readsOwnSource(text, reading));
    // The flows of the code (of the text with string pieces joined, when there is one).
    const flows = analyzeFlows(language, region.text, ownSource ? [] : reading.inert);
    flowsOf.set(region, flows);
    if (!ownSource && !flows.some((flow) => flow.kind === "file-exec")) {
      inertOf.set(region, reading.inert);
    }
  }
  return inertOf;
}

/** One rule over one region of its kinds, by the way the rule matches. */
function matchRule(audit: FileAudit, rule: AuditRule, region: Region): void {
  const m = rule.match;
  if (m.type === "pattern") matchPatterns(audit, rule, m, region);
  else if (m.type === "folded-name") matchFoldedNames(audit, rule, m, region);
  else if (m.type === "html-comment") matchHtmlComments(audit, rule, m, region);
  else if (m.type === "flow") matchFlows(audit, rule, m, region);
  else if (m.type === "remote-instructions") {
    matchPatterns(audit, rule, { type: "pattern", patterns: m.patterns }, region);
    const seen = new Set(audit.out.filter((f) => f.rule === rule.id).map((f) => f.line));
    for (const index of remoteInstructionSpots(region.text)) {
      const at = region.offset + index;
      if (seen.has(audit.lineAt(at))) continue;
      seen.add(audit.lineAt(at));
      audit.push(rule, region, at, region.text.slice(index, index + 100).split("\n")[0]!);
    }
  } else if (m.type === "env-permission" && region.kind === "frontmatter") {
    matchEnvPermission(audit, rule, region);
  } else if (m.type === "network-permission" && region.kind === "frontmatter") {
    matchNetworkPermission(audit, rule, region);
  } else if (m.type === "services-permission" && region.kind === "frontmatter") {
    matchServicesPermission(audit, rule, region);
  } else if (m.type === "minified") {
    const longest = longestLine(region.text);
    if (longest.length > m.maxLineLength) {
      const at = region.offset + longest.start;
      audit.report(rule, audit.lineAt(at), region.text.slice(at, at + 80));
    }
  } else if (m.type === "unread-script" && !audit.flowsOf.has(region)) {
    // What it is, as its file says: the `#!` line, or the extension.
    const end = region.text.indexOf("\n");
    const first = end === -1 ? region.text : region.text.slice(0, end);
    const what = first.startsWith("#!") ? first.slice(0, 80) : `.${extensionOf(audit.file.path)}`;
    audit.report(rule, 1, what);
  } else if (m.type === "oversized" && region.offset === 0) {
    const { file } = audit;
    if ((file.size ?? file.bytes.length) > m.bytes) audit.report(rule, 1, `${file.size} bytes`);
  }
}

type MatchOf<T extends AuditRule["match"]["type"]> = Extract<AuditRule["match"], { type: T }>;

/**
 * Matched on the text read as a reviewer would (confusables folded, string pieces joined);
 * reported with the file's own characters. Both keep every offset. One finding per rule
 * and line, however many of its patterns (or readings) match.
 */
function matchPatterns(
  audit: FileAudit,
  rule: AuditRule,
  m: MatchOf<"pattern">,
  region: Region,
): void {
  const seen = new Set<number>();
  /**
   * Each line's matches lowered where they stand (a comment, an echoed message, a known
   * installer): they speak for their own text, not for the rest of the line — `echo "try:
   * curl … | sh"; curl … | sh` runs the second, whatever the first.
   */
  const lowered = new Map<number, [number, number][]>();
  for (const text of audit.readingsOf.get(region)!) {
    for (const pattern of m.patterns) {
      if (!audit.mayMatch(pattern, text)) continue;
      for (const match of text.matchAll(pattern)) {
        // (Every URL is listed, though: network-endpoint keys by position.)
        const line = rule.id === "network-endpoint"
          ? -match.index! - 1
          : audit.lineAt(region.offset + match.index!);
        if (seen.has(line)) continue;
        const [start, end] = [match.index!, match.index! + match[0].length];
        if (lowered.get(line)?.some(([a, b]) => start < b && a < end)) continue;
        let matched = region.text.slice(start, end);
        if (rule.id === "network-endpoint") matched = matched.replace(/[.,;:!?*_~]+$/, "");
        if (m.unless?.test(matched)) continue;
        if (rule.id === "prompt-injection" && isAdvisory(text, match.index!, match[0])) {
          continue;
        }
        audit.push(rule, region, region.offset + start, matched);
        if (audit.out.at(-1)!.severity === rule.severity) seen.add(line);
        else lowered.set(line, [...lowered.get(line) ?? [], [start, end]]);
      }
    }
  }
}

/** Names built from pieces (`"__im" + "port__"`), outside comments. */
function matchFoldedNames(
  audit: FileAudit,
  rule: AuditRule,
  m: MatchOf<"folded-name">,
  region: Region,
): void {
  for (const piece of concatenations(region.text)) {
    if (!m.names.test(piece.value) || audit.isInert(region, piece.index)) continue;
    audit.push(rule, region, region.offset + piece.index, piece.source);
  }
}

/** A flow rule and the pattern rule that says the same when both see one line. */
const TWINS: Readonly<Record<string, string>> = {
  "download-exec-flow": "fetch-and-execute",
  "decode-exec-flow": "decode-and-execute",
  "persistence-write": "persistence",
};

/** A flow found on a line where its pattern twin already reports it: said once. */
function dropTwinFlows(audit: FileAudit): void {
  const lines = new Set(audit.out.map((f) => `${f.rule}:${f.line}`));
  const kept = audit.out.filter((f) => {
    const twin = TWINS[f.rule];
    return twin === undefined || !lines.has(`${twin}:${f.line}`);
  });
  audit.out.splice(0, audit.out.length, ...kept);
}

/** Flows of the rule's kind found in a script region (flow/). */
function matchFlows(audit: FileAudit, rule: AuditRule, m: MatchOf<"flow">, region: Region): void {
  for (const flow of audit.flowsOf.get(region) ?? []) {
    if (flow.kind !== m.kind) continue;
    const at = region.offset + flow.at;
    audit.push(rule, region, at, flowExcerpt(region.text, flow));
    const pushed = audit.out.at(-1)!;
    if (saidInProse(flow) && SEVERITIES.indexOf(pushed.severity) < SEVERITIES.indexOf("medium")) {
      pushed.severity = "medium";
    }
    if (flow.kind === "secret-network") {
      audit.notes.set(pushed, {
        host: flow.host,
        secrets: flow.secrets,
        inName: flow.inName,
        inDocument: region.kind === "instructions",
        hidden: flow.hidden,
      });
    }
  }
}

/** HTML comments (hidden when rendered) whose text the rule names. */
function matchHtmlComments(
  audit: FileAudit,
  rule: AuditRule,
  m: MatchOf<"html-comment">,
  region: Region,
): void {
  for (const match of region.text.matchAll(/<!--([\s\S]*?)(?:-->|$)/g)) {
    if (!m.pattern.test(match[1]!)) continue;
    // In a code block or code span the comment is shown as written: nothing is hidden.
    if (inCode(region.text, match.index!)) continue;
    // A template's comments guide whoever fills it in ("describe when the agent should
    // use each tool"): shown, at medium.
    const severity = TEMPLATE_PATH.test(audit.file.path) ? "medium" : rule.severity;
    audit.report(rule, audit.lineAt(region.offset + match.index!), match[0], severity);
  }
}

/** `permissions.env` patterns broader than the skill's own name. */
function matchEnvPermission(audit: FileAudit, rule: AuditRule, region: Region): void {
  const { input } = audit;
  for (const pattern of broadEnvPatterns(input.name, input.envPatterns ?? [])) {
    const index = region.text.indexOf(pattern);
    const at = region.offset + (index === -1 ? 0 : index);
    audit.report(rule, audit.lineAt(at), `permissions.env: ${pattern}`);
  }
}

/** `permissions.network` grants that name a non-public address. */
function matchNetworkPermission(audit: FileAudit, rule: AuditRule, region: Region): void {
  for (const grant of audit.input.network?.grants ?? []) {
    if (!namesNonPublicAddress(grant)) continue;
    const text = formatNetGrant(grant);
    const index = region.text.indexOf(grant.host);
    const at = region.offset + (index === -1 ? 0 : index);
    audit.report(rule, audit.lineAt(at), `permissions.network: ${text}`);
  }
}

/** `permissions.services`: one finding naming the scripts that may keep running. */
function matchServicesPermission(audit: FileAudit, rule: AuditRule, region: Region): void {
  const services = audit.input.services ?? [];
  if (services.length === 0) return;
  const index = region.text.search(/^\s*services\s*:/m);
  const at = region.offset + (index === -1 ? 0 : index);
  audit.report(rule, audit.lineAt(at), `permissions.services: ${services.join(", ")}`);
}

/** Rules made of other rules: both fired in this file, and the file is of the right kind. */
function addCombinedRules(audit: FileAudit): void {
  for (const rule of AUDIT_RULES) {
    const m = rule.match;
    if (m.type !== "together") continue;
    if (!audit.regions.some((r) => rule.kinds.includes(r.kind))) continue;
    if (!m.rules.every((id) => audit.fired.has(id))) continue;
    const first = audit.out.find((f) => f.rule === m.rules[0])!;
    const severity = envReadFollowed(audit, m.rules) ? "high" : rule.severity;
    audit.out.push(finding(rule, audit.file.path, first.line, first.excerpt, true, severity));
  }
}

/** A credential read whose file is a project's `.env` (`load_dotenv(".env")`, `cat .env`). */
const ENV_FILE_READ = /(?<![\w-])\.env$/;

/**
 * Whether the credentials a combined rule counts are only a project's `.env` (where a skill's
 * own API keys live), read by a script whose data flows were followed (flow/) and carry none
 * of that file to the network — its keys read by name are judged there, each by where it
 * goes. Then the combination is shown, not refused: what reads the file and sends it is
 * secret-flow's critical finding, found whatever the names on the way. Any other credential
 * (SSH keys, a cloud's store), or a script in a language whose flows are not followed,
 * keeps the rule's severity.
 */
function envReadFollowed(audit: FileAudit, rules: readonly string[]): boolean {
  const reads = rules.includes("credential-read") ? audit.fired.get("credential-read") : [];
  if (reads === undefined || reads.length === 0) return false;
  if (!reads.every((read) => ENV_FILE_READ.test(read))) return false;
  const flows = [...audit.flowsOf.values()];
  return flows.length > 0 &&
    flows.every((list) => list.every((flow) => !flow.secrets.some(isEnvFileLabel)));
}

function finding(
  rule: AuditRule,
  file: string,
  line: number,
  matched: string,
  escaped = false,
  severity: Severity = rule.severity,
): Finding {
  return {
    rule: rule.id,
    ast: rule.ast,
    severity,
    title: rule.title,
    explanation: rule.explanation,
    file,
    line,
    excerpt: escaped ? matched : excerptOf(matched),
  };
}

/** One strict decoder for every file: a call without `stream` keeps no state between files. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const UTF8 = new TextDecoder();

/** UTF-8 text, or undefined for a binary file (a NUL byte, or bytes that are not UTF-8). */
function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    // A file cut at the size cap may end inside a character: judge it without the cut.
    if (bytes.length < AUDIT_MAX_FILE_BYTES) return undefined;
    try {
      return STRICT_UTF8.decode(bytes.subarray(0, bytes.length - 4));
    } catch {
      return undefined;
    }
  }
}

const MEDIA_MAGIC: readonly number[][] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x25, 0x50, 0x44, 0x46], // PDF
  [0x00, 0x00, 0x01, 0x00], // ICO
  [0x77, 0x4f, 0x46, 0x46], // WOFF
  [0x77, 0x4f, 0x46, 0x32], // WOFF2
  [0x00, 0x01, 0x00, 0x00], // TrueType
  [0x4f, 0x54, 0x54, 0x4f], // OpenType
];
const EXECUTABLE_MAGIC: readonly number[][] = [
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0xfe, 0xed, 0xfa, 0xce], // Mach-O
  [0xfe, 0xed, 0xfa, 0xcf],
  [0xce, 0xfa, 0xed, 0xfe],
  [0xcf, 0xfa, 0xed, 0xfe],
  [0xca, 0xfe, 0xba, 0xbe], // Mach-O universal, Java class
  [0x4d, 0x5a], // PE (MZ)
  [0x00, 0x61, 0x73, 0x6d], // WebAssembly
];

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

/** `executable`, `opaque`, or `media` (images, fonts, PDFs: binary, but not code). */
function binaryClass(file: AuditFile): "executable" | "opaque" | "media" {
  const ext = extensionOf(file.path);
  if (EXECUTABLE_EXTENSIONS.has(ext) || EXECUTABLE_MAGIC.some((m) => startsWith(file.bytes, m))) {
    return "executable";
  }
  const riff = startsWith(file.bytes, [0x52, 0x49, 0x46, 0x46]); // WebP, WAV
  if (riff || MEDIA_MAGIC.some((m) => startsWith(file.bytes, m))) return "media";
  return "opaque";
}

function describeBinary(bytes: Uint8Array): string {
  const head = [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
  return `binary, starts with ${head}`;
}

function extensionOf(path: string): string {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

/** How a text file is read: SKILL.md as front matter + instructions, others by their kind. */
function regionsOf(path: string, text: string): Region[] {
  if (path === "SKILL.md") {
    const fence = /^---[ \t\r]*\n/.exec(text);
    if (fence !== null) {
      const close = /^---[ \t\r]*$/m;
      close.lastIndex = 0;
      const rest = text.slice(fence[0].length);
      const end = close.exec(rest);
      if (end !== null) {
        const bodyStart = fence[0].length + end.index;
        return [
          { kind: "frontmatter", text: rest.slice(0, end.index), offset: fence[0].length },
          { kind: "instructions", text: text.slice(bodyStart), offset: bodyStart },
        ];
      }
    }
    return [{ kind: "instructions", text, offset: 0 }];
  }
  const ext = extensionOf(path);
  if (PROSE_EXTENSIONS.has(ext)) return [{ kind: "instructions", text, offset: 0 }];
  if (SCRIPT_EXTENSIONS.has(ext) || text.startsWith("#!")) {
    return [{ kind: "script", text, offset: 0 }];
  }
  return [{ kind: "text", text, offset: 0 }];
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of `offset` (binary search over line starts). */
function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function longestLine(text: string): { start: number; length: number } {
  let best = { start: 0, length: 0 };
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (end - start > best.length) best = { start, length: end - start };
    start = end + 1;
  }
  return best;
}

/**
 * `permissions.env` wildcards that do not name the skill: the stem before `*` must start
 * with a word of the skill's name (`KALSHI_*` in kalshi-markets; not `AWS_*` in pdf).
 */
export function broadEnvPatterns(
  name: string | undefined,
  patterns: readonly string[],
): string[] {
  const words = (name ?? "").toUpperCase().split(/[-_]/).filter((w) => w.length >= 2);
  return patterns.filter((pattern) => {
    const star = pattern.indexOf("*");
    if (star === -1) return false;
    const stem = pattern.slice(0, star).toUpperCase();
    return stem.length < 3 || !words.some((word) => stem.startsWith(word));
  });
}

/** Escapes what a terminal would not show (or would interpret): `\n`, `\u200b`, `\u{e0041}`. */
export function escapeInvisible(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (isInvisible(code)) {
      out += code > 0xffff
        ? `\\u{${code.toString(16)}}`
        : `\\u${code.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return out;
}

function isInvisible(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x00ad || code === 0x034f ||
    code === 0x061c || code === 0x115f || code === 0x1160 || code === 0x180e ||
    (code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x206f) || code === 0x3164 || (code >= 0xfe00 && code <= 0xfe0f) ||
    code === 0xfeff || code === 0xffa0 || (code >= 0xe0000 && code <= 0xe007f) ||
    (code >= 0xe0100 && code <= 0xe01ef);
}

/** The text tag characters spell (U+E0020–U+E007E map to ASCII), or "" when none. */
function tagText(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xe0020 && code <= 0xe007e) out += String.fromCharCode(code - 0xe0000);
  }
  return out;
}

/** Printable ASCII only: nothing to clip by code point, escape or decode. */
const PLAIN_TEXT = /^[\x20-\x7e]*$/;

function excerptOf(matched: string): string {
  // Most matches (every URL listed) are short plain text, shown as they are.
  if (matched.length <= EXCERPT_CHARS && PLAIN_TEXT.test(matched)) return matched;
  const chars = [...matched];
  const clipped = chars.length > EXCERPT_CHARS
    ? `${chars.slice(0, EXCERPT_CHARS).join("")}…`
    : matched;
  const hidden = tagText(matched);
  const decoded = hidden === "" ? "" : ` (hidden text: "${escapeInvisible(hidden.slice(0, 200))}")`;
  return escapeInvisible(clipped) + decoded;
}

function findingKey(f: Finding): string {
  return `${f.rule}\u0000${f.file}\u0000${f.excerpt}`;
}

/** What an update adds: new critical or high findings, and every new endpoint. */
export interface AuditDelta {
  findings: Finding[];
  endpoints: string[];
}

/** Compares two versions of a skill; lines move between versions, so they are not compared. */
export function auditAdded(before: AuditReport, after: AuditReport): AuditDelta {
  const known = new Set(before.findings.map(findingKey));
  const findings = after.findings.filter((f) =>
    (f.severity === "critical" || f.severity === "high") && !known.has(findingKey(f))
  );
  const oldEndpoints = new Set(before.endpoints);
  return { findings, endpoints: after.endpoints.filter((e) => !oldEndpoints.has(e)) };
}

export { AUDIT_RULES, SEVERITIES, type Severity };

// --- Reading text as a reviewer would -------------------------------------------------

/**
 * Latin look-alikes of Cyrillic and Greek letters (and fullwidth forms), one UTF-16 unit
 * each, so that offsets in the folded text are offsets in the file.
 */
const CONFUSABLES: Record<string, string> = Object.fromEntries(
  [
    ["аa", "вb", "сc", "еe", "һh", "іi", "јj", "кk", "мm", "нh", "оo", "рp", "ԛq", "ѕs", "тt"],
    ["уy", "хx", "ԝw", "ӏl", "АA", "ВB", "СC", "ЕE", "НH", "ІI", "ЈJ", "КK", "МM", "ОO", "РP"],
    ["ЅS", "ТT", "ХX", "УY", "αa", "εe", "ιi", "κk", "νv", "οo", "ρp", "τt", "υu", "χx", "ΑA"],
    ["ΒB", "ΕE", "ΗH", "ΙI", "ΚK", "ΜM", "ΝN", "ΟO", "ΡP", "ΤT", "ΥY", "ΧX", "ΖZ", "ɡg", "ı" + "i"],
  ].flat().map((pair) => [pair[0]!, pair[1]!]),
);

/** Greek, Cyrillic (and supplement), ɡ, ı and fullwidth ASCII: where confusables live. */
const CONFUSABLE_RANGE = /[\u0370-\u052F\u0261\u0131\uFF01-\uFF5E]/g;

function foldConfusables(text: string): string {
  return text.replace(CONFUSABLE_RANGE, (c) => {
    const code = c.charCodeAt(0);
    return code >= 0xff01 ? String.fromCharCode(code - 0xfee0) : CONFUSABLES[c] ?? c;
  });
}

/** A string literal joined from pieces: `"sys" + "tem"` → `system`, at `index`. */
interface Concatenation {
  index: number;
  source: string;
  value: string;
}

const CONCATENATION =
  /(["'`])([^"'`\\\n]*)\1(?:[ \t]*\+[ \t]*(["'`])([^"'`\\\n]*)\3)+|(["'])([^"'\\\n]*)\5(?:[ \t]+\5?)/g;
const LITERAL = /(["'`])([^"'`\\\n]*)\1/g;

function concatenations(text: string): Concatenation[] {
  const out: Concatenation[] = [];
  for (const m of text.matchAll(CONCATENATION)) {
    if (!m[0].includes("+")) continue;
    const value = [...m[0].matchAll(LITERAL)].map((l) => l[2]).join("");
    out.push({ index: m.index!, source: m[0], value });
  }
  return out;
}

/**
 * The readings of a region that rules match against, all the same length as the region:
 * its text, its text with confusables folded, and (for scripts) with string pieces joined
 * in place (`"sys" + "tem"` read as `"system"` padded with spaces).
 */
function readings(region: Region): string[] {
  const folded = foldConfusables(region.text);
  const out = folded === region.text ? [region.text] : [region.text, folded];
  if (region.kind === "script") {
    const pieces: string[] = [];
    let last = 0;
    for (const c of concatenations(folded)) {
      const quote = c.source[0]!;
      pieces.push(folded.slice(last, c.index), (quote + c.value + quote).padEnd(c.source.length));
      last = c.index + c.source.length;
    }
    if (pieces.length > 0) out.push(pieces.join("") + folded.slice(last));
  }
  return out;
}

/**
 * Prompt-injection phrasing that warns about the phrase rather than uses it: quoted, or
 * after "never", "do not", "such as", "watch for" in the same sentence.
 */
function isAdvisory(text: string, index: number, matched: string): boolean {
  const before = text.slice(Math.max(0, index - 100), index);
  const sentence = before.split(/[.!?\n]\s/).pop() ?? before;
  const after = text.slice(index + matched.length, index + matched.length + 2);
  if (/["'“‘`]\s*$/.test(sentence) && /^\s*["'”’`]|^[^"'”’`]*$/.test(after)) {
    if (/["'”’`]/.test(text.slice(index + matched.length, index + matched.length + 40))) {
      return true;
    }
  }
  return /\b(?:never|not|don'?t|avoid|refuse|resist|reject|ignore\s+requests|watch\s+(?:out\s+)?for|beware|detect|flag|such\s+as|e\.g\.|like|phrases?|attempts?\s+to|example)\b[^.!?]*$/i
    .test(sentence);
}

/**
 * Prose inside fenced code blocks, quotations (`> ...`) or inline code spans: examples, not
 * orders.
 */
function quotedAt(text: string, index: number): boolean {
  const fences = new FenceReader();
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    const fenced = fences.read(line);
    if (index >= start && index <= end) {
      if (fenced || /^\s{0,3}>/.test(line)) return true;
      // Inside an inline code span: an odd number of backticks before it on the line.
      return (line.slice(0, index - start).match(/`/g)?.length ?? 0) % 2 === 1;
    }
    start = end + 1;
  }
  return false;
}

/**
 * Rules about characters that hide text: they matter most in comments and strings (Trojan
 * Source hides code in a comment), so a comment does not lower them.
 */
const HIDING_RULES = new Set(["tag-unicode", "bidi-unicode", "invisible-unicode"]);

/** A finding in a script's comment or docstring: nothing runs it, the reviewer still sees it. */
function commentSeverity(severity: Severity): Severity {
  return severity === "critical" || severity === "high" ? "medium" : severity;
}

/** Files a skill fills in or copies (its assets, its templates), not instructions it gives. */
const TEMPLATE_PATH = /^(?:assets|templates)\/|\/templates?\//;

/** Inside a fenced code block or an inline code span (not a quotation). */
function inCode(text: string, index: number): boolean {
  return quotedAt(text, index) && !/^\s{0,3}>/.test(text.slice(text.lastIndexOf("\n", index) + 1));
}

/** Installers of well-known toolchains, shown in docs as their projects publish them. */
const KNOWN_INSTALLER =
  /^https?:\/\/(?:astral\.sh\/uv|sh\.rustup\.rs|(?:www\.)?rustup\.rs|deno\.land\/install|bun\.sh\/install|get\.docker\.com|raw\.githubusercontent\.com\/(?:nvm-sh\/nvm|Homebrew\/install|pyenv\/pyenv-installer)\/|install\.python-poetry\.org|pyenv\.run|get\.pnpm\.io|sh\.uv\.dev|foundry\.paradigm\.xyz|cli\.github\.com|fnm\.vercel\.app|nixos\.org\/nix\/install|install\.determinate\.systems|get\.helm\.sh|starship\.rs\/install|(?:www\.)?ollama\.com\/install|claude\.ai\/install|opencode\.ai\/install)/i;

/** A downloader and its flags, or the address a line pipes on: what fetches the script run. */
const DOWNLOADER = /^(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)$/i;

/**
 * Whether a download piped to a shell fetches one well-known installer and nothing else: the
 * words before the pipe are a downloader, its flags (`-LsSf`, `--proto '=https'`, `-o-`) and
 * one address that starts with a known installer's — any other word (a second address, a
 * bare `host/path` curl fetches too, a header's text) and it is judged as any download.
 */
function knownInstaller(matched: string): boolean {
  const pipe = matched.indexOf("|");
  const words = matched.slice(0, pipe === -1 ? matched.length : pipe).trim().split(/\s+/)
    .map((word) => word.replace(/^["']|["']$/g, ""));
  if (DOWNLOADER.test(words[0] ?? "")) words.shift();
  // (A Markdown table escapes the pipe: `curl … \| bash` leaves a `\` word.)
  const addresses = words.filter((word) => !/^-|^=https$|^\\$/.test(word));
  return addresses.length === 1 && KNOWN_INSTALLER.test(addresses[0]!);
}

/**
 * The severity of a finding where it stands. A script's code and SKILL.md's instructions
 * keep the rule's severity. In documentation, a well-known toolchain's installer one-liner
 * is information; in a reference document (not SKILL.md), a fenced example or quotation
 * describes rather than orders (critical and high → medium), and credential paths
 * named there (detection rules, troubleshooting) are information.
 */
function severityInContext(
  rule: AuditRule,
  path: string,
  region: Region,
  index: number,
  matched: string,
): Severity {
  if (region.kind === "script" || region.kind === "frontmatter") return rule.severity;
  if (rule.id === "fetch-and-execute" && knownInstaller(matched)) return "info";
  // Templates and data (a Dockerfile, a YAML workflow) are not run by the skill: shown, not
  // refused.
  if (region.kind === "text") return rule.severity === "critical" ? "high" : rule.severity;
  if (path === "SKILL.md") return rule.severity;
  if (rule.id === "credential-read" || rule.id === "persistence") return "info";
  if (rule.severity !== "critical" && rule.severity !== "high") return rule.severity;
  if (!quotedAt(region.text, index)) return rule.severity;
  // Still shown, never refused: the reviewer sees the example, the install goes ahead.
  if (rule.severity === "critical" || rule.severity === "high") return "medium";
  return rule.severity;
}
