/** `skills outdated`: which locked or installed skills have new files upstream. */

import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { readRegistry } from "../../runtime/store/registry.ts";
import { findProjectRoot } from "../../runtime/catalog/scopes.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import { readProjectLock } from "../../runtime/lifecycle/lockfile.ts";
import { checkOutdated, type OutdatedCandidate } from "../../runtime/project/outdated.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { outdatedSpec } from "../specs/outdated.ts";
import { progress } from "../ui/lifecycle_ui.ts";
import { shortSha, table, writeJson } from "../ui/render.ts";

export const handlesInterrupt = true;

export const { help, parse } = defineCommand(
  outdatedSpec,
  ({ positionals, common }) => {
    if (positionals.length > 0) {
      throw new UsageError(
        `Unexpected argument '${positionals[0]}'`,
        "Run `skills outdated --help` for usage",
      );
    }
    return common;
  },
);

type OutdatedOptions = OptionsOf<typeof parse>;

export async function run(options: OutdatedOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  const candidates: OutdatedCandidate[] = [];
  const { root } = findProjectRoot(ctx.cwd);
  const read = readProjectLock(root);
  if (read.state === "ok") {
    for (const [key, entry] of Object.entries(read.lock.skills)) {
      candidates.push({ scope: "project", root, key, entry });
    }
  }
  for (const entry of (await readRegistry(home)).skills) candidates.push({ scope: "user", entry });
  // A preview: nothing is recovered or committed; it lends its caches (one ls-remote per
  // remote, one fetch per remote whose branch or tag moved) and removes what it fetched.
  await using change = await beginChange({ kind: "user", home }, {
    env: ctx.env,
    signal: ctx.signal,
    progress: options.json ? undefined : progress(ctx),
    preview: true,
  });
  const results = await checkOutdated(candidates, change);
  const bad = results.filter((r) => r.status === "outdated" || r.status === "error");
  if (options.json) {
    writeJson(ctx, { outdated: bad.some((r) => r.status === "outdated"), skills: results });
    return bad.length === 0 ? 0 : 1;
  }
  if (results.length === 0) {
    ctx.stdout.write("No locked or installed skills to check\n");
    return 0;
  }
  ctx.stdout.write(table(
    ["NAME", "SCOPE", "TRACKING", "CURRENT", "LATEST", "STATUS"],
    results.map((r) => [
      r.name,
      r.scope,
      r.tracking,
      shortSha(r.current),
      shortSha(r.latest),
      r.status === "error"
        ? `error: ${r.error}`
        : r.status === "moved"
        ? "repository moved, skill unchanged"
        : r.status.replaceAll("_", " "),
    ]),
  ));
  const outdated = results.filter((r) => r.status === "outdated");
  if (outdated.length > 0) {
    ctx.stderr.write(
      `${outdated.length} outdated: update with \`skills update ${
        outdated.map((r) => r.name).join(" ")
      }\`\n`,
    );
  }
  return bad.length === 0 ? 0 : 1;
}
