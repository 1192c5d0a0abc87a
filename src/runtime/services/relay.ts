/**
 * The host's side of a service's ports. Inside the sandbox, init.py serves every loopback
 * port the service listens on as a Unix socket `<port>.sock` in the relay folder; here each
 * such socket is served on the host's 127.0.0.1 — at the same port when it is free, else at
 * one the kernel picks — and every connection piped through. Only 127.0.0.1 is ever bound,
 * and only for a socket init made: the sandbox's network is otherwise as it was (none).
 *
 * The relay folder is writable inside the sandbox, so a script could swap a `<port>.sock` for a
 * link to a socket of the host (a container daemon's) for the host to connect to. The host never
 * connects through that folder: each socket is first hard-linked into a folder of the
 * supervisor's own (a hard link names the entry itself, never where a symlink points, and no
 * link crosses the sandbox's bind mount), and only an entry that is a socket there is used.
 */

import { join } from "../os/paths.ts";
import type { ServicePort } from "./state.ts";

const SOCKET_NAME = /^(\d{1,5})\.sock$/;
/** How often the relay folder is looked at. */
const POLL_MS = 150;

interface PortRelay {
  /** The ports relayed now. */
  ports(): ServicePort[];
  close(): Promise<void>;
}

interface Served {
  host: number;
  listener: Deno.TcpListener;
  conns: Set<Deno.Conn>;
}

/**
 * Watches `relayDir` and serves what appears there until closed. `onChange` hears the port
 * list each time it changes; `onActivity` each connection and each chunk relayed (the idle
 * timeout's clock).
 */
export function startPortRelay(
  relayDir: string,
  heldDir: string,
  onChange: (ports: ServicePort[]) => void,
  onActivity: () => void,
): PortRelay {
  const served = new Map<number, Served>();
  let closed = false;
  const list = () =>
    [...served.entries()].map(([sandbox, { host }]) => ({ sandbox, host }))
      .sort((a, b) => a.sandbox - b.sandbox);
  const look = () => {
    if (closed) return;
    const present = socketsIn(relayDir);
    let changed = false;
    for (const [port, entry] of served) {
      if (present.has(port)) continue;
      stopServing(entry);
      removeQuietly(join(heldDir, `${port}.sock`));
      served.delete(port);
      changed = true;
    }
    for (const port of present) {
      if (served.has(port)) continue;
      const held = holdSocket(join(relayDir, `${port}.sock`), join(heldDir, `${port}.sock`));
      if (held === undefined) continue;
      const entry = serve(port, held, onActivity);
      if (entry === undefined) continue;
      served.set(port, entry);
      changed = true;
    }
    if (changed) onChange(list());
  };
  const timer = setInterval(look, POLL_MS);
  look();
  return {
    ports: list,
    close: () => {
      closed = true;
      clearInterval(timer);
      for (const entry of served.values()) stopServing(entry);
      served.clear();
      return Promise.resolve();
    },
  };
}

/** The ports whose sockets init made (a name that is not `<port>.sock` is ignored). */
function socketsIn(dir: string): Set<number> {
  const ports = new Set<number>();
  try {
    for (const entry of Deno.readDirSync(dir)) {
      const match = SOCKET_NAME.exec(entry.name);
      if (match === null) continue;
      const port = Number(match[1]);
      if (port < 1 || port > 65535) continue;
      try {
        if (Deno.lstatSync(join(dir, entry.name)).isSocket) ports.add(port);
      } catch { /* gone meanwhile */ }
    }
  } catch { /* the folder is gone: the service ended */ }
  return ports;
}

/**
 * The socket at `shared` hard-linked to `held` (in the supervisor's own folder), returned only
 * when what it linked is a socket: a symlink planted in the shared folder links as a symlink and
 * is refused, and nothing in the sandbox can change `held` afterwards.
 */
function holdSocket(shared: string, held: string): string | undefined {
  removeQuietly(held);
  try {
    Deno.linkSync(shared, held);
    if (Deno.lstatSync(held).isSocket) return held;
  } catch { /* gone meanwhile, or not linkable */ }
  removeQuietly(held);
  return undefined;
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch { /* none */ }
}

/** 127.0.0.1:`port` when it is free, else a port the kernel picks; undefined if neither. */
function listenOnLoopback(port: number): Deno.TcpListener | undefined {
  for (const wanted of [port, 0]) {
    try {
      return Deno.listen({ hostname: "127.0.0.1", port: wanted, transport: "tcp" });
    } catch { /* taken (or refused): the next choice */ }
  }
  return undefined;
}

function serve(port: number, socket: string, onActivity: () => void): Served | undefined {
  const listener = listenOnLoopback(port);
  if (listener === undefined) return undefined;
  const entry: Served = { host: listener.addr.port, listener, conns: new Set() };
  (async () => {
    try {
      for await (const client of listener) {
        onActivity();
        void pipeTo(client, socket, entry.conns, onActivity);
      }
    } catch { /* closed */ }
  })();
  return entry;
}

function stopServing(entry: Served): void {
  try {
    entry.listener.close();
  } catch { /* closed already */ }
  for (const conn of entry.conns) closeQuietly(conn);
  entry.conns.clear();
}

/** One connection piped both ways to the service's socket, each half closed on its own. */
async function pipeTo(
  client: Deno.Conn,
  socket: string,
  conns: Set<Deno.Conn>,
  onActivity: () => void,
): Promise<void> {
  let upstream: Deno.Conn;
  try {
    upstream = await Deno.connect({ transport: "unix", path: socket });
  } catch {
    closeQuietly(client);
    return;
  }
  conns.add(client);
  conns.add(upstream);
  await Promise.all([copy(client, upstream, onActivity), copy(upstream, client, onActivity)]);
  for (const conn of [client, upstream]) {
    conns.delete(conn);
    closeQuietly(conn);
  }
}

async function copy(from: Deno.Conn, to: Deno.Conn, onActivity: () => void): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    while (true) {
      const n = await from.read(buffer);
      if (n === null) break;
      onActivity();
      let offset = 0;
      while (offset < n) offset += await to.write(buffer.subarray(offset, n));
    }
  } catch { /* either side went away */ }
  try {
    await to.closeWrite();
  } catch { /* closed already */ }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* closed already */ }
}
