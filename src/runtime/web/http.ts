/**
 * GETs from websites for skills: HTTPS only, plain HTTP only to a loopback host (as the OCI
 * client), redirects followed by hand so every hop is held to the same rule, no credentials
 * sent but the one the caller's `authorization` gives for each hop's own URL (an npm
 * registry's, decided per URL so a redirect elsewhere carries none), a timeout, and the body read up to a limit (a `Content-Length` over it is
 * refused before a byte is read; a body that grows past it stops there).
 */

import { SkillError } from "../../core/errors.ts";
import { webUrlProblem } from "../../core/sources/web_source.ts";

const MAX_REDIRECTS = 5;
const TIMEOUT_MS = 30_000;

/** What a GET returned: the bytes, the URL they came from after redirects, the media type. */
interface Got {
  bytes: Uint8Array;
  url: string;
  contentType: string;
}

interface GetOptions {
  /** The most bytes the body may have. */
  maxBytes: number;
  /** What the limit is called in the refusal (e.g. `SKILLS_DOWNLOAD_MAX_BYTES`). */
  limitName?: string;
  signal?: AbortSignal;
  /** The `Authorization` header for a URL, asked again for every hop (never logged). */
  authorization?: (url: string) => string | undefined;
  /** The `Accept` header. */
  accept?: string;
}

/** GETs `url`; null on 404 or 410 (nothing there), throws on any other failure. */
export async function httpGet(url: string, options: GetOptions): Promise<Got | null> {
  let current = url;
  const signal = options.signal === undefined
    ? AbortSignal.timeout(TIMEOUT_MS)
    : AbortSignal.any([options.signal, AbortSignal.timeout(TIMEOUT_MS)]);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const parsed = new URL(current);
    const problem = webUrlProblem(parsed);
    if (problem !== undefined) {
      throw new SkillError("invalid_source", `Cannot download ${current}: ${problem}`);
    }
    let response: Response;
    try {
      const headers = new Headers();
      const auth = options.authorization?.(current);
      if (auth !== undefined) headers.set("authorization", auth);
      if (options.accept !== undefined) headers.set("accept", options.accept);
      response = await fetch(current, { redirect: "manual", signal, credentials: "omit", headers });
    } catch (error) {
      throw new SkillError("io_error", `Cannot reach ${current}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get("location");
      await response.body?.cancel();
      if (location === null) {
        throw new SkillError(
          "io_error",
          `Cannot download ${current}: a redirect without a Location`,
        );
      }
      current = new URL(location, current).href;
      continue;
    }
    if (response.status === 404 || response.status === 410) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel();
      const code = response.status === 401 || response.status === 403
        ? "permission_denied"
        : "io_error";
      throw new SkillError(code, `Cannot download ${current}: HTTP ${response.status}`);
    }
    const bytes = await readBounded(response, current, options);
    return { bytes, url: current, contentType: response.headers.get("content-type") ?? "" };
  }
  throw new SkillError("io_error", `Cannot download ${url}: more than ${MAX_REDIRECTS} redirects`);
}

/** GETs `url`, which must be there. */
export async function httpGetRequired(url: string, options: GetOptions): Promise<Got> {
  const got = await httpGet(url, options);
  if (got === null) throw new SkillError("not_found", `Cannot download ${url}: HTTP 404`);
  return got;
}

async function readBounded(
  response: Response,
  url: string,
  options: GetOptions,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new SkillError(
      "io_error",
      `Cannot download ${url}: it is larger than ${options.maxBytes} bytes`,
      options.limitName === undefined ? {} : { hint: `Set ${options.limitName} to allow more` },
    );
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > options.maxBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
