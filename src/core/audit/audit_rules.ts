/**
 * The rules of `skills audit`, as data: one record per rule (id, severity, title, the
 * explanation a reviewer reads, the file kinds it looks at, and its matcher). The engine
 * that applies them is engine.ts; tests/core/audit/audit_corpus_test.ts holds, for every rule, a
 * hostile sample that must fire and a benign look-alike that must not.
 *
 * Changing a rule changes AUDIT_RULES_VERSION (a hash of these records, written by `deno task
 * gen`), which makes `skills check` audit installed skills again.
 */

import type { AstId } from "./owasp_ast.ts";
import type { FlowKind } from "./flow/flow_model.ts";

export type Severity = "critical" | "high" | "medium" | "info";

/**
 * What part of a skill a rule reads: SKILL.md's front matter, instructions (SKILL.md's
 * body and other Markdown or text documents), scripts (by extension or shebang), other
 * text files (JSON, YAML, ...). Binary files only meet the `binary` matcher.
 */
export type FileKind = "frontmatter" | "instructions" | "script" | "text";

type Matcher =
  /** One finding per match of any pattern; `unless` drops matches that are known benign. */
  | { type: "pattern"; patterns: readonly RegExp[]; unless?: RegExp }
  /** An HTML comment (invisible once rendered) whose text matches `pattern`. */
  | { type: "html-comment"; pattern: RegExp }
  /** A `permissions.env` pattern with a wildcard whose stem does not name the skill. */
  | { type: "env-permission" }
  /** A `permissions.network` entry naming a local, private or metadata address. */
  | { type: "network-permission" }
  /** `permissions.services`: scripts the skill declares may keep running as services. */
  | { type: "services-permission" }
  /** A file that is not text: compiled code (`executable`) or any other opaque blob. */
  | { type: "binary"; classes: readonly ("executable" | "opaque")[] }
  /** Code written on very long lines (minified, packed or generated). */
  | { type: "minified"; maxLineLength: number }
  /** A script in a language the flow analysis (flow/) does not read. */
  | { type: "unread-script" }
  /**
   * A string built by concatenating literals (`"sys" + "tem"`, `'child_' + 'process'`)
   * whose joined value matches `names`: the author hid which module or call it is.
   */
  | { type: "folded-name"; names: RegExp }
  /** Both rules fired in the same file (e.g. reads credentials and names an endpoint). */
  | { type: "together"; rules: readonly [string, string] }
  /**
   * Prose that has the agent retrieve a URL and obey what comes back (remote_instructions.ts),
   * or matches one of `patterns`.
   */
  | { type: "remote-instructions"; patterns: readonly RegExp[] }
  /** A data flow of this kind inside a script (flow/: source → sink). */
  | { type: "flow"; kind: FlowKind }
  /** A file larger than the audit reads: only its first `bytes` were scanned. */
  | { type: "oversized"; bytes: number };

export interface AuditRule {
  /** Stable id (SARIF ruleId, JSON `rule`). */
  id: string;
  /** The OWASP Agentic Skills Top 10 category the rule detects (owasp_ast.ts). */
  ast: AstId;
  severity: Severity;
  title: string;
  /** Why this matters, for the reviewer; one or two sentences. */
  explanation: string;
  kinds: readonly FileKind[];
  match: Matcher;
}

const ALL_TEXT: readonly FileKind[] = ["frontmatter", "instructions", "script", "text"];
const PROSE: readonly FileKind[] = ["frontmatter", "instructions"];
const CODE_AND_PROSE: readonly FileKind[] = ["frontmatter", "instructions", "script"];

/** The largest part of one file the audit reads. */
export const AUDIT_MAX_FILE_BYTES = 1024 * 1024;

/**
 * An interpreter at the end of a pipe that reads its program from the pipe. One given its
 * program another way reads the pipe as data: `curl …/api | python3 -m json.tool` prints JSON
 * (terrylica's calcom skills), `| python3 -c "…json.load(sys.stdin)…"`, `| node -e …`,
 * `| perl -ne …`, `| bash -c '…'`, `| python3 parse.py`. Each interpreter's own flags say so:
 * bash's `-e` is not a program (it still reads the pipe), node's is.
 */
