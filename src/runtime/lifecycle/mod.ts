/**
 * runtime/lifecycle — every change to the installed skills: getting a source's files
 * into staging (fetch_source.ts), installing (install.ts), updating (update.ts),
 * removing (remove.ts), trusting and untrusting (trust.ts), and scaffolding a new skill
 * (scaffold.ts). These own the crash-safety protocol (staging, intent journal, registry
 * lock, cleanup); CLI commands only ask and render.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/lifecycle",
  mayImport: [
    "core",
    "generated",
    "runtime/os",
    "runtime/git",
    "runtime/store",
    "runtime/catalog",
    "runtime/trust",
  ],
} as const;
