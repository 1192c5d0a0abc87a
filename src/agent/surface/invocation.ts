/**
 * Who may start a skill (pure). `disable-model-invocation: true` (or Codex's
 * `allow_implicit_invocation: false`) keeps a skill out of the model's catalog — the system
 * prompt and the `activate_skill` enum — while the user can still start it (`/name args` in
 * the REPL); `user-invocable: false` keeps the user from starting it by name.
 */

import type { LoadedSkill } from "../../runtime/catalog/catalog.ts";

export function modelCanInvoke(skill: Pick<LoadedSkill, "manifest">): boolean {
  return skill.manifest.invocation?.modelInvocable !== false;
}

export function userCanInvoke(skill: Pick<LoadedSkill, "manifest">): boolean {
  return skill.manifest.invocation?.userInvocable !== false;
}

/**
 * The body of a skill the user started with `args`: `$ARGUMENTS` replaced by them, or, when
 * the body has no such placeholder, the arguments appended on a line of their own.
 */
export function withArguments(body: string, args: string): string {
  if (body.includes("$ARGUMENTS")) return body.replaceAll("$ARGUMENTS", args);
  return args.trim() === "" ? body : `${body.trimEnd()}\n\nARGUMENTS: ${args}`;
}
