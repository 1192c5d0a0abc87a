/** Size limits and file names shared by modules that must not pull in the YAML parser. */

/**
 * The manifest's file names, the usual spelling first (the lower-case one some published
 * skills use second): a skill is a folder holding one.
 */
export const MANIFEST_FILES: readonly string[] = ["SKILL.md", "skill.md"];

/** Listing reads at most this much of SKILL.md; front matter must close within it. */
export const MAX_FRONT_MATTER_BYTES = 64 * 1024;

/**
 * No file of a skill may be larger (GitHub's own per-file limit): files are read whole to
 * be hashed, so this bounds memory against a hostile repository.
 */
export const MAX_SKILL_FILE_BYTES = 100 * 1024 * 1024;

export function tooLargeMessage(path: string, bytes: number): string {
  return `${path} is ${bytes} bytes; files over ${MAX_SKILL_FILE_BYTES} bytes (100 MiB) are refused`;
}

/**
 * The largest stdout cap a skill's manifest may set (`limits.max_output`): in JSON mode the
 * CLI keeps, decodes and parses the whole output, a few times its size in memory. The user
 * may go higher with MAX_SCRIPT_OUTPUT or a flag.
 */
export const MAX_MANIFEST_OUTPUT_BYTES = 16 * 1024 * 1024;
