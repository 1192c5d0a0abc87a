/**
 * core/sources — where a skill comes from: git URLs, GitHub shorthand, local folders and
 * `oci://` references parsed and refused before any tool runs (`sources`, `oci_reference`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
