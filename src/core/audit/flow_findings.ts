/**
 * From flows (flow/) to findings: the excerpt a reviewer reads, and how severe a secret sent
 * over the network is. The whole environment or a credential file leaving the machine is
 * always critical. A single named variable (`OPENWEATHER_API_KEY`) sent to the host the skill
 * declares — in `permissions.network`, in its SKILL.md, or the host the variable's or the
 * skill's own name names (`GITHUB_TOKEN` → api.github.com), or a host of the same domain as one
 * the skill's files name that the variable's name names (`FRED_API_KEY` → api.stlouisfed.org,
 * where the skill also calls fred.stlouisfed.org) — is how an honest skill calls its API:
 * information. To a host the script computes at run time it is medium (shown, not refused); to
 * any other host, critical. The last reading widens nothing a hostile author lacks: one who
 * names `fred.evil.example` can send the key there directly, which the name already excuses;
 * what holds a script to its hosts is the sandbox's network allowlist, not this severity.
 */

import type { Flow } from "./flow/flow.ts";
import type { Severity } from "./audit_rules.ts";

export interface FlowNote {
  host: string | undefined;
  secrets: readonly string[];
  inName?: boolean | undefined;
}

interface SkillFacts {
  /** Hosts the skill declares (permissions.network, URLs and host names in SKILL.md). */
  declared: ReadonlySet<string>;
  skill: string | undefined;
  /** Hosts of every URL in the skill's files (its endpoints). */
  named?: ReadonlySet<string>;
}

/** Words of a variable's name that say nothing about whose secret it is. */
const GENERIC = new Set(
  "API KEY KEYS TOKEN TOKENS SECRET SECRETS ACCESS AUTH PASSWORD PASS PWD PAT CLIENT ID PRIVATE BEARER APP URL BASE HOST ENDPOINT USER USERNAME ORG PROJECT ACCOUNT SERVICE V1 V2 PERSONAL REFRESH SESSION CREDENTIALS CREDENTIAL"
    .split(" "),
);

export function flowSeverity(note: FlowNote, facts: SkillFacts, base: Severity): Severity {
  if (note.inName || note.secrets.some((s) => s === "env:*" || s.startsWith("file:"))) return base;
  const host = note.host;
  if (host === undefined) return "medium";
  if (isDeclared(host, facts.declared)) return "info";
  const siblings = [...facts.named ?? []].filter((h) => registrable(h) === registrable(host));
  const named = note.secrets.every((s) => {
    const words = wordsOf(secretWords(s));
    // A host the skill's files name counts by any label (they declare it anyway); the host the
    // script sends to only by its domain's.
    return namesHost(words, host, false) || siblings.some((h) => namesHost(words, h, true));
  }) || namesHost(wordsOf(facts.skill ?? ""), host, false);
  return named ? "info" : base;
}

/** The words a secret's label names its owner by: a variable's name, a store's service. */
function secretWords(label: string): string {
  if (label.startsWith("store:")) return label.slice(6, label.indexOf("|"));
  return label.slice(4);
}

/**
 * The domain a host was registered under: the label before its public suffix and the suffix
 * (`kalshi.com` of `api.elections.kalshi.com`; `example.co.uk` of `api.example.co.uk`, a
 * country's `co.`, `com.`, `org.`… counted into the suffix).
 */
function registrable(host: string): string {
  const labels = host.split(".");
  const suffix = labels.length > 2 && labels.at(-1)!.length === 2 &&
      /^(?:co|com|net|org|gov|ac|edu|ne|or|go)$/.test(labels.at(-2)!)
    ? 2
    : 1;
  return labels.slice(-1 - suffix).join(".");
}

function isDeclared(host: string, declared: ReadonlySet<string>): boolean {
  for (const d of declared) {
    const bare = d.replace(/^\*\./, "");
    if (host === bare || host.endsWith("." + bare) || registrable(host) === registrable(bare)) {
      return true;
    }
  }
  return false;
}

