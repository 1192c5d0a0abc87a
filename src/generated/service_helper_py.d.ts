// Committed declaration of the module scripts/gen_bundled.ts writes (`deno task gen`), so that
// `deno check` works on a fresh clone; tests/scripts/generated_declarations_test.ts keeps the two alike.
/** Hash of the embedded Python source. */
export declare const SERVICE_HELPER_HASH: string;
/** The Python source, embedded. */
export declare const SERVICE_HELPER_SOURCE: string;
