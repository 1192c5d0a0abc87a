/** `skills publish`: a skill folder (or a folder of skills) pushed to an OCI registry. */

import { resolve } from "node:path";
import { type SkillError, UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { RegistryClient } from "../../runtime/oci/client.ts";
import { publishSigned, signatureTag } from "../../runtime/oci/signature.ts";
import { sshSign } from "../../runtime/signing/ssh.ts";
import { parseOciReference } from "../../core/sources/oci_reference.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { publishSpec } from "../specs/publish.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(
  publishSpec,
  ({ values, positionals, common }) => {
    const wellKnown = typeof values["well-known"] === "string" ? values["well-known"] : undefined;
    const none = { source: "", target: "", insecureHosts: [], sign: undefined };
    if (common.help) return { ...common, ...none, wellKnown: undefined, sources: [] };
    if (wellKnown !== undefined) {
      if (positionals.length === 0) {
        throw new UsageError("Missing skill folder", "Run `skills publish --help` for usage");
      }
      if (values.sign !== undefined || values["insecure-registry"] !== undefined) {
        throw new UsageError(
          "--sign and --insecure-registry apply to OCI registries, not to --well-known",
        );
      }
      return { ...common, ...none, wellKnown, sources: positionals.map(String) };
    }
    if (positionals.length !== 2) {
      throw new UsageError(
        positionals.length < 2
          ? "Missing skill folder or oci:// target"
          : `Unexpected argument '${positionals[2]}'`,
        "Run `skills publish --help` for usage",
      );
    }
    const insecure = values["insecure-registry"];
    return {
      ...common,
      source: positionals[0] ?? "",
      target: positionals[1] ?? "",
      insecureHosts: Array.isArray(insecure) ? insecure.map(String) : [],
      sign: typeof values.sign === "string" ? values.sign : undefined,
      wellKnown: undefined,
      sources: [],
    };
  },
);

type PublishOptions = OptionsOf<typeof parse>;

export async function run(options: PublishOptions, ctx: Context): Promise<number> {
  if (options.wellKnown !== undefined) return await runWellKnown(options.wellKnown, options, ctx);
  let target;
  try {
    target = parseOciReference(options.target);
  } catch (error) {
    const problem = error as SkillError;
    throw new UsageError(problem.message, problem.hint);
  }
  if (target.digest) {
    throw new UsageError(
      `Cannot publish to "${options.target}": a digest names content that already exists.`,
      "Publish to a tag, e.g. oci://registry/repository:1.0.0",
    );
  }
  const client = new RegistryClient({
    registry: target.registry,
    insecureHosts: options.insecureHosts,
  });
  const key = options.sign === undefined ? undefined : resolve(ctx.cwd, options.sign);
  const { result, signature } = await publishSigned(
    resolve(ctx.cwd, options.source),
    target,
    client,
    key === undefined ? undefined : (payload) => sshSign(key, payload),
  );
  if (options.json) {
    writeJson(ctx, signature ? { ...result, signature } : result);
  } else {
    for (const skill of result.skills) {
      ctx.stdout.write(`published ${skill.name} ${skill.digest}\n`);
    }
    ctx.stdout.write(`${result.reference}@${result.digest}\n`);
    if (signature) {
      ctx.stderr.write(
        `signed ${result.digest} (${
          signature.via === "referrers" ? "a referrer" : `tag ${signatureTag(result.digest)}`
        })\n`,
      );
    }
  }
  return 0;
}

/** `--well-known DIR`: the skills written as a static site's index under DIR. */
async function runWellKnown(
  dir: string,
  options: PublishOptions,
  ctx: Context,
): Promise<number> {
  const { publishWellKnown } = await import("../../runtime/web/well_known_site.ts");
  const result = await publishWellKnown(
    resolve(ctx.cwd, dir),
    options.sources.map((source) => resolve(ctx.cwd, source)),
  );
  if (options.json) writeJson(ctx, result);
  else {
    for (const skill of result.skills) {
      ctx.stdout.write(`published ${skill.name} ${skill.digest}\n`);
    }
    ctx.stdout.write(`${result.index}\n`);
  }
  return 0;
}
