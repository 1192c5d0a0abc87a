/**
 * A local HTTP server that answers every request with `pong` and counts them: what the
 * network tests point the sandbox and its proxy at, to prove a request did (or did not)
 * arrive.
 */

export interface PongServer extends AsyncDisposable {
  port: number;
  /** `http://127.0.0.1:<port>/ping`. */
  url: string;
  /** How many requests reached it so far. */
  readonly requests: number;
  close(): Promise<void>;
}

/** Listens on `hostname` (`0.0.0.0` for every interface) at a free port. */
export function pongServer(hostname = "127.0.0.1"): PongServer {
  let requests = 0;
  const server = Deno.serve({ hostname, port: 0, onListen() {} }, () => {
    requests++;
    return new Response("pong");
  });
  const port = (server.addr as Deno.NetAddr).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/ping`,
    get requests() {
      return requests;
    },
    close: () => server.shutdown(),
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