const SCRIPT_ARG = String.raw`[ \t]+[\w./-]+\.`;
const SHELLS = [
  String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:`,
  String.raw`(?:ba|z|k|da|fi)?sh\b(?![ \t]+-[a-zA-Z]*c\b)(?!${SCRIPT_ARG}(?:sh|bash)\b)`,
  String
    .raw`|python[0-9.]*(?![\w.])(?![ \t]+(?:-[a-zA-Z]+[ \t]+)*-[a-zA-Z]*[cm]\b)(?!${SCRIPT_ARG}py\b)`,
  String.raw`|node\b(?![ \t]+(?:-[ep]\b|--(?:eval|print)\b))(?!${SCRIPT_ARG}[mc]?[jt]s\b)`,
  String.raw`|perl\b(?![ \t]+-[a-zA-Z]*[eE]\b)(?!${SCRIPT_ARG}pl\b)`,
  String.raw`|ruby\b(?![ \t]+-[a-zA-Z]*e\b)(?!${SCRIPT_ARG}rb\b)`,
  String.raw`|php\b(?![ \t]+-r\b)(?!${SCRIPT_ARG}php\b)`,
  String.raw`|(?:deno|iex|Invoke-Expression|pwsh|powershell)\b)`,
].join("");

/**
 * The inside of a `Bash(…)` permission that admits any command: a bare wildcard, or a shell, an
 * interpreter or a program runner, which runs whatever it is given (`python3:*`, `env *`).
 */
const ANY_COMMAND = String
  .raw`(?:\*+|:\*|\*:\*|(?:sudo|su|env|xargs|eval|exec|nohup|timeout|nice|time|command|busybox|(?:ba|z|da|k|fi)?sh|python[\d.]*|node|deno|bun|bunx|npx|uvx|pipx|perl|ruby|php|osascript|pwsh|powershell)(?:[ :]\*|\*)?)`;

export const AUDIT_RULES: readonly AuditRule[] = [
  {
    id: "secret-flow",
    ast: "AST01",
    severity: "critical",
    title: "Sends secrets off the machine",
    explanation:
      "The environment or a credential file flows into a request, socket, DNS name or mail, whatever the names on the way, in a script or in a shell block the skill's documents give. A single key sent to a host the skill declares (permissions.network, or shown in SKILL.md) or to its own vendor's domain (the one its name names) is information.",
    kinds: ["script", "instructions"],
    match: { type: "flow", kind: "secret-network" },
  },
  {
    id: "download-exec-flow",
    ast: "AST02",
    severity: "critical",
    title: "Runs what it downloads",
    explanation:
      "Data fetched from the network reaches exec, eval, a shell or an interpreter: whoever controls the address decides what runs.",
    kinds: ["script", "instructions"],
    match: { type: "flow", kind: "fetched-exec" },
  },
  {
    id: "decode-exec-flow",
    ast: "AST01",
    severity: "critical",
    title: "Runs what it decodes",
    explanation:
      "Decoded data (base64, hex, rot13, compressed) reaches exec, eval, a shell or an interpreter: the code that runs is hidden from the reviewer.",
    kinds: ["script", "instructions"],
    match: { type: "flow", kind: "decoded-exec" },
  },
  {
    id: "file-exec-flow",
    ast: "AST01",
    severity: "high",
    title: "Runs text it reads from a file",
    explanation:
      "Text read from a file (the script's own comments, a document the skill ships, a file saved earlier) or a function's own source (`String(f)`) reaches exec, eval, a shell or an interpreter: what runs was read by the reviewer as words, not as code.",
    kinds: ["script"],
    match: { type: "flow", kind: "file-exec" },
  },
  {
    id: "assembled-command",
    ast: "AST01",
    severity: "critical",
    title: "Assembles a command name from pieces",
    explanation:
      "A downloader, shell or interpreter named through pieces (`c=cu; r=rl; $c$r`), or a function looked up by a name decoded at run time (`globalThis[atob(…)]`, `getattr(builtins, b64decode(…))`), exists to get past reviewers and scanners.",
    kinds: ["script"],
    match: { type: "flow", kind: "assembled-name" },
  },
  {
    id: "persistence-write",
    ast: "AST01",
    severity: "high",
    title: "Writes where code persists",
    explanation:
      "A write to a shell start-up file, authorized_keys, crontab, a git hook, a systemd or launchd unit, or editor or agent settings keeps code (or access) alive after the skill ran.",
    kinds: ["script", "instructions"],
    match: { type: "flow", kind: "persistence" },
  },
  {
    id: "fetch-and-execute",
    ast: "AST02",
    severity: "critical",
    title: "Downloads code and runs it",
    explanation:
      "Code fetched from the network at run time is not what you reviewed: whoever controls the URL decides what runs.",
    kinds: ALL_TEXT,
    match: {
      type: "pattern",
      patterns: [
        // A downloader given something to fetch: "curl | bash" with nothing between names the
        // practice (a heading of getsentry's gha-security-review), it downloads nothing, and so
        // does a bare wildcard (an agent's permission rule, `Bash(curl * | bash)` among denials).
        new RegExp(
          String
            .raw`\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[ \t]*(?!\*+[ \t]*\|)[^\s|][^\n|]*\|\s*${SHELLS}`,
          "gi",
        ),
        /\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b/gi,
        /\b(?:(?:ba|z)?sh\s+-c|eval|source)\s+["']?\$\(\s*(?:curl|wget)\b/gi,
        // The download as PowerShell writes it, a method (`.DownloadString(`) or a command that
        // starts a pipeline or an argument: words joined by `|` inside a detection rule's
        // regular expression (`"iex|downloadstring|invoke-webrequest"`) call nothing.
        /\b(?:iex|Invoke-Expression)\b[^\n]*(?:\.["']?DownloadString\b|(?<=[\s(])(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b)/gi,
        /\b(?:exec|eval)\s*\(\s*(?:urllib\.request\.|request\.)?(?:urlopen|requests\.get|httpx\.get)\s*\(/g,
        // fetch( inside eval's own statement: a minified library is one line, where an eval( and
        // a fetch( thousands of characters and statements apart are no download run.
        /\beval\s*\([^\n;{}]*\bfetch\s*\(/g,
        // exec(u.urlopen(url).read()) through an alias, requests.get(...).text, fetch in JS.
        /\b(?:exec|eval)\s*\([^\n]*\b(?:urlopen|urlretrieve|requests\.get|httpx\.get|\w+\.get\(\s*["']https?:)/g,
        /\bnew\s+Function\s*\([^\n]*\bfetch\s*\(/g,
        // Any line that names a URL and pipes into a shell, however the command is spelled
        // (`$a$b https://… | sh` with the downloader split over variables).
        // (Unanchored, so that each candidate start is tried once: no quadratic scan of long
        // lines.)
        /(?:https?:\/\/|\$\{?\w+\}?\$\{?\w+\}?)[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b(?!\S)(?![ \t]+-[a-zA-Z]*c\b)/g,
      ],
    },
  },
  {
    id: "decode-and-execute",
    ast: "AST01",
    severity: "critical",
    title: "Decodes hidden code and runs it",
    explanation:
      "Encoded (base64, hex, compressed) code that is decoded and executed hides what runs from the reviewer.",
    kinds: ALL_TEXT,
    match: {
      type: "pattern",
      patterns: [
        new RegExp(String.raw`\bbase64\s+(?:-d|--decode|-D)\b[^\n|]*\|\s*${SHELLS}`, "gi"),
        /\b(?:(?:ba|z)?sh\s+-c|eval)\s+["']?\$\([^\n]*\bbase64\s+(?:-d|--decode|-D)\b/gi,
        /\b(?:exec|eval)\s*\(\s*(?:compile\s*\(\s*)?(?:base64\.b64decode|b64decode|base64\.decodebytes|codecs\.decode|zlib\.decompress|marshal\.loads|bytes\.fromhex|binascii\.unhexlify|atob|Buffer\.from)\s*\(/g,
        /\b(?:exec|eval)\s*\([^\n]*__import__\(\s*['"](?:base64|zlib|codecs|marshal|binascii)['"]\s*\)/g,
        /\bnew\s+Function\s*\(\s*atob\s*\(/g,
        // `[Convert]::FromBase64String(`, the static method: a detection rule's alternation
        // (`"iex|frombase64string"`) names it without calling it.
        /::\s*["']?FromBase64String\b[^\n]*\|\s*(?:iex|Invoke-Expression)\b|\b(?:iex|Invoke-Expression)\b[^\n]*::\s*["']?FromBase64String/gi,
        /\b(?:pwsh|powershell)(?:\.exe)?\b[^\n]*\s-(?:e|en|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}/gi,
      ],
    },
  },
  {
    id: "tag-unicode",
    ast: "AST01",
    severity: "critical",
    title: "Invisible Unicode tag characters",
    explanation:
      "Tag characters (U+E0000–U+E007F) are invisible in editors and terminals but models read them: they can carry whole hidden instructions.",
    kinds: ALL_TEXT,
    match: {
      type: "pattern",
      patterns: [/\u{1F3F4}?[\u{E0000}-\u{E007F}]+/gu],
      // An emoji subdivision flag (England, Scotland, Wales, ...) is a short tag sequence.
      unless: /^\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{2,6}\u{E007F}$/u,
    },
  },
  {
    id: "exfiltration-instruction",
    ast: "AST01",
    severity: "critical",
    title: "Tells the agent to send secrets somewhere",
    explanation:
      "Instructions that send keys, tokens, passwords or credential files to a network address exfiltrate your data.",
    kinds: PROSE,
    match: {
      type: "pattern",
      patterns: [
        // A verb, not the first half of a compound: "the post-refresh runbook", "copy-paste".
        /\b(?:send|post|upload|transmit|forward|exfiltrate|copy|submit)\b(?!-)[^\n]{0,80}(?:\.ssh|\.aws|credentials?|private keys?|api[ _-]?keys?|access[ _-]?tokens?|tokens|secrets?|passwords?|cookies|\.env\b)[^\n]{0,80}?\b(?:to|at|into)\s+(?:https?:\/\/|[\w-]+\.(?:com|net|org|io|sh|site|xyz|app)\b)/gi,
      ],
    },
  },
  {
    id: "credential-exfiltration",
    ast: "AST01",
    severity: "critical",
    title: "Reads credentials and talks to the network",
    explanation:
      "A script that both reads credential locations and names a network endpoint can send your keys away.",
    kinds: ["script"],
    match: { type: "together", rules: ["credential-read", "network-endpoint"] },
  },
  {
    id: "credential-send",
    ast: "AST01",
    severity: "critical",
    title: "Reads credentials and sends data out",
    explanation:
      "A script that reads credential locations and sends data over a socket or upload (nc, /dev/tcp, curl -F, a POST) without naming a URL still ships your keys away.",
    kinds: ["script"],
    match: { type: "together", rules: ["credential-read", "network-send"] },
  },
  {
    id: "obfuscated-call",
    ast: "AST01",
    severity: "critical",
    title: "Hides which module or call it uses",
    explanation:
      "A module or function name glued together from pieces (\"sys\" + \"tem\", 'child_' + 'process') exists to get past reviewers and scanners.",
    kinds: ["script"],
    match: {
      type: "folded-name",
      names:
        /^(?:node:)?(?:os|subprocess|sys|builtins|importlib|pty|socket|system|popen|exec\w*|eval|spawn\w*|child_process|__import__|getattr|compile|urlopen|urllib\.request|requests|base64|b64decode|atob|Function|\.?aws|\.?ssh|credentials|id_rsa|id_ed25519|environ|process\.env|curl|wget|bash|sh)$/,
    },
  },
  {
    id: "environment-exfiltration",
    ast: "AST01",
    severity: "critical",
    title: "Sends the environment over the network",
    explanation:
      "A script that collects the whole environment (where tokens live) and sends data out leaks every secret it was given.",
    kinds: ["script"],
    match: { type: "together", rules: ["environment-dump", "network-send"] },
  },
  {
    id: "deserialize-download",
    ast: "AST02",
    severity: "critical",
    title: "Deserialises data it downloads",
    explanation:
      "pickle, marshal and unsafe YAML loading run code embedded in the data: a download fed to them is code from the network.",
    kinds: ["script"],
    match: { type: "together", rules: ["unsafe-deserialize", "network-fetch"] },
  },
  {
    id: "fetch-and-import",
    ast: "AST02",
    severity: "critical",
    title: "Imports code from a temporary directory",
    explanation:
      "A script that downloads and then imports a module from /tmp runs code nobody reviewed.",
    kinds: ["script"],
    match: { type: "together", rules: ["temp-import", "network-fetch"] },
  },
  {
    id: "prompt-injection",
    ast: "AST01",
    severity: "high",
    title: "Prompt-injection phrasing",
    explanation:
      "Text that tells the model to drop its instructions or change its identity tries to take over the agent.",
    kinds: PROSE,
    match: {
      type: "pattern",
      patterns: [
        /\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|every|of)\s+)*(?:previous|prior|above|earlier|preceding|system|original|other|safety)\s+(?:instructions?|prompts?|rules|guidelines|directions|messages|guardrails|policies)\b/gi,
        /\byou\s+are\s+no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:ai|assistant|language model))\b/gi,
        /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted|god|admin)\s+mode\b/gi,
        /\b(?:reveal|print|output|repeat|dump)\s+(?:your|the)\s+(?:system|hidden|initial)\s+(?:prompt|instructions)\b/gi,
        /\b(?:ignore|disregard|forget|set\s+aside|discard)\s+(?:what(?:ever)?|anything|everything|all)\b[^.\n]{0,60}?\b(?:told|said|instructed|given|taught)\s+(?:to\s+)?(?:you\s+)?(?:before|earlier|previously|so\s+far|until\s+now)\b/gi,
        /\b(?:safety|security|content|previous|prior|earlier|original|system)\s+(?:rules|guidelines|policies|instructions|restrictions|filters|guardrails|prompts?)\s+(?:are|have\s+been|were|is)\s+(?:now\s+|hereby\s+|temporarily\s+)?(?:suspended|lifted|disabled|removed|void|revoked|cancell?ed|superseded|overridden|obsolete|off|no\s+longer\s+(?:valid|apply|applicable|in\s+effect))\b/gi,
        /\b(?:suspend|lift|disable|turn\s+off|switch\s+off|deactivate)\s+(?:all\s+|your\s+|the\s+|any\s+)*(?:safety|security|content)\s+(?:rules|guidelines|policies|restrictions|filters|guardrails|checks)\b/gi,
        /\b(?:previous|prior|earlier|above|original)\s+(?:instructions|rules|prompts?|guidelines)\s+(?:no\s+longer\s+apply|do\s+not\s+apply|don't\s+apply)\b/gi,
      ],
    },
  },
  {
    id: "conceal-from-user",
    ast: "AST01",
    severity: "high",
    title: "Tells the agent to hide something from the user",
    explanation:
      "A skill that asks the agent to keep actions from the user wants them to go unreviewed.",
    kinds: PROSE,
    match: {
      type: "pattern",
      patterns: [
        // "Never tell the user to hand-edit X" gives advice; it hides nothing.
        /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal|show|disclose|report)\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?the\s+user\b(?!\s+to\s)/gi,
        // (Acting without *asking* is about consent, not concealment.)
        /\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b/gi,
        /(?<!(?:\bnot|n't|\bnever)\s+)\b(?:secretly|silently|covertly|quietly)\s+(?:send|upload|post|exfiltrate|copy|run|execute|read|install)\b/gi,
        /\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+|the\s+\w+|them|that)\s+(?:(?:secret|hidden)\s+)?from\s+the\s+user\b/gi,
        /\b(?:do\s+not|don'?t|never)\s+let\s+the\s+user\s+(?:know|see|notice|find\s+out)\b|\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|notice|find\s+out|learn)\b/gi,
      ],
    },
  },
  {
    id: "remote-instructions",
    ast: "AST05",
    severity: "high",
    title: "Loads its instructions from the network",
    explanation:
      "Instructions, rules or prompts fetched from a URL at run time and obeyed are not covered by the digest you trusted: they can change after you reviewed the skill (a rug pull).",
    kinds: PROSE,
    match: {
      type: "remote-instructions",
      patterns: [
        // Across lines and sentences: "Fetch https://… first. Then apply all rules from the
        // fetched guidelines."
        /\b(?:fetch|download|read|load|get|curl|open|retrieve|visit)\b[^\n]{0,60}https?:\/\/[\s\S]{0,200}?\b(?:follow|obey|execute|run|apply|adopt|use)\s+(?:all\s+|every\s+|each\s+)?(?:of\s+)?(?:the\s+|its\s+|those\s+|these\s+|any\s+)?(?:fetched\s+|downloaded\s+|remote\s+|new\s+)?(?:instructions|steps|commands|directions|rules|guidelines)\b(?!\s+(?:below|above|in\s+this))/gi,
      ],
    },
  },
  {
    id: "hidden-comment-instructions",
    ast: "AST01",
    severity: "high",
    title: "Instructions hidden in an HTML comment",
    explanation:
      "HTML comments do not show in rendered Markdown, but the model reads them: text aimed at the agent there is hidden from you.",
    kinds: ["instructions"],
    match: {
      type: "html-comment",
      pattern:
        // Addressed to the agent; a bare "model" in a branch name or a note is not. Named
        // with a comma or colon, the agent is addressed where a line or sentence starts
        // ("AI agent: …", "Note for Claude: …"): "Based on Anthropic's code-simplifier
        // agent:" credits a source, "any assistant (Claude, Cursor, …)" lists them.
        /\b(?:ignore|disregard)\s+(?:all\s+|any\s+|the\s+|previous|prior|above|instructions|rules)|(?:^|[\n.!?])\s*(?:(?:a\s+)?(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+)?)?(?:(?:AI|LLM)\s+)?(?:assistant|AI|LLM|model|agent|Claude|GPT)s?\s*[,:]|\b(?:assistant|AI|LLM|model|agent|Claude|GPT)\s*(?:must\b|should\b|will\b)|\byou\s+(?:must|should|will|are)\b|\b(?:execute|curl|wget|exfiltrate)\b|\b(?:send|upload)\s+(?:the|all|this|it|your)\b|system\s+prompt/i,
    },
  },
  {
    id: "bidi-unicode",
    ast: "AST04",
    severity: "high",
    title: "Bidirectional control characters",
    explanation:
      "Bidi overrides and isolates reorder how text is displayed, so code or instructions read differently from what runs (Trojan Source).",
    kinds: ALL_TEXT,
    match: { type: "pattern", patterns: [/[\u202A-\u202E\u2066-\u2069]+/gu] },
  },
  {
    id: "invisible-unicode",
    ast: "AST04",
    severity: "high",
    title: "Invisible Unicode characters",
    explanation:
      "Zero-width and other invisible characters hide text or split words so that filters and reviewers miss them.",
    kinds: ALL_TEXT,
    match: {
      type: "pattern",
      patterns: [
        /[\u200B\u200C\u2060-\u2064\u180E\u00AD\u034F\u115F\u1160\u3164\uFFA0]+/gu,
        // U+FEFF is a byte order mark only as the first character of a file.
        /(?<!^)\uFEFF+/gu,
        // A zero-width joiner belongs between emoji; anywhere else it hides something.
        /(?<![\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\uFE0F])\u200D|\u200D(?![\p{Extended_Pictographic}])/gu,
        // Runs of variation selectors (one after an emoji is normal) can encode bytes.
        /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{2,}|[\u{E0100}-\u{E01EF}]/gu,
      ],
    },
  },
  {
    id: "shell-on-load",
    ast: "AST06",
    severity: "high",
    title: "Shell command run when the skill loads",
    explanation:
      "Claude Code runs !`command` blocks when the skill is loaded, before the model or you decide anything.",
    kinds: ["instructions"],
    match: { type: "pattern", patterns: [/(?:^|(?<=[\s(>]))!`[^`\n]+`/gm] },
  },
  {
    id: "frontmatter-hooks",
    ast: "AST06",
    severity: "high",
    title: "Hooks in the front matter",
    explanation:
      "`hooks` make an agent run shell commands on its events (tool use, session start) while the skill is active.",
    kinds: ["frontmatter"],
    match: { type: "pattern", patterns: [/^["']?hooks["']?\s*:/gm] },
  },
  {
    id: "credential-read",
    ast: "AST03",
    severity: "high",
    title: "Reads credential locations",
    explanation:
      "SSH keys, cloud credentials, keychains, browser profiles and .env files hold secrets a skill rarely needs.",
    kinds: CODE_AND_PROSE,
    match: {
      type: "pattern",
      patterns: [
        // (Public keys, known hosts, plain configuration and documents hold no secret: a
        // project's `.azure/plan.md` is the plan Azure's deployment skills write.)
        /(?<![\w.-])\.(?:ssh|aws|gnupg|azure)(?![\w-])(?![/\\](?:known_hosts\b|config\b|[\w.-]+\.(?:pub|md)\b))/g,
        // Files that hold credentials in the home folder; `typescript/.npmrc` is a project's.
        /(?<![\w.-])(?<![\w-]\/)\.(?:netrc|git-credentials|npmrc|pypirc)(?![\w-])/g,
        /(?<![\w-])\.config[/\\]gcloud\b|application_default_credentials\.json|(?<![\w.-])\.kube[/\\]config\b|(?<![\w.-])\.docker[/\\]config\.json\b|\/etc\/shadow\b/g,
        /\bsecurity\s+(?:find-(?:generic|internet)-password|dump-keychain)\b|\blogin\.keychain\b|\.keychain-db\b|\bsecret-tool\s+lookup\b|\bkeyring\.get_password\b|\bCredRead\b/gi,
        // A browser's stores of passwords and cookies (its profile folder alone is where
        // troubleshooting guides send you).
        /\bLogin Data\b|\bkey4\.db\b|\blogins\.json\b|\bcookies\.sqlite\b/gi,
        /\b(?:open|read_text|read_bytes|readFile(?:Sync)?|cat|source|load_dotenv|dotenv_values|Get-Content|less|head|tail)\b[^\n]{0,60}?(?<![\w-])\.env(?![\w-])/g,
      ],
      // `cat > x/.env <<EOF`, `cat <<EOF > .env`: the .env is where cat writes (as setup steps
      // have the user do), not a file it reads. `cat > out .env` reads it, and stays found.
      unless: /^cat\s*(?:<<-?\s*(['"]?)\w+\1\s*)?>>?\s*[^\s<>|;&]*\.env$/,
    },
  },
  {
    id: "persistence",
    ast: "AST01",
    severity: "high",
    title: "Installs itself to run later",
    explanation:
      "Cron jobs, launch agents, services, shell start-up files and authorized_keys keep code (or access) alive after the skill ran.",
    kinds: CODE_AND_PROSE,
    match: {
      type: "pattern",
      patterns: [
        /\bcrontab\b(?!\s+-l\b)|\bLaunchAgents\b|\bLaunchDaemons\b|\bsystemctl\s+(?:--user\s+)?enable\b|\bauthorized_keys\b|\\CurrentVersion\\Run\b|\bschtasks\s+\/create\b/gi,
        /(?:>>?|\btee\s+-a)\s*["']?(?:~|\$HOME|\$\{HOME\})?\/?[\w./-]*\.(?:bashrc|bash_profile|zshrc|zprofile|profile)\b/g,
      ],
    },
  },
  {
    id: "destructive-command",
    ast: "AST03",
    severity: "high",
    title: "Deletes or overwrites broadly",
    explanation:
      "Removing the home directory or the filesystem root, or writing to a disk device, destroys data.",
    kinds: CODE_AND_PROSE,
    match: {
      type: "pattern",
      patterns: [
        /\brm\s+(?:-[a-zA-Z]*(?:rf|fr)[a-zA-Z]*|-r\s+-f|-f\s+-r)\s+(?:--no-preserve-root\s+)?["']?(?:\/|~|\$HOME|\$\{HOME\})\/?\*?["']?(?=\s|$|;|&|\|)/gm,
        /\bshutil\.rmtree\(\s*(?:os\.path\.expanduser\(\s*)?["'](?:~|\/)["']/g,
        /\bmkfs\.\w+\s+\/dev\/|\bdd\b[^\n]*\bof=\/dev\/(?:sd|nvme|disk|hd)/g,
      ],
    },
  },
  {
    id: "exfil-endpoint",
    ast: "AST01",
    severity: "high",
    title: "Endpoint of a request-capture or paste service",
    explanation:
      "Request bins, tunnels, paste sites and chat webhooks are where stolen data is usually sent.",
    kinds: ALL_TEXT,
    match: {
      type: "pattern",
      patterns: [
        /\b(?:https?:\/\/)?(?:[\w-]+\.)*(?:webhook\.site|requestbin\.(?:com|net)|pipedream\.net|ngrok(?:-free)?\.(?:app|io|dev)|burpcollaborator\.net|oastify\.com|interact\.sh|oast\.(?:pro|live|site|online|fun|me)|pastebin\.com|transfer\.sh|hookb\.in|beeceptor\.com)\b/gi,
        /\bdiscord(?:app)?\.com\/api\/webhooks\b/gi,
      ],
    },
  },
  {
    id: "broad-env-permission",
    ast: "AST03",
    severity: "high",
    title: "Environment permission broader than the skill",
    explanation:
      "A wildcard in permissions.env that does not name the skill (AWS_* in a skill named pdf) hands its scripts secrets of other services.",
    kinds: ["frontmatter"],
    match: { type: "env-permission" },
  },
  {
    id: "local-network-permission",
    ast: "AST03",
    severity: "high",
    title: "Network permission for a local, private or metadata address",
    explanation:
      "permissions.network naming localhost, a private address or a cloud metadata endpoint asks to reach your own services or your machine's credentials; the sandbox grants it only when you do (--allow-net).",
    kinds: ["frontmatter"],
    match: { type: "network-permission" },
  },
  {
    id: "declares-services",
    ast: "AST03",
    severity: "info",
    title: "Keeps a process running",
    explanation:
      "permissions.services names scripts that may keep running after the command returns (`skills run --background`): a sandboxed process serving loopback ports until stopped, idle or out of lifetime, for the reviewer.",
    kinds: ["frontmatter"],
    match: { type: "services-permission" },
  },
  {
    id: "executable-binary",
    ast: "AST08",
    severity: "high",
    title: "Compiled code",
    explanation:
      "Executables, libraries and bytecode cannot be reviewed, and they run with the skill's rights.",
    kinds: [],
    match: { type: "binary", classes: ["executable"] },
  },
  {
    id: "allowed-tools-shell",
    ast: "AST03",
    severity: "medium",
    title: "Pre-approves unrestricted shell",
    explanation:
      "`allowed-tools` with a bare Bash, `Bash(*)`, or a pattern that starts a shell, an interpreter or a program runner (`Bash(python3:*)`, `Bash(env:*)`) lets the agent run any command without asking while the skill is active.",
    kinds: ["frontmatter"],
    match: {
      type: "pattern",
      patterns: [
        /^allowed[-_]tools\s*:[^\n]*\bBash\b(?!\()/gm,
        /^\s+-\s*["']?Bash["']?\s*$/gm,
        // A pattern every command matches, or one whose command runs any other it is given.
        new RegExp(
          String.raw`^(?:allowed[-_]tools\s*:[^\n]*|\s+-\s*["']?)\bBash\(\s*${ANY_COMMAND}\s*\)`,
          "gm",
        ),
      ],
    },
  },
  {
    id: "ip-endpoint",
    ast: "AST04",
    severity: "medium",
    title: "Endpoint given as a raw IP address",
    explanation:
      "A service addressed by IP rather than by name is hard to attribute and often temporary.",
    kinds: ALL_TEXT,
    match: {
      type: "pattern",
      patterns: [/\b(?:https?|wss?|ftp):\/\/(?:\d{1,3}\.){3}\d{1,3}\b/g],
      unless: /:\/\/(?:127\.|0\.0\.0\.0|10\.|192\.168\.)/,
    },
  },
  {
    id: "binary-file",
    ast: "AST08",
    severity: "medium",
    title: "Binary file",
    explanation: "An archive or other opaque file cannot be reviewed as text.",
    kinds: [],
    match: { type: "binary", classes: ["opaque"] },
  },
  {
    id: "minified-code",
    ast: "AST08",
    severity: "medium",
    title: "Minified or packed code",
    explanation: "Code on very long lines cannot be reviewed; ask for the source.",
    kinds: ["script"],
    match: { type: "minified", maxLineLength: 1000 },
  },
  {
    id: "unread-script",
    ast: "AST08",
    severity: "medium",
    title: "Script in a language the audit does not follow",
    explanation:
      "The audit follows data (a secret to the network, a download to a shell) through Python, shell, JavaScript, TypeScript and PowerShell. This script is in another language: what it reads, sends and runs is not shown, so read it before you trust the skill.",
    kinds: ["script"],
    match: { type: "unread-script" },
  },
  {
    id: "oversized-file",
    ast: "AST08",
    severity: "medium",
    title: "File too large to audit whole",
    explanation: `Only the first ${
      AUDIT_MAX_FILE_BYTES / 1024 / 1024
    } MiB of this file were scanned; review the rest yourself.`,
    kinds: ALL_TEXT,
    match: { type: "oversized", bytes: AUDIT_MAX_FILE_BYTES },
  },
  {
    id: "environment-dump",
    ast: "AST03",
    severity: "medium",
    title: "Collects the whole environment",
    explanation: "Copying every environment variable takes tokens along with everything else.",
    kinds: ["script"],
    match: {
      type: "pattern",
      patterns: [
        // Serialised, not copied: `env = os.environ.copy()` for a subprocess is ordinary.
        /\b(?:json\.dumps?|str|repr|urlencode|pickle\.dumps?)\(\s*(?:dict\(\s*)?os\.environ\b|\bdict\(\s*os\.environ\s*\)\s*\)/g,
        /\bJSON\.stringify\(\s*(?:process\.env|Deno\.env\.toObject\(\))|\bObject\.(?:entries|keys)\(\s*process\.env\s*\)|\bDeno\.env\.toObject\(\)/g,
        /^\s*(?:env|printenv|set|export\s+-p)\s*(?:\||>)/gm,
        /\$\((?:env|printenv)\)|`(?:env|printenv)`/g,
      ],
    },
  },
  {
    id: "unsafe-deserialize",
    ast: "AST06",
    severity: "medium",
    title: "Deserialises with code execution",
    explanation:
      "pickle (and what unpickles: shelve, jsonpickle, pandas' read_pickle, torch.load with weights_only=False, numpy.load with allow_pickle=True), marshal and yaml.load without a safe loader can run code.",
    kinds: ["script"],
    match: {
      type: "pattern",
      patterns: [
        /\b(?:pickle|cPickle|marshal|dill|cloudpickle|joblib|shelve)\.loads?\s*\(/g,
        /\byaml\.(?:unsafe_)?load\s*\((?![^\n)]*Loader\s*=\s*(?:yaml\.)?SafeLoader)/g,
        // pickle by another name: a shelf, jsonpickle, pandas' pickles, and the loaders that
        // unpickle only when told to (torch since 2.6, numpy since 1.16.3).
        /\b(?:shelve\.open|jsonpickle\.decode|(?:pd|pandas)\.read_pickle)\s*\(/g,
        /\btorch\.load\s*\([^\n)]*\bweights_only\s*=\s*False\b/g,
        /\b(?:np|numpy)\.load\s*\([^\n)]*\ballow_pickle\s*=\s*True\b/g,
      ],
    },
  },
  {
    id: "remote-package-install",
    ast: "AST02",
    severity: "high",
    title: "Installs or runs code from an address at run time",
    explanation:
      "A package installed from a repository or an archive's URL (`pip install git+https://…`, `npm install https://…/x.tgz`), or a program or module run from a URL (`deno run https://…`, `import(\"https://…\")`), runs code from a place the skill's digest does not cover, which can change after you review the skill.",
    kinds: ["script"],
    match: {
      type: "pattern",
      patterns: [
        // pip, pipx, uv: a VCS address or an archive's URL (an index's address is no package).
        /\b(?:pip3?|pipx|uv|uvx)["'\s,]+(?:pip["'\s,]+|tool["'\s,]+)?(?:install|run|add)\b[^\n;|&]*?["'\s,@=](?:git|hg|svn|bzr)\+[a-z]+:\/\//g,
        /\b(?:pip3?|pipx|uv)["'\s,]+(?:pip["'\s,]+|tool["'\s,]+)?(?:install|run|add)\b[^\n;|&]*?["'\s,@=]https?:\/\/[^\s"']+\.(?:whl|tar\.gz|tgz|zip)\b/g,
        /\buvx\b[^\n;|&]*?--from["'\s,=]+(?:git\+|https?:\/\/)/g,
        // npm and its kin, npx: a git address, a hosted repository, an archive's URL.
        /\b(?:npm|pnpm|yarn|bun)["'\s,]+(?:install|i|add)\b[^\n;|&]*?["'\s,](?:git\+[a-z]+:|git:\/\/|github:|gitlab:|bitbucket:|https?:\/\/[^\s"']+\.(?:tgz|tar\.gz)\b)/g,
        /\b(?:npx|bunx|pnpm["'\s,]+dlx)\b[^\n;|&]*?["'\s,](?:git\+[a-z]+:|github:|https?:\/\/[^\s"']+\.(?:tgz|tar\.gz)\b)/g,
        /\bcargo["'\s,]+install\b[^\n;|&]*?["'\s,]--git\b/g,
        // Deno runs a program, and a module imports one, straight from an address.
        // (The program is the first word after the flags: a URL given to a local one is data.)
        /\bdeno["'\s,]+(?:run|install|compile)(?:["'\s,]+-[^\s"',]*)*["'\s,]+["']?https?:\/\//g,
        /\bimport\s*\(\s*["'`]https?:\/\//g,
        /(?:^|[\s;])(?:import|export)\b[^\n;]*?\bfrom\s*["']https?:\/\//gm,
        /^\s*import\s+["']https?:\/\//gm,
      ],
    },
  },
  {
    id: "temp-import",
    ast: "AST02",
    severity: "medium",
    title: "Imports from a temporary directory",
    explanation: "Code in /tmp was written at run time; it is not part of the reviewed skill.",
    kinds: ["script"],
    match: {
      type: "pattern",
      patterns: [
        /\bsys\.path\.(?:insert|append)\s*\([^\n)]*["'](?:\/tmp|\/var\/tmp|\/dev\/shm)/g,
        /\bspec_from_file_location\s*\([^\n)]*["'](?:\/tmp|\/var\/tmp|\/dev\/shm)/g,
        /\b(?:require|import)\s*\(\s*["'](?:\/tmp|\/var\/tmp|\/dev\/shm)\//g,
        /\bsys\.path\.(?:insert|append)\s*\([^\n)]*tempfile\.gettempdir\(\)/g,
      ],
    },
  },
  {
    id: "network-send",
    ast: "AST04",
    severity: "info",
    title: "Sends data over the network",
    explanation: "Where a script posts or uploads data, for the reviewer.",
    kinds: ["script"],
    match: {
      type: "pattern",
      patterns: [
        /\b(?:requests|httpx|session|client)\.(?:post|put|patch)\s*\(|\burlopen\s*\([^\n]*\bdata\s*=|\bRequest\s*\([^\n]*\bdata\s*=|\burlopen\s*\(\s*\w+\s*,\s*\w+|\bsocket\.create_connection\b|\.sendall\s*\(/g,
        /\bfetch\s*\([^\n]*\bmethod\s*:\s*["'](?:POST|PUT)|\bmethod\s*:\s*["'](?:POST|PUT)["']|\baxios\.(?:post|put)\s*\(|\bhttps?\.request\s*\(/g,
        /\bcurl\b[^\n]*\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\b|\bwget\b[^\n]*--post-(?:data|file)\b|\b(?:nc|ncat|netcat)\s+-?\S+\s+\d+|\/dev\/tcp\//g,
      ],
    },
  },
  {
    id: "network-fetch",
    ast: "AST04",
    severity: "info",
    title: "Downloads data",
    explanation: "Where a script fetches data from the network, for the reviewer.",
    kinds: ["script"],
    match: {
      type: "pattern",
      patterns: [
        /\b(?:urlopen|urlretrieve)\s*\(|\b(?:requests|httpx|session|client)\.get\s*\(|\bfetch\s*\(|\b(?:curl|wget)\s/g,
      ],
    },
  },
  {
    id: "network-endpoint",
    ast: "AST04",
    severity: "info",
    title: "Network endpoint",
    explanation: "Where data can go: every URL the skill names, for the reviewer.",
    kinds: ALL_TEXT,
    match: {
      type: "pattern",
      patterns: [/\b(?:https?|wss?|ftp):\/\/[^\s"'<>()[\]{}`\\|^]+/g],
      // Reserved documentation names cannot receive anything, and a URL whose host a template
      // computes (`https://${host}/v1` reads as `https://$`, `https://login.${suffix}` as
      // `https://login.$`) names no place at all.
      unless:
        /^\w+:\/\/(?:(?:[\w-]+\.)*(?:example\.(?:com|org|net)|example|invalid|test)(?:[:/?#]|$)|[^/?#]*\$$)/i,
    },
  },
];

/** Severity order, most severe first. */
export const SEVERITIES: readonly Severity[] = ["critical", "high", "medium", "info"];

/** Changes whenever the matching code changes in a way the rule records do not show. */
const ENGINE_VERSION = 150;

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * What AUDIT_RULES_VERSION must be: the engine's version and a hash of every rule record.
 */
export function rulesDigest(): string {
  const records = JSON.stringify(
    AUDIT_RULES,
    (_key, value) => value instanceof RegExp ? String(value) : value,
  );
  return `${ENGINE_VERSION}-${fnv1a(records)}`;
}

/**
 * A hash of every rule record ({@link rulesDigest}): a changed rule means installed skills
 * are audited again. Written here by `deno task gen` (scripts/gen_reference.ts) instead of
 * worked out at start-up, where serializing and hashing the records before the JIT had
 * warmed up cost every command that loads the rules ~4 ms; tests/core/audit/audit_test.ts
 * fails while it is stale.
 */
export const AUDIT_RULES_VERSION = "150-8a23e8fe";
