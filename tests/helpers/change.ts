/** A lifecycle change for runtime tests: the user's scope, git with no home of its own. */

import { beginChange, type Change } from "../../src/runtime/lifecycle/change.ts";

const GIT_ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" };

/** `beginChange` in `home`'s user scope, as `skills add` opens it. */
export function beginUserChange(home: string): Promise<Change> {
  return beginChange({ kind: "user", home }, { env: GIT_ENV });
}
