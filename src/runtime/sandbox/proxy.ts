/**
 * The filtering proxy: the only way out of a sandbox's network namespace. The CLI listens
 * on a Unix socket that is bound into the sandbox; the init helper relays a loopback port
 * inside the sandbox to it, and the script finds that port in HTTP_PROXY / HTTPS_PROXY /
 * ALL_PROXY. Two request forms are served:
 *   CONNECT host:port            (HTTPS and any other TCP): a tunnel once allowed;
 *   GET http://host[:port]/path  (plain HTTP): forwarded in origin form.
 * Every decision is made before any connection, on the addresses a name resolves to: a
 * target no grant allows, or a name that resolves to an address that is not public
 * (loopback, private, CGNAT, link-local and metadata, unique-local, the host's own
 * interface addresses: core/policy/ip_ranges.ts) unless a grant names that very address — or
 * the user granted that name and the address is not a metadata one (said on stderr) —, gets
 * the same `403` and never a connection — so the proxy cannot be used to tell open ports from
 * closed ones. The connection then goes to the address that was checked (no second lookup
 * a rebinding DNS could answer differently).
 */

import { join } from "../os/paths.ts";
import { formatNetGrant, grantFor, type NetPolicy } from "../../core/policy/net_grants.ts";
import {
  isMetadataAddress,
  isPublicAddress,
  parseIp,
  sameAddress,
} from "../../core/policy/ip_ranges.ts";

export interface NetProxy {
  /** The folder holding the socket (bound read-only into the sandbox). */
  readonly dir: string;
  readonly socketPath: string;
  /** Stops listening, ends every tunnel and removes the socket's folder. */
  close(): Promise<void>;
}

interface ProxyOptions {
  /** Called for every refused target (`host:port` and why). */
  onDenied?: (target: string, reason: string) => void;
  /** Called for every tunnel opened (`host:port`): the run's receipt lists them. */
  onAllowed?: (target: string) => void;
  log?: (message: string) => void;
  /**
   * Told once per target and address when a name the user granted reaches an address that is
   * not public (shown on stderr: the user sees where their grant leads).
   */
  notice?: (message: string) => void;
}

const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = new Uint8Array([13, 10, 13, 10]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Starts the proxy for one sandbox; `policy` says which targets are allowed. */
export async function startNetProxy(
  policy: NetPolicy,
  options: ProxyOptions = {},
): Promise<NetProxy> {
  const dir = await Deno.makeTempDir({ prefix: "skills-net-" });
  // Reachable by the unprivileged uid a root CLI runs scripts as; nothing else is in here.
  await Deno.chmod(dir, 0o755);
  const socketPath = join(dir, "proxy.sock");
  const listener = Deno.listen({ transport: "unix", path: socketPath });
  await Deno.chmod(socketPath, 0o666);
  const open = new Set<Deno.Conn>();
  const told = new Set<string>();
  const said = {
    ...options,
    notice: (message: string) => {
      if (told.has(message)) return;
      told.add(message);
      options.notice?.(message);
    },
  };
  const serving = (async () => {
    try {
      for await (const conn of listener) {
        open.add(conn);
        handle(conn, policy, said, open).finally(() => open.delete(conn));
      }
    } catch { /* closed */ }
  })();
  let closed: Promise<void> | undefined;
  return {
    dir,
    socketPath,
    close() {
      closed ??= (async () => {
        try {
          listener.close();
        } catch { /* already closed */ }
        for (const conn of open) closeQuietly(conn);
        await serving;
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      })();
      return closed;
    },
  };
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Reads the request head; returns it and whatever followed it, or undefined. */
async function readHead(conn: Deno.Conn): Promise<{ head: string; rest: Uint8Array } | undefined> {
  let buffer = new Uint8Array(0);
  const chunk = new Uint8Array(4096);
  while (buffer.length <= MAX_HEAD_BYTES) {
    const n = await conn.read(chunk);
    if (n === null) return undefined;
    const next = new Uint8Array(buffer.length + n);
    next.set(buffer);
    next.set(chunk.subarray(0, n), buffer.length);
    buffer = next;
    const end = indexOf(buffer, HEAD_END);
    if (end !== -1) {
      return { head: decoder.decode(buffer.subarray(0, end)), rest: buffer.slice(end + 4) };
    }
  }
  return undefined;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

async function reply(conn: Deno.Conn, status: string, body: string): Promise<void> {
  const text = `${body}\n`;
  await writeAll(
    conn,
    encoder.encode(
      `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${
        encoder.encode(text).length
      }\r\nConnection: close\r\n\r\n${text}`,
    ),
  ).catch(() => {});
}

interface Target {
  host: string;
  port: number;
  /** For plain HTTP: the head to send upstream (origin form). */
  head?: string;
}

/** `host:port` of a CONNECT, or the pieces of an absolute-form HTTP request. */
function parseTarget(head: string): Target | string {
  const lines = head.split("\r\n");
  const [method, target, version] = (lines[0] ?? "").split(" ");
  if (!method || !target || !version?.startsWith("HTTP/")) return "malformed request line";
  if (method.toUpperCase() === "CONNECT") {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:\[\]]+):(\d{1,5})$/.exec(target);
    const port = Number(match?.[2]);
    if (!match || !(port >= 1 && port <= 65535)) return `bad CONNECT target '${target}'`;
    return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return `'${target}' is not an absolute http:// URL`;
  }
  if (url.protocol !== "http:") {
    return `only http:// can be proxied in the clear, got ${url.protocol}`;
  }
  const headers = lines.slice(1).filter((line) =>
    !/^proxy-(connection|authorization)\s*:/i.test(line)
  );
  const path = `${url.pathname}${url.search}`;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port === "" ? 80 : Number(url.port),
    head: [`${method} ${path} ${version}`, ...headers].join("\r\n") + "\r\n\r\n",
  };
}

