// Committed declaration of the module scripts/gen_bundled.ts writes (`deno task gen`), so that
// `deno check` works on a fresh clone; tests/scripts/generated_declarations_test.ts keeps the two alike.
/** How many tokens the vocabulary holds (ranks 0 to this, exclusive). */
export declare const O200K_TOKEN_COUNT: number;
/** The ranks of the tokens gpt-tokenizer keeps as bytes (found only for invalid UTF-8). */
export declare const O200K_BYTE_TOKENS: readonly number[];
/** Base64: each token's byte length in rank order, then the tokens' bytes. */
export declare const O200K_TABLE: string;
