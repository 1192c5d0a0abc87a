// Committed declaration of the module scripts/gen_bundled.ts writes (`deno task gen`), so that
// `deno check` works on a fresh clone; tests/scripts/generated_declarations_test.ts keeps the two alike.
/** Every file of the bundled skills by its path under skills/core. */
export declare const BUNDLED_FILES: Readonly<Record<string, string>>;
