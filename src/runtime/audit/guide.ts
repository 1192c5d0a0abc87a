/**
 * The guide for skill authors (docs/writing-skills.md), embedded at build time by
 * scripts/gen_bundled.ts: `skills lint --guide` prints it, since a user of the binary or the
 * bundle has no clone to open it in. Loaded only by that flag.
 */

// @ts-types="../../generated/writing_guide_md.d.ts"
import { WRITING_GUIDE_SOURCE } from "../../generated/writing_guide_md.ts";

/** The guide's Markdown, as docs/writing-skills.md was when this program was built. */
export function writingGuide(): string {
  return WRITING_GUIDE_SOURCE;
}
