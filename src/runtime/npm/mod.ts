/**
 * runtime/npm — skills shipped inside npm packages. The registry the user configured, read
 * from the project's and the user's `.npmrc` (npmrc_files.ts; the rules, and why a project's
 * file may not read the environment for a host the user did not name, in
 * core/sources/npmrc.ts); a package's document asked for and the version a range picks, its tarball
 * downloaded within the archive limits and checked against `dist.integrity` before it is read,
 * then read with the website archives' checks (runtime/web: no root, no `..`, no links, no
 * devices, sizes and counts bounded), and only the folders its `package.json` declares as
 * skills written (fetch_npm.ts); and the packages of a project's `node_modules` that declare
 * skills, read from disk (node_modules.ts). Credentials go only to URLs under the registry
 * prefix they name, are never printed, and never reach a record: records name `npm:<package>`.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/npm",
  mayImport: ["core", "runtime/os", "runtime/web"],
} as const;
