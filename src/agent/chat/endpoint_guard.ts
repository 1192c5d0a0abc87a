/**
 * HTTP 501 from a model API means the server does not implement the endpoint we called:
 * a wrong SKILLS_BASE_URL (or a server that is not that provider's API), never a temporary
 * failure. The AI SDK retries every 5xx, so the guard turns a 501 into an error thrown from
 * `fetch` itself, which the SDK passes through without retrying.
 */

export class EndpointNotImplementedError extends Error {
  constructor(readonly url: string, readonly detail: string) {
    super(`HTTP 501 from ${url}: ${detail}`);
    this.name = "EndpointNotImplementedError";
  }
}

/** Wraps `inner` so that a 501 answer throws {@link EndpointNotImplementedError}. */
export function guardEndpoint(inner: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status !== 501) return response;
    const url = input instanceof Request ? input.url : String(input);
    const text = await response.text().catch(() => "");
    throw new EndpointNotImplementedError(url, errorDetail(text));
  };
}

/** The provider-shaped `{"error": {"message": …}}` message, else the body's first line. */
function errorDetail(text: string): string {
  try {
    const message = JSON.parse(text)?.error?.message;
    if (typeof message === "string" && message.trim() !== "") return message.trim();
  } catch { /* not JSON */ }
  const line = text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return line === "" ? "Not Implemented" : line.slice(0, 300);
}
