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
import type { HostOwner } from "../policy/host_owners.ts";

export interface FlowNote {
  host: string | undefined;
  secrets: readonly string[];
  inName?: boolean | undefined;
  /** In a command a document gives (a shell block of SKILL.md), not in a script. */
  inDocument?: boolean | undefined;
  /** An address built from decoded data (`Flow.hidden`, flow/flow_model.ts). */
  hidden?: boolean | undefined;
}

interface SkillFacts {
  /** Hosts the skill declares (permissions.network, URLs and host names in SKILL.md). */
  declared: ReadonlySet<string>;
  skill: string | undefined;
  /**
   * Who owns a host (core/policy/host_owners.ts), which the caller loads only when a judgement
   * needs it: the Public Suffix List costs ~15 ms to load, and most skills send no secret or
   * send it where a faster rule already tells. Without it, a host that needs it is judged as
   * neither declared nor owned — the severity stays as found — and is added to `unjudged`.
   */
  owner: ((host: string) => HostOwner) | undefined;
  unjudged: Set<string>;
  /** The domains the declared hosts were registered under, read once per report. */
  declaredDomains?: Set<string>;
}

/** Words of a variable's name that say nothing about whose secret it is. */
const GENERIC = new Set(
  "API KEY KEYS TOKEN TOKENS SECRET SECRETS ACCESS AUTH PASSWORD PASS PWD PAT CLIENT ID PRIVATE BEARER APP URL BASE HOST ENDPOINT USER USERNAME ORG PROJECT ACCOUNT SERVICE V1 V2 PERSONAL REFRESH SESSION CREDENTIALS CREDENTIAL"
    .split(" "),
);

export function flowSeverity(note: FlowNote, facts: SkillFacts, base: Severity): Severity {
  if (note.inName || note.secrets.some((s) => s === "env:*" || s.startsWith("file:"))) return base;
  const host = note.host;
  // A document's `$ES_URL`, `<your-host>`: the endpoint the user fills in, so information; a
  // script's address computed at run time is shown (medium).
  // An address built from decoded data hides where the secret goes: as a stranger's.
  if (host === undefined) return note.hidden ? base : note.inDocument ? "info" : "medium";
  const names = note.secrets.map(secretWords);
  if (isDeclared(host, facts)) {
    // A known vendor's key sent to another host the skill declares (an OpenAI-compatible API
    // given `OPENAI_API_KEY`): declared, so not refused, but the reviewer is shown whose key
    // goes where.
    return names.some((n) => vendorOf(n, host) === "other vendor") ? "medium" : "info";
  }
  const named = names.every((n) => ownerOf(n, host, facts) === "owner") ||
    ownerOf(facts.skill ?? "", host, facts) === "owner";
  return named ? "info" : base;
}

/** The words a secret's label names its owner by: a variable's name, a store's service. */
function secretWords(label: string): string {
  if (label.startsWith("store:")) return label.slice(6, label.indexOf("|"));
  return label.slice(4);
}

/**
 * A declared host covers itself, its subdomains and the rest of the domain it was registered
 * under: a declared `api.example.co.uk` covers `example.co.uk`, not every `.co.uk` host, and a
 * declared `acme.vercel.app` covers no other customer's site on that platform.
 */
function isDeclared(host: string, facts: SkillFacts): boolean {
  const bares = [...facts.declared].map((d) => d.replace(/^\*\./, ""));
  if (bares.some((bare) => host === bare || host.endsWith("." + bare))) return true;
  const owner = ownerLookup(host, facts);
  if (owner === undefined) return false;
  facts.declaredDomains ??= new Set(bares.map((bare) => owner(bare).domain));
  return facts.declaredDomains.has(owner(host).domain);
}

/** `facts.owner`, or undefined with `host` noted as unjudged. */
function ownerLookup(host: string, facts: SkillFacts): SkillFacts["owner"] {
  if (facts.owner === undefined) facts.unjudged.add(host);
  return facts.owner;
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
  ANTHROPIC: ["anthropic.com"],
  GITHUB: ["github.com", "githubusercontent.com", "ghcr.io"],
  GITLAB: ["gitlab.com"],
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
  DATADOG: ["datadoghq.com", "datadoghq.eu"],
  NPM: ["npmjs.org", "npmjs.com"],
  CLOUDFLARE: ["cloudflare.com"],
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
  CMC: ["coinmarketcap.com"],
  FMP: ["financialmodelingprep.com"],
};

/** Short names and products that stand for a vendor of {@link VENDOR_DOMAINS} (`GH` GitHub). */
const STANDS_FOR: Readonly<Record<string, string>> = {
  GPT: "OPENAI",
  CLAUDE: "ANTHROPIC",
  GH: "GITHUB",
  GL: "GITLAB",
  HF: "HUGGINGFACE",
  DD: "DATADOG",
  CF: "CLOUDFLARE",
  AV: "ALPHAVANTAGE",
};

/**
 * Whether a key's (or a skill's) name names `host`'s owner, a known vendor other than it, or
 * no one it can tell: by {@link VENDOR_DOMAINS} where one of its words (or a run of them,
 * joined: `HUGGING_FACE`) is there; else the owner when a run of its words that holds one not
 * in {@link GENERIC}, joined, is the very name the host's domain was registered under
 * (`KALSHI_API_KEY` → kalshi.com, `NEWS_API_KEY` → newsapi.org, `OPEN_METEO_KEY` →
 * open-meteo.com).
 */
function ownerOf(name: string, host: string, facts: SkillFacts): Owner {
  const vendor = vendorOf(name, host);
  if (vendor !== "unknown") return vendor;
  const lookup = ownerLookup(host, facts);
  if (lookup === undefined) return "unknown";
  // A customer's site on a shared platform is that customer's: `netlify` of `x.netlify.app`
  // or `vercel` of `x.vercel.app` is not the name anyone registered there.
  const owner = lookup(host.toLowerCase());
  if (owner.onPlatform) return "unknown";
  const registered = owner.name.replaceAll("-", "");
  return nameRuns(name).some((run) => run.toLowerCase() === registered) ? "owner" : "unknown";
}

type Owner = "owner" | "other vendor" | "unknown";

/** {@link ownerOf} by {@link VENDOR_DOMAINS} alone: "unknown" when the name holds no vendor. */
function vendorOf(name: string, host: string): Owner {
  const vendors = nameRuns(name).flatMap((run) => VENDOR_DOMAINS[STANDS_FOR[run] ?? run] ?? []);
  if (vendors.length === 0) return "unknown";
  const bare = host.toLowerCase();
  return vendors.some((d) => bare === d || bare.endsWith("." + d)) ? "owner" : "other vendor";
}

/** Each run of a name's words that holds one not in {@link GENERIC}, joined, upper case. */
function nameRuns(name: string): string[] {
  const parts = name.toUpperCase().split(/[^A-Z0-9]+/).filter((p) => p !== "").slice(0, 8);
  const telling = (p: string) => p.length >= 2 && !GENERIC.has(p);
  const runs: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j <= parts.length; j++) {
      if (parts.slice(i, j).some(telling)) runs.push(parts.slice(i, j).join(""));
    }
  }
  return runs;
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
