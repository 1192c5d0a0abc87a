/**
 * runtime/os — the operating system, for every other runtime folder: the platform's path
 * rules, small filesystem helpers (atomic writes, lstat-or-null, `isWithin`), cheap
 * timers, and probing external tools for their versions.
 *
 * Files: paths.ts, fs.ts, timer.ts, probe.ts.
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = { owns: "runtime/os", mayImport: ["core"] } as const;
