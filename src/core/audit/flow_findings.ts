/**
 * From flows (flow/) to findings: the excerpt a reviewer reads, and how severe a secret sent
 * over the network is. The whole environment or a credential file leaving the machine is
 * always critical. A single named variable (`OPENWEATHER_API_KEY`) sent to a host the skill
 * declares — in `permissions.network` or in its SKILL.md — or to a domain registered under the
 * very name the variable's or the skill's own name gives (`GITHUB_TOKEN` → api.github.com,
 * `NEWS_API_KEY` → newsapi.org), or under a name that word is known to stand for
 * ({@link STANDS_FOR}: `GH_TOKEN` → api.github.com, `DATADOG_API_KEY` → api.datadoghq.com), is
 * how an honest skill calls its API: information. To a host the script computes at run time it
 * is medium (shown, not refused); to any other host, critical.
 *
 * The match is equality, never a prefix or a part: whoever registers `openai-keys.com`,
 * `myopenai.io` or `ghcollect.com`, or makes `openai.drop.com` under a domain of theirs, gets
 * a name that starts with, holds or abbreviates the key's word, so none of those says whose API
 * the host is. An honest skill whose API answers on another name declares it, which puts the
 * host in front of the reviewer. What holds a script to its hosts is the sandbox's network
 * allowlist; this severity is what the reviewer is told.
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
  const owner = registeredName(host);
  const named = note.secrets.every((s) => ownerNames(secretWords(s)).has(owner)) ||
    ownerNames(facts.skill ?? "").has(owner);
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

/**
 * The name a host's domain was registered under, without its suffix or hyphens (`openmeteo`
 * of `api.open-meteo.com`): a subdomain is anyone's to make under a domain they own
 * (`openai.drop.com`, `api.openai.com.drop.com`), so only this name says whose host it is.
 */
function registeredName(host: string): string {
  return registrable(host.toLowerCase()).split(".")[0]!.replaceAll("-", "");
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
 * The names a word of a key's name is known to stand for, each a domain its vendor
 * registered: a product's company (`JIRA_API_TOKEN` → atlassian.net), the product a short name
 * abbreviates (`GH_TOKEN` is GitHub's), and a vendor's API on a name longer than its own
 * (`DATADOG_API_KEY` → datadoghq.com, `FRED_API_KEY` → stlouisfed.org). Facts, not guesses:
 * a name not here names its owner only by being that owner's registered name.
 */
const STANDS_FOR: Readonly<Record<string, readonly string[]>> = {
  JIRA: ["ATLASSIAN"],
  CONFLUENCE: ["ATLASSIAN"],
  BITBUCKET: ["ATLASSIAN"],
  TRELLO: ["ATLASSIAN"],
  GEMINI: ["GOOGLEAPIS"],
  VERTEX: ["GOOGLEAPIS"],
  GOOGLE: ["GOOGLEAPIS", "GOOGLEUSERCONTENT"],
  GCP: ["GOOGLEAPIS"],
  YOUTUBE: ["GOOGLEAPIS"],
  CLAUDE: ["ANTHROPIC"],
  GPT: ["OPENAI"],
  AWS: ["AMAZONAWS"],
  S3: ["AMAZONAWS"],
  AZURE: ["WINDOWS"],
  OUTLOOK: ["MICROSOFT"],
  TEAMS: ["MICROSOFT"],
  GRAPH: ["MICROSOFT"],
  GITHUB: ["GITHUBUSERCONTENT", "GHCR"],
  GH: ["GITHUB", "GITHUBUSERCONTENT", "GHCR"],
  GL: ["GITLAB"],
  HF: ["HUGGINGFACE"],
  DATADOG: ["DATADOGHQ"],
  DD: ["DATADOG", "DATADOGHQ"],
  OPENWEATHER: ["OPENWEATHERMAP"],
  SHOPIFY: ["MYSHOPIFY"],
  HUBSPOT: ["HUBAPI"],
  DROPBOX: ["DROPBOXAPI"],
  POSTMARK: ["POSTMARKAPP"],
  FRED: ["STLOUISFED"],
  NPM: ["NPMJS"],
  CF: ["CLOUDFLARE"],
  AV: ["ALPHAVANTAGE"],
  CMC: ["COINMARKETCAP"],
  FMP: ["FINANCIALMODELINGPREP"],
};

/**
 * The registered names a key's (or a skill's) name gives its owner by, lower case: each run
 * of its words that holds one not in {@link GENERIC}, joined (`NEWS_API_KEY` → `news`,
 * `newsapi`, `newsapikey`; `ALPHA_VANTAGE_KEY` → `alphavantage`), and what each such word
 * stands for.
 */
function ownerNames(name: string): Set<string> {
  const parts = name.toUpperCase().split(/[^A-Z0-9]+/).filter((p) => p !== "").slice(0, 8);
  const telling = (p: string) => p.length >= 2 && !GENERIC.has(p);
  const out = new Set<string>();
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j <= parts.length; j++) {
      const run = parts.slice(i, j);
      if (run.some(telling)) out.add(run.join("").toLowerCase());
    }
    if (telling(parts[i]!)) {
      for (const owner of STANDS_FOR[parts[i]!] ?? []) out.add(owner.toLowerCase());
    }
  }
  return out;
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
