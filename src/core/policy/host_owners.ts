/**
 * Who owns a host name, by the Public Suffix List (the `tldts` package, which carries it):
 * the domain a host was registered under — `kalshi.com` of `api.elections.kalshi.com`,
 * `example.co.uk` of `api.example.co.uk` — and whether that registration sits on a shared
 * platform, where each subdomain is a different customer's (`acme.vercel.app`,
 * `drop.workers.dev`, `someone.github.io`: the list's private section). On such a platform the
 * registered domain is the customer's whole name (`drop.workers.dev`), never the platform's, so
 * naming one customer's site says nothing about another's.
 */

import { parse } from "tldts";

/** The list's private section counts, and input is always a bare host name. */
const OPTIONS = {
  allowPrivateDomains: true,
  extractHostname: false,
  mixedInputs: false,
  validateHostname: false,
} as const;

export interface HostOwner {
  /** The domain it was registered under; the host itself when it is a suffix or an address. */
  domain: string;
  /** The label registered, without the suffix (`kalshi`, `drop` of `drop.workers.dev`). */
  name: string;
  /** Whether that registration is a customer's site on a shared platform (private section). */
  onPlatform: boolean;
}

export function hostOwner(host: string): HostOwner {
  const bare = host.toLowerCase().replace(/\.$/, "");
  const parsed = parse(bare, OPTIONS);
  const domain = parsed.domain ?? bare;
  return {
    domain,
    name: parsed.domainWithoutSuffix ?? domain.split(".")[0]!,
    onPlatform: parsed.isPrivate === true,
  };
}
