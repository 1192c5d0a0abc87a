/** The CLI's own version: shown by `--version` and used for min/max version gating. */
export const VERSION = "0.1.0";