/**
 * What a word of a key's name stands for, as the host its API answers on is named: a product's
 * company (`JIRA_API_TOKEN` → atlassian.net), or the product a short name abbreviates
 * (`GH_TOKEN` is GitHub's) — the one way a name of three letters or fewer names the host a
 * script sends to (see {@link namesHost}).
 */
const STANDS_FOR: Readonly<Record<string, string>> = {
  JIRA: "ATLASSIAN",
  CONFLUENCE: "ATLASSIAN",
  BITBUCKET: "ATLASSIAN",
  TRELLO: "ATLASSIAN",
  GEMINI: "GOOGLEAPIS",
  VERTEX: "GOOGLEAPIS",
  GOOGLE: "GOOGLEAPIS",
  GCP: "GOOGLEAPIS",
  YOUTUBE: "GOOGLEAPIS",
  CLAUDE: "ANTHROPIC",
  GPT: "OPENAI",
  AWS: "AMAZONAWS",
  S3: "AMAZONAWS",
  OUTLOOK: "MICROSOFT",
  TEAMS: "MICROSOFT",
  GRAPH: "MICROSOFT",
  GH: "GITHUB",
  GL: "GITLAB",
  HF: "HUGGINGFACE",
  DD: "DATADOG",
  NPM: "NPMJS",
  CF: "CLOUDFLARE",
  AV: "ALPHAVANTAGE",
  CMC: "COINMARKETCAP",
  FMP: "FINANCIALMODELINGPREP",
};

function wordsOf(name: string): string[] {
  const words = name.toUpperCase().split(/[^A-Z0-9]+/).filter((w) =>
    w.length >= 2 && !GENERIC.has(w)
  );
  return [...words, ...words.flatMap((w) => STANDS_FOR[w] ?? [])];
}

/**
 * Whether a word of the name names a label of the host: starts it (`KALSHI`, `OPENWEATHER`),
 * is inside it (four letters or more), or, for a host the skill's files name, abbreviates it
 * (`GH` → github, `HF` → huggingface).
 */
function namesHost(words: readonly string[], host: string, anyLabel: boolean): boolean {
  // Else only the name the host was registered under: any subdomain of a domain one owns is
  // free to make (`openai.drop.example`, `api.openai.com.drop.example`).
  const labels = anyLabel ? host.split(".").slice(0, -1) : [registrable(host).split(".")[0]!];
  return words.some((word) => {
    const w = word.toLowerCase();
    // A short word is the whole registered name of the host a script sends to, or stands for a
    // product by STANDS_FOR: `gh` starts and abbreviates any name one can register
    // (`ghcollect.example`), so by itself it says nothing of whose API that is.
    if (w.length <= 3 && !anyLabel) return labels.includes(w);
    return labels.some((l) =>
      l.startsWith(w) || (w.length >= 4 && l.includes(w)) || (w.length <= 3 && abbreviates(w, l))
    );
  });
}

function abbreviates(short: string, label: string): boolean {
  if (short[0] !== label[0]) return false;
  let k = 0;
  for (const c of label) if (c === short[k]) k++;
  return k >= short.length;
}

/** Hosts a SKILL.md names: every URL's, and bare host names (`api.linear.app`). */
export function hostsNamed(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\b(?:https?|wss?):\/\/([A-Za-z0-9.-]+\.[A-Za-z]{2,})/g)) {
    out.add(m[1]!.toLowerCase());
  }
  for (
    const m of text.matchAll(
      /(?<![\w./@-])((?:[a-z0-9-]+\.)+(?:com|io|dev|org|net|app|ai|co|gov|cloud))\b(?![\w-])/g,
    )
  ) {
    out.add(m[1]!.toLowerCase());
  }
  return out;
}

/** The source line of a flow, clipped, with what flowed where. */
export function flowExcerpt(text: string, flow: Flow): string {
  const start = text.lastIndexOf("\n", flow.at - 1) + 1;
  const end = text.indexOf("\n", flow.at);
  const line = text.slice(start, end === -1 ? text.length : end).trim();
  const clipped = line.length > 90 ? `${line.slice(0, 90)}…` : line;
  return `${clipped} [${flow.detail}]`;
}
