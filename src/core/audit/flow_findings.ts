/**
 * From flows (flow/) to findings: the excerpt a reviewer reads, and how severe a secret sent
 * over the network is. The whole environment or a credential file leaving the machine is
 * always critical. A single named variable (`OPENWEATHER_API_KEY`) sent to a host the skill
 * declares — in `permissions.network` or in its SKILL.md — or to the domain its name names
 * (a known vendor's domains, `GH_TOKEN` → api.github.com; else a domain registered under the
 * very words of the variable's or the skill's own name, `NEWS_API_KEY` → newsapi.org) is how
 * an honest skill calls its API: information. To a host the script computes at run time it is
 * medium (shown, not refused); to any other host, critical.
 *
 * The match is equality, never a prefix, a part or a subdomain: whoever registers
 * `openai-keys.com`, `myopenai.io` or `ghcollect.com`, or makes `openai.drop.com` under a domain
 * of theirs, gets a name that starts with, holds or abbreviates the key's word, so none of those
 * says whose API the host is. An honest skill whose API answers on another name declares it,
 * which puts the host in front of the reviewer. What holds a script to its hosts is the
 * sandbox's network allowlist; this severity is what the reviewer is told.
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
  const owners = note.secrets.map((s) => ownerOf(secretWords(s), host));
  if (isDeclared(host, facts.declared)) {
    // A known vendor's key sent to another host the skill declares (an OpenAI-compatible API
    // given `OPENAI_API_KEY`): declared, so not refused, but the reviewer is shown whose key
    // goes where.
    return owners.includes("other vendor") ? "medium" : "info";
  }
  const named = owners.every((o) => o === "owner") ||
    ownerOf(facts.skill ?? "", host) === "owner";
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
 * The domains a word of a key's name stands for, each registered by the vendor it names: the
 * vendor's own (`OPENAI` → openai.com), a product's company (`JIRA` → atlassian.net), the
 * product a short name abbreviates (`GH` → github.com), and where a vendor's API answers on a
 * longer name (`DATADOG` → datadoghq.com, `FRED` → stlouisfed.org). A name holding one of these
 * words names exactly these domains, so `OPENAI_API_KEY` names neither `openai.xyz` nor
 * `openaiapi.com`; a name holding none names a domain registered under its words (see
 * {@link ownerOf}).
 */
const VENDOR_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  OPENAI: ["openai.com"],
  GPT: ["openai.com"],
  ANTHROPIC: ["anthropic.com"],
  CLAUDE: ["anthropic.com"],
  GITHUB: ["github.com", "githubusercontent.com", "ghcr.io"],
  GH: ["github.com", "githubusercontent.com", "ghcr.io"],
  GITLAB: ["gitlab.com"],
  GL: ["gitlab.com"],
  GOOGLE: ["googleapis.com", "googleusercontent.com", "google.com"],
  GCP: ["googleapis.com"],
  GEMINI: ["googleapis.com"],
  VERTEX: ["googleapis.com"],
  YOUTUBE: ["googleapis.com", "youtube.com"],
  AWS: ["amazonaws.com", "amazon.com", "on.aws"],
  S3: ["amazonaws.com"],
  AZURE: ["azure.com", "windows.net", "microsoft.com"],
  OUTLOOK: ["microsoft.com", "office.com", "outlook.com"],
  TEAMS: ["microsoft.com"],
  GRAPH: ["microsoft.com"],
  JIRA: ["atlassian.net", "atlassian.com"],
  CONFLUENCE: ["atlassian.net", "atlassian.com"],
  BITBUCKET: ["bitbucket.org", "atlassian.net", "atlassian.com"],
  TRELLO: ["trello.com", "atlassian.net", "atlassian.com"],
  HUGGINGFACE: ["huggingface.co"],
  HF: ["huggingface.co"],
  DATADOG: ["datadoghq.com", "datadoghq.eu"],
  DD: ["datadoghq.com", "datadoghq.eu"],
  NPM: ["npmjs.org", "npmjs.com"],
  CLOUDFLARE: ["cloudflare.com"],
  CF: ["cloudflare.com"],
  STRIPE: ["stripe.com"],
  SLACK: ["slack.com"],
  DISCORD: ["discord.com", "discordapp.com"],
  OPENWEATHER: ["openweathermap.org"],
  SHOPIFY: ["shopify.com", "myshopify.com"],
  HUBSPOT: ["hubapi.com", "hubspot.com"],
  DROPBOX: ["dropboxapi.com", "dropbox.com"],
  POSTMARK: ["postmarkapp.com"],
  FRED: ["stlouisfed.org"],
  ALPHAVANTAGE: ["alphavantage.co"],
  AV: ["alphavantage.co"],
  CMC: ["coinmarketcap.com"],
  FMP: ["financialmodelingprep.com"],
};

/**
 * Whether a key's (or a skill's) name names `host`'s owner, a known vendor other than it, or
 * no one it can tell: by {@link VENDOR_DOMAINS} where one of its words (or a run of them,
 * joined: `HUGGING_FACE`) is there; else the owner when a run of its words that holds one not
 * in {@link GENERIC}, joined, is the very name the host's domain was registered under (`KALSHI_API_KEY` → kalshi.com, `NEWS_API_KEY` → newsapi.org,
 * `OPEN_METEO_KEY` → open-meteo.com).
 */
function ownerOf(name: string, host: string): "owner" | "other vendor" | "unknown" {
  const domain = registrable(host.toLowerCase());
  const parts = name.toUpperCase().split(/[^A-Z0-9]+/).filter((p) => p !== "").slice(0, 8);
  const telling = (p: string) => p.length >= 2 && !GENERIC.has(p);
  const runs: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j <= parts.length; j++) {
      if (parts.slice(i, j).some(telling)) runs.push(parts.slice(i, j).join(""));
    }
  }
  const vendors = runs.flatMap((run) => VENDOR_DOMAINS[run] ?? []);
  if (vendors.length > 0) return vendors.includes(domain) ? "owner" : "other vendor";
  const registered = domain.split(".")[0]!.replaceAll("-", "");
  return runs.some((run) => run.toLowerCase() === registered) ? "owner" : "unknown";
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

/**
 * The source line of a flow, clipped, with what flowed where. The line gives way to the flow:
 * an excerpt is cut at {@link EXCERPT_CHARS} characters, and the host a secret goes to is what
 * the reviewer must read whole (`api.openai.com%2edrop.com` is drop.com's).
 */
export function flowExcerpt(text: string, flow: Flow): string {
  const start = text.lastIndexOf("\n", flow.at - 1) + 1;
  const end = text.indexOf("\n", flow.at);
  const line = text.slice(start, end === -1 ? text.length : end).trim();
  const room = Math.max(30, Math.min(90, EXCERPT_CHARS - flow.detail.length - 4));
  const clipped = line.length > room ? `${line.slice(0, room)}…` : line;
  return `${clipped} [${flow.detail}]`;
}

/** The characters of a finding's excerpt shown before it is cut. */
export const EXCERPT_CHARS = 120;