async function handle(
  conn: Deno.Conn,
  policy: NetPolicy,
  options: ProxyOptions,
  open: Set<Deno.Conn>,
): Promise<void> {
  let upstream: Deno.TcpConn | undefined;
  try {
    const request = await readHead(conn);
    if (request === undefined) return;
    const target = parseTarget(request.head);
    if (typeof target === "string") {
      await reply(conn, "400 Bad Request", `skills sandbox: ${target}`);
      return;
    }
    const label = formatNetGrant({ host: target.host, port: target.port });
    const refuse = async (reason: string) => {
      options.onDenied?.(label, reason);
      // One answer for every refusal, whatever the reason and whatever listens there.
      await reply(
        conn,
        "403 Forbidden",
        `skills sandbox: ${label} is not allowed; grant it with \`skills run --allow-net ${label}\` or SKILLS_ALLOW_NET`,
      );
    };
    const grant = grantFor(policy, target.host, target.port);
    if (grant === undefined) return await refuse("not in the skill's permissions.network");
    const addresses = await addressesOf(target.host);
    if (addresses.length === 0) {
      await reply(conn, "502 Bad Gateway", `skills sandbox: cannot resolve ${target.host}`);
      return;
    }
    const hidden = ownAddresses();
    const notPublic = addresses.find((a) =>
      !isPublicAddress(a) || hidden.some((own) => sameAddress(own, a))
    );
    if (notPublic !== undefined && !grant.literal) {
      const refusal = nameRefusal(target, notPublic, grant.byUser);
      if (refusal !== undefined) return await refuse(refusal);
      options.notice?.(
        `${label} resolves to ${notPublic}, which is not a public address: reached because you granted ${label}`,
      );
    }
    for (const address of addresses) {
      try {
        upstream = await Deno.connect({ hostname: address, port: target.port });
        break;
      } catch { /* the next address, if any */ }
    }
    if (upstream === undefined) {
      await reply(conn, "502 Bad Gateway", `skills sandbox: cannot reach ${label}`);
      return;
    }
    open.add(upstream);
    options.log?.(`sandbox network: ${label}`);
    options.onAllowed?.(label);
    if (target.head === undefined) {
      await writeAll(conn, encoder.encode("HTTP/1.1 200 Connection established\r\n\r\n"));
    } else await writeAll(upstream, encoder.encode(target.head));
    if (request.rest.length > 0) await writeAll(upstream, request.rest);
    await Promise.all([pump(conn, upstream), pump(upstream, conn)]);
  } catch {
    /* a broken connection ends its tunnel */
  } finally {
    if (upstream !== undefined) {
      open.delete(upstream);
      closeQuietly(upstream);
    }
    closeQuietly(conn);
  }
}

/**
 * Why a name that resolves to an address that is not public is refused, or undefined when it
 * is reached: only a grant naming the address itself reaches any address; a name the user
 * granted reaches a private one, never a metadata one; a name the skill declares (or "any
 * public host") none. The reason says which grant would reach it, never the one just refused.
 */
function nameRefusal(target: Target, address: string, byUser: boolean): string | undefined {
  const label = formatNetGrant({ host: target.host, port: target.port });
  if (isMetadataAddress(address)) {
    const literal = formatNetGrant({ host: address, port: target.port });
    return `resolves to ${address}, which is not a public address but a link-local or cloud metadata one: only a grant naming that address reaches it (--allow-net ${literal})`;
  }
  if (byUser) return undefined;
  return `resolves to ${address}, which is not a public address: a skill's own declaration never reaches one; grant the name yourself to let it (--allow-net ${label})`;
}

/** The addresses to try for a target: itself when it is one, else what DNS answers. */
async function addressesOf(host: string): Promise<string[]> {
  if (parseIp(host) !== undefined) return [host];
  if (host === "localhost") return ["127.0.0.1", "::1"];
  const found: string[] = [];
  for (const kind of ["A", "AAAA"] as const) {
    try {
      found.push(...await Deno.resolveDns(host, kind, { signal: AbortSignal.timeout(5000) }));
    } catch { /* no such record, or no answer */ }
  }
  return found;
}

let interfaceAddresses: string[] | undefined;

/**
 * This machine's own addresses: a service bound to 0.0.0.0 answers on a public one too, so
 * "any public host" must not reach them. Empty where the permission to list them is missing.
 */
function ownAddresses(): string[] {
  if (interfaceAddresses === undefined) {
    try {
      interfaceAddresses = Deno.networkInterfaces().map((i) => i.address);
    } catch {
      interfaceAddresses = [];
    }
  }
  return interfaceAddresses;
}

/** Copies `from` to `to` until `from` ends, then half-closes `to`. */
async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    while (true) {
      const n = await from.read(buffer);
      if (n === null) break;
      await writeAll(to, buffer.subarray(0, n));
    }
  } catch { /* either side went away */ }
  try {
    await to.closeWrite();
  } catch { /* already closed */ }
}
