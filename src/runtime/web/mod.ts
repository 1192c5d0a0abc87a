/**
 * runtime/web — skills fetched from websites: HTTP GETs that speak HTTPS (plain HTTP
 * only to a loopback host), follow redirects under the same rule and stop reading at a limit
 * (http.ts); archives read in memory, every entry checked while it is read — paths, types,
 * sizes and counts bounded, so a hostile archive is refused before anything is written and a
 * bomb stops early (archive.ts over tar.ts and zip.ts); a site's well-known index and a direct
 * URL to a SKILL.md or an archive fetched into a folder with every digest checked first
 * (fetch_web.ts, used by lifecycle/fetch_source.ts); and the other side, a folder of skills
 * written as a static site's well-known index (well_known_site.ts, `skills publish
 * --well-known`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/web",
  mayImport: ["core", "runtime/os", "runtime/oci", "runtime/catalog"],
} as const;
