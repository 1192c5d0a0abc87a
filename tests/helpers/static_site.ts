/**
 * A static web server on a loopback port (port 0) serving a folder exactly as any static
 * host would: `GET /path` is the file's bytes, 404 otherwise. It records each path asked
 * for, so tests can tell what a client downloaded.
 */

import { join } from "node:path";

export interface StaticSite extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  /** The paths requested, in order. */
  requests: string[];
}

export function serveFolder(root: string): StaticSite {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    requests.push(path);
    if (path.split("/").includes("..")) return new Response("bad", { status: 400 });
    try {
      const bytes = await Deno.readFile(join(root, path));
      const type = path.endsWith(".json") ? "application/json" : "application/octet-stream";
      return new Response(bytes, { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** `sha256:<hex>` of bytes, as an index names an artifact. */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
