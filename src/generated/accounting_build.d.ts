// Committed declaration of the module scripts/gen_bundled.ts writes (`deno task gen`), so that
// `deno check` works on a fresh clone; tests/scripts/generated_declarations_test.ts keeps the two alike.
/** The hash of src/agent/chat/ and deno.lock: what builds and counts a captured request. */
export declare const ACCOUNTING_BUILD: string;
