/**
 * What stands before every HTTP request of `skills mcp --http` (pure): the listen address,
 * which addresses count as loopback, the bearer token check (constant time), and the
 * DNS-rebinding guard on `Host` and `Origin`.
 */

import { SkillError } from "../core/errors.ts";

/** A token shorter than this is refused: it would be guessable. */
const MIN_TOKEN_LENGTH = 16;

export interface ListenAddress {
  hostname: string;
  port: number;
}

/** `127.0.0.1:8080`, `localhost:0`, `[::1]:8080`, `0.0.0.0:443` → hostname and port. */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (match === null || port > 65535) {
    throw new SkillError("usage", `Invalid --http address '${text}'`, {
      hint: "Give host:port, e.g. 127.0.0.1:8080 or [::1]:8080 (port 0 picks a free one)",
    });
  }
  return { hostname: match[1] ?? match[2]!, port };
}

/** Names and addresses that reach only this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Refuses a non-loopback address without a token, and a token too short to be secret.
 * Returns the token (or undefined: loopback, open to local processes only).
 */
export function checkTokenPolicy(
  address: ListenAddress,
  token: string | undefined,
): string | undefined {
  const value = token === "" ? undefined : token;
  if (value === undefined) {
    if (isLoopbackHost(address.hostname)) return undefined;
    throw new SkillError(
      "permission_denied",
      `Refusing to serve MCP on ${address.hostname}, which is not a loopback address, without a token`,
      { hint: "Set SKILLS_MCP_TOKEN to a long random secret; clients send it as a bearer token" },
    );
  }
  if (value.length < MIN_TOKEN_LENGTH) {
    throw new SkillError(
      "permission_denied",
      `SKILLS_MCP_TOKEN is too short (${value.length} characters; at least ${MIN_TOKEN_LENGTH})`,
      { hint: "Use a long random secret, e.g. the output of `openssl rand -hex 32`" },
    );
  }
  return value;
}

const encoder = new TextEncoder();

/** Whether `Authorization` carries exactly `Bearer <token>`; time does not depend on where it differs. */
export function hasBearerToken(authorization: string | null, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
  const given = encoder.encode(match?.[1] ?? "");
  const expected = encoder.encode(token);
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (given[i] ?? 0) ^ expected[i]!;
  return diff === 0 && match !== null;
}

/**
 * Why a request must be refused before it reaches MCP (403), or undefined. A browser page
 * of another origin (`Origin` not loopback) is refused; when serving on loopback, so is a
 * `Host` that is not loopback — a DNS-rebinding page reaches 127.0.0.1 under its own name.
 */
export function rebindingProblem(
  headers: Headers,
  address: ListenAddress,
): string | undefined {
  const origin = headers.get("origin");
  if (origin !== null) {
    let host: string;
    try {
      host = new URL(origin).hostname;
    } catch {
      return "Origin header is not a URL";
    }
    if (!isLoopbackHost(host)) return `Origin ${origin} is not allowed`;
  }
  if (isLoopbackHost(address.hostname)) {
    const host = (headers.get("host") ?? "").replace(/:\d+$/, "");
    if (!isLoopbackHost(host)) return `Host ${host || "(none)"} is not a loopback name`;
  }
  return undefined;
}
