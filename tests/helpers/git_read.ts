/** Reading git repositories in tests the way the fetcher does. */

import {
  readLocalRepository,
  type readRemoteRepository,
} from "../../src/runtime/git/local_read.ts";

/** A file:// repository read in place: how a resolved local repository is fetched. */
export const readInPlace: typeof readRemoteRepository = (url, _transport, request, dest, options) =>
  readLocalRepository(url.slice("file://".length), url, request, dest, options);
