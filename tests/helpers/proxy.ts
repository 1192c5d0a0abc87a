/** Talking to the sandbox's proxy (runtime/sandbox/proxy.ts) over its socket, as a script does. */

/**
 * Sends `request` through the proxy's socket and returns what it answers: until it closes,
 * a tunnel's upstream says "pong", or a refusal (4xx) is complete.
 */
export async function askProxy(socketPath: string, request: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path: socketPath });
  try {
    await conn.write(new TextEncoder().encode(request));
    let text = "";
    const buffer = new Uint8Array(4096);
    while (true) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
      if (text.includes("pong") || (text.startsWith("HTTP/1.1 4") && text.includes("\n\n"))) break;
    }
    return text;
  } finally {
    conn.close();
  }
}
