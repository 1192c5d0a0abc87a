/**
 * runtime/os — the operating system, for every other runtime folder: the platform's path
 * rules, small filesystem helpers (atomic writes, lstat-or-null, `isWithin`, folder keys), cheap
 * timers, and probing external tools for their versions.
 *
 * Files: paths.ts, fs.ts, timer.ts, probe.ts, folder_keys.ts (whether a folder's entries are
 * the ones a listing of it saw, by its own `lstat`).
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = { owns: "runtime/os", mayImport: ["core"] } as const;
