// Committed declaration of the module scripts/gen_bundled.ts writes (`deno task gen`), so that
// `deno check` works on a fresh clone; tests/scripts/generated_declarations_test.ts keeps the two alike.
/** Hash of the embedded guide. */
export declare const WRITING_GUIDE_HASH: string;
/** docs/writing-skills.md, embedded. */
export declare const WRITING_GUIDE_SOURCE: string;
