/** Size limits shared by modules that must not pull in the YAML parser. */

/** Listing reads at most this much of SKILL.md; front matter must close within it. */
export const MAX_FRONT_MATTER_BYTES = 64 * 1024;
