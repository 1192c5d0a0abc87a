/**
 * How a network grant is written: `api.example.com` (any port), `api.example.com:443`,
 * `*.example.com` (any subdomain, not the bare domain), an IPv4 literal, a bracketed IPv6
 * literal (`[::1]:8080`) or `localhost`, read and written back. Apart from the policies
 * (net_grants.ts) and the address ranges they need, so that `skills run --allow-net` is
 * parsed without loading either.
 */

export interface NetGrant {
  /** Lower-case name, IP literal (IPv6 without brackets), or `*.suffix`. */
  host: string;
  /** Undefined: any port. */
  port?: number;
  /**
   * Granted by the user (`--allow-net`, SKILLS_ALLOW_NET), not by the skill's manifest: a
   * name granted so may reach an address that is not public (net_grants.ts grantFor).
   */
  byUser?: boolean;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** A dotted IPv4 literal (each part 0-255, no leading zeros). */
export const IPV4_LITERAL =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-f:.]{2,45}$/;

function isHostName(host: string): boolean {
  if (host.length > 253) return false;
  return host.split(".").every((label) => LABEL.test(label));
}

/**
 * Parses one grant; returns an error message (a sentence fragment) for anything else, so
 * the manifest loader and the CLI can report it in their own words.
 */
export function parseNetGrant(text: string): NetGrant | { error: string } {
  const raw = text.trim().toLowerCase();
  if (raw === "") return { error: "an empty host" };
  if (raw.includes("://")) {
    return { error: `'${text}' is a URL: write its host as host[:port], e.g. api.example.com:443` };
  }
  let host: string;
  let portText: string | undefined;
  if (raw.startsWith("[")) {
    const close = raw.indexOf("]");
    if (close === -1) return { error: `'${text}' has an unclosed '['` };
    host = raw.slice(1, close);
    const rest = raw.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return { error: `'${text}' is not host[:port]` };
    if (rest !== "") portText = rest.slice(1);
    if (!IPV6.test(host) || !host.includes(":")) {
      return { error: `'${text}' is not a valid IPv6 address` };
    }
  } else {
    const colon = raw.lastIndexOf(":");
    if (colon !== -1) {
      if (raw.indexOf(":") !== colon) {
        return { error: `'${text}': write IPv6 addresses in brackets, e.g. [::1]:8080` };
      }
      host = raw.slice(0, colon);
      portText = raw.slice(colon + 1);
    } else host = raw;
    const name = host.startsWith("*.") ? host.slice(2) : host;
    if (!IPV4_LITERAL.test(host) && !isHostName(name)) {
      return { error: `'${text}' is not a host name, IP address or *.domain` };
    }
    if (host.startsWith("*.") && !name.includes(".")) {
      return { error: `'${text}': a wildcard needs a domain with a dot, e.g. *.example.com` };
    }
  }
  const grant: NetGrant = { host };
  if (portText !== undefined) {
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 1 && port <= 65535)) {
      return { error: `'${text}' has an invalid port (expected 1-65535)` };
    }
    grant.port = port;
  }
  return grant;
}

/** `host`, `host:port`, `[v6]:port`. */
export function formatNetGrant(grant: NetGrant): string {
  const host = grant.host.includes(":") ? `[${grant.host}]` : grant.host;
  return grant.port === undefined ? host : `${host}:${grant.port}`;
}
