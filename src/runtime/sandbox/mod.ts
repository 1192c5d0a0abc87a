/**
 * runtime/sandbox — the OS sandbox every script run and toolset host goes through: which
 * mode is in force and why (mode.ts: SKILLS_SANDBOX, finding and probing bubblewrap), the
 * bubblewrap argv (bwrap.ts, pure), what is hidden, shown and writable (mounts.ts), what
 * of the user's home must stay visible for the interpreter to start (toolchain.ts), one
 * sandboxed launch with its work folder, environment and network (launch.ts), the first
 * command inside, which applies the limits (sandbox_init.ts: util-linux prlimit; under a
 * root CLI with a writable workspace idmap.pl, which mounts the workspace's kernel overlay
 * over a lower layer idmapped for the sandbox's uid, masks secrets in the merged view, then
 * sets the limits and becomes the uid itself; or init.py, which does that, starts an
 * ordinary user's fuse-overlayfs and relays the proxy; both embedded by
 * scripts/gen_bundled.ts), the overlay engine in force (overlay.ts), the filtering CONNECT
 * proxy the CLI runs for declared hosts (proxy.ts), the account files that name a root
 * CLI's uid inside (accounts.ts), and the macOS `sandbox-exec` profile
 * (macos.sb, documented in docs/security.md, not applied automatically).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/sandbox",
  mayImport: ["core", "generated", "runtime/os", "runtime/store", "runtime/masks"],
} as const;
