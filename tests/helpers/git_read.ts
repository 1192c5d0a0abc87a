/** Reading git repositories in tests the way the fetcher does. */

import {
  readLocalRepository,
  type readRemoteRepository,
} from "../../src/runtime/git/local_read.ts";

/** A file:// repository read in place: how a resolved local repository is fetched. */
export const readInPlace: typeof readRemoteRepository = (url, _transport, request, dest, options) =>
  readLocalRepository(url.slice("file://".length), url, request, dest, options);

/** git with no user configuration: PATH to find it, a HOME that holds no .gitconfig. */
export const GIT_ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

/** Fetch options for repositories on this machine: that environment, retries 20 ms apart. */
export const QUICK_FETCH = { env: GIT_ENV, backoffMs: 20, timeoutMs: 20_000 };
