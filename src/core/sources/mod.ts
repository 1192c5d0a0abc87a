/**
 * core/sources — where a skill comes from: git URLs, GitHub shorthand, local folders and
 * `oci://` references parsed and refused before any tool runs (`sources`, `oci_reference`),
 * and the `ResolvedSource` union (local folder, local repository, remote git, OCI) that
 * runtime/lifecycle/resolve_source.ts makes of a parsed source and the fetch switches on;
 * npm packages (`npm_source`: `npm:<package>[@range]`, the version a range picks, the
 * integrity a tarball must have, the skill folders a package.json declares) and the registry
 * and credential `.npmrc` files give (`npmrc`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
