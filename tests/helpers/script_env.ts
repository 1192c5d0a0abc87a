/**
 * A script's environment as runner-lab's env_dump script prints it
 * (tests/fixtures/runner-skills/runner-lab/scripts/env_dump.py): the caller's variables the
 * tests of that environment pass, and the names every run sets itself, so that the policy-mode
 * and the sandbox tests hold a run to the same set.
 */

import { forwardsTrust, TLS_TRUST_NAMES } from "../../src/core/policy/env_policy.ts";
import { baseEnv } from "./cli.ts";

/**
 * Set by every run, whatever the caller's environment holds: Python's fixed settings
 * (core/policy/env_policy.ts), the skill's verified copy on PYTHONPATH, and the folders of
 * the run.
 */
export const SET_BY_EVERY_RUN = [
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONPATH",
  "PYTHONUTF8",
  "SKILLS_CALLER_DIR",
  "SKILLS_SKILL_DIR",
  "SKILLS_WORK_DIR",
];

/**
 * A caller's variable of each kind: one of the base set (LANG), one runner-lab's
 * `permissions.env` forwards (RUNNER_MODE), and a secret no script may see.
 */
export const CALLER_ENV = {
  LANG: "C.UTF-8",
  RUNNER_MODE: "fast",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
};

/**
 * The names in a dump, sorted, without LC_CTYPE: Python may add it itself (PEP 538 locale
 * coercion).
 */
export function dumpedNames(seen: Record<string, string>): string[] {
  return Object.keys(seen).filter((n) => n !== "LC_CTYPE").sort();
}

/**
 * The machine's TLS trust variables a script gets from a caller started with `baseEnv`
 * (core/policy/env_policy.ts `TLS_TRUST_NAMES`): set on a machine behind a TLS-inspecting
 * proxy, none elsewhere.
 */
export function forwardedTrust(): string[] {
  const env = baseEnv();
  return TLS_TRUST_NAMES.filter((name) =>
    env[name] !== undefined && forwardsTrust(name, env[name]!, env)
  );
}

/**
 * The base set's variables (core/policy/env_policy.ts) a caller started with `baseEnv` has
 * besides PATH and HOME, which a policy-mode script gets from it: TMPDIR under deno task test
 * (the run's scratch folder), none elsewhere.
 */
export function forwardedBase(): string[] {
  return baseEnv().TMPDIR === undefined ? [] : ["TMPDIR"];
}
