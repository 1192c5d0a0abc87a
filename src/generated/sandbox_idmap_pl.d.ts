// Committed declaration of the module scripts/gen_bundled.ts writes (`deno task gen`), so that
// `deno check` works on a fresh clone; tests/scripts/generated_declarations_test.ts keeps the two alike.
/** Hash of the embedded Perl source. */
export declare const SANDBOX_IDMAP_HASH: string;
/** The Perl source, embedded. */
export declare const SANDBOX_IDMAP_SOURCE: string;
