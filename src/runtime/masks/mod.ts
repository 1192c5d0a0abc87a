/**
 * runtime/masks — what a sandboxed script may not read in the folders it is shown (the
 * workspace, `--write` folders), found on every run: secret files by name at any depth,
 * with no entry cap, read-only workspaces too, a symlinked secret by its target, and a
 * folder it cannot list hidden whole (secret_files.ts), reading again only the folders whose
 * entries changed since the last search (listing_cache.ts, by each folder's own `lstat`); the
 * git configs of the repository it is in and of those inside shown without credentials
 * (clean_git_config.ts, the rules in core/policy/git_config.ts). It finds; runtime/sandbox applies
 * (sandbox/bwrap.ts `readMaskArgs`, after whatever it mounts on the workspace).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/masks",
  mayImport: ["core", "runtime/os"],
} as const;
