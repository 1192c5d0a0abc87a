/**
 * runtime/git — git, run safely against untrusted repositories, as a stack of three modules
 * where each imports only those below it (`LAYER.stack`, bottom first; tests/architecture
 * checks the order against the real imports):
 *
 *   command.ts     runs git: argv arrays built by pure functions, a hardened environment and
 *                  configuration, timeouts that kill git's process group, retries on network
 *                  errors only
 *   fetch.ts       clones remotes without checkout (shallow, an exact commit, an abbreviated
 *                  one) and asks them with ls-remote; says which commit of the clone to read
 *   local_read.ts  writes a commit's files from a repository on this machine (one read in
 *                  place, or fetch.ts's clone) through one `git cat-file --batch` process,
 *                  with every path checked first
 *
 * Which of them a source needs (a repository on this machine or a remote) was decided when
 * the source was resolved (runtime/lifecycle/resolve_source.ts); nothing here decides it again.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/git",
  mayImport: ["core", "runtime/os"],
  stack: ["command", "fetch", "local_read"],
} as const;
