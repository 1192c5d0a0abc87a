/**
 * Network grants: which `host[:port]` a sandboxed script may reach through the CLI's
 * proxy. A grant comes from the skill's `permissions.network` (a list of hosts, or `true`
 * for any public host), from `skills run --allow-net HOST[:PORT]`, or from
 * `SKILLS_ALLOW_NET=host,host:port`. Pure: the proxy (runtime/sandbox/proxy.ts) asks
 * {@link grantFor} about every connection.
 *
 * How a grant is written and read is grant_syntax.ts's (re-exported here). Names are
 * compared in lower case.
 */

import { isPublicAddress, parseIp } from "./ip_ranges.ts";
import { formatNetGrant, IPV4_LITERAL, type NetGrant, parseNetGrant } from "./grant_syntax.ts";

export { formatNetGrant, type NetGrant, parseNetGrant };

/**
 * `any`: every public host (`permissions.network: true`); `grants`: the hosts named. An
 * address that is not public is reached only through a grant that names it (core/ip_ranges).
 */
export interface NetPolicy {
  any: boolean;
  grants: readonly NetGrant[];
}

/** No network at all. */
export const NO_NETWORK: NetPolicy = { any: false, grants: [] };

/**
 * A policy as the list the lockfile and registry record: `*` for any public host, then each
 * grant (`api.example.com:443`), sorted; empty for no network.
 */
export function networkList(policy: NetPolicy | undefined): string[] {
  if (policy === undefined) return [];
  return [...(policy.any ? ["*"] : []), ...policy.grants.map(formatNetGrant).sort()];
}

/** A recorded network list for people: `*` is any public host; empty is none. */
export function describeNetworkList(list: readonly string[]): string {
  return list.length === 0
    ? "none"
    : list.map((entry) => entry === "*" ? "any public host" : entry).join(", ");
}

/** `any public host`, or the grants joined by commas, or `none`. */
export function describeNetPolicy(policy: NetPolicy): string {
  const named = policy.grants.map(formatNetGrant);
  if (policy.any) named.unshift("any public host");
  return named.length === 0 ? "none" : named.join(", ");
}

/**
 * Parses a comma-separated list (`SKILLS_ALLOW_NET`) or repeated values (`--allow-net`);
 * returns the grants and the entries that did not parse.
 */
export function parseNetGrants(
  values: readonly string[],
): { grants: NetGrant[]; errors: string[] } {
  const grants: NetGrant[] = [];
  const errors: string[] = [];
  for (const value of values.flatMap((v) => v.split(","))) {
    if (value.trim() === "") continue;
    const parsed = parseNetGrant(value);
    if ("error" in parsed) errors.push(parsed.error);
    else grants.push(parsed);
  }
  return { grants, errors };
}

/** The union of policies. */
export function mergeNetPolicies(...policies: NetPolicy[]): NetPolicy {
  return {
    any: policies.some((p) => p.any),
    grants: policies.flatMap((p) => p.grants),
  };
}

/** Whether the policy lets anything out at all. */
export function allowsNetwork(policy: NetPolicy): boolean {
  return policy.any || policy.grants.length > 0;
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith("*.")) {
    return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  }
  return pattern === host;
}

/** Lower case, brackets and a trailing dot removed: the form grants are compared in. */
function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/**
 * Whether `host:port` may be reached, and how: `literal` when a grant named the address
 * itself (an IP literal or `localhost`), which may reach any address; `byUser` when the user
 * granted it by name (`--allow-net registry.corp:443`), which may reach a private one (a
 * company registry on 10.x) but never a metadata address (ip_ranges.isMetadataAddress); a
 * name the skill declares, or "any public host", reaches public addresses only. The user's
 * grant wins over the skill's for the same host. Undefined when nothing allows it.
 */
export function grantFor(
  policy: NetPolicy,
  host: string,
  port: number,
): { literal: boolean; byUser: boolean } | undefined {
  const h = normalizeHost(host);
  let found: NetGrant | undefined;
  for (const grant of policy.grants) {
    if (grant.port !== undefined && grant.port !== port) continue;
    if (hostMatches(grant.host, h) && (found === undefined || (grant.byUser && !found.byUser))) {
      found = grant;
    }
  }
  if (found !== undefined) {
    return { literal: isAddressLiteral(found.host), byUser: found.byUser === true };
  }
  return policy.any ? { literal: false, byUser: false } : undefined;
}

function isAddressLiteral(host: string): boolean {
  return host === "localhost" || IPV4_LITERAL.test(host) || host.includes(":");
}

/**
 * Whether a grant names an address that is not public (`localhost`, `127.0.0.1`,
 * `169.254.169.254`, `10.0.0.5`, `[fd00:ec2::254]`): reached only when the user grants it
 * (`--allow-net`, SKILLS_ALLOW_NET), never by a skill's own manifest.
 */
export function namesNonPublicAddress(grant: NetGrant): boolean {
  if (grant.host === "localhost" || grant.host.endsWith(".localhost")) return true;
  return parseIp(grant.host) !== undefined && !isPublicAddress(grant.host);
}
