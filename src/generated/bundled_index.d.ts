// Committed declaration of the module scripts/gen_bundled.ts writes (`deno task gen`), so that
// `deno check` works on a fresh clone; tests/scripts/generated_declarations_test.ts keeps the two alike.
/** Hash of the bundled skills (skills/core). */
export declare const BUNDLED_HASH: string;
/** Names of the bundled skills. */
export declare const BUNDLED_NAMES: readonly string[];
/** Each bundled skill's digest (as runtime/trust computes it), checked before it runs. */
export declare const BUNDLED_DIGESTS: Readonly<Record<string, string>>;
