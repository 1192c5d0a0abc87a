/**
 * runtime/git — git, run safely against untrusted repositories: argv arrays built by pure
 * functions, a hardened environment and configuration, timeouts that kill git's process
 * group, retries on network errors only (command.ts); shallow clones, exact commit fetches
 * and ls-remote (fetch.ts); a commit's files written straight from git objects through one
 * `git cat-file --batch` process, with every path checked first (local_read.ts).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = { owns: "runtime/git", mayImport: ["core", "runtime/os"] } as const;
