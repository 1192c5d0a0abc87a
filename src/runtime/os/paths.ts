/**
 * The running platform's path rules (core/path_rules.ts), bound once. Everything outside
 * `core/` imports its path functions from here.
 */

import { pathRules } from "../../core/path_rules.ts";

export const {
  SEP,
  DELIMITER,
  isAbsolute,
  normalize,
  join,
  resolve,
  dirname,
  basename,
  relative,
} = pathRules(Deno.build.os === "windows" ? "windows" : "posix", () => Deno.cwd());
