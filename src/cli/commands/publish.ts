/** `skills publish`: a skill folder (or a folder of skills) pushed to an OCI registry. */

import { resolve } from "node:path";
import { SkillError, UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { RegistryClient } from "../../runtime/oci/client.ts";
import { publishSkills } from "../../runtime/oci/publish.ts";
import { attachSignature, signatureTag } from "../../runtime/oci/signature.ts";
import { sshSign } from "../../runtime/signing/ssh.ts";
import { parseOciReference } from "../../core/sources/oci_reference.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { publishSpec } from "../specs/publish.ts";
import { writeJson } from "../ui/render.ts";

export const help = renderHelp(publishSpec);

interface PublishOptions extends ParsedCommon {
  source: string;
  target: string;
  insecureHosts: string[];
  /** `--sign`: the SSH private key that signs the pushed digest. */
  sign: string | undefined;
}

export function parse(argv: readonly string[]): PublishOptions {
  const { values, positionals } = parseSpec(publishSpec, argv);
  const common = commonFlags(values);
  if (common.help) {
    return { ...common, source: "", target: "", insecureHosts: [], sign: undefined };
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
  };
}

export async function run(options: PublishOptions, ctx: Context): Promise<number> {
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
  let result;
  let signature: { digest: string; via: "referrers" | "tag" } | undefined;
  try {
    result = await publishSkills(resolve(ctx.cwd, options.source), target, client);
    if (options.sign !== undefined) {
      const signed = await sshSign(resolve(ctx.cwd, options.sign), result.digest);
      const pushed = await client.getManifest(target.repository, result.digest);
      signature = await attachSignature(client, target.repository, {
        digest: result.digest,
        mediaType: result.mediaType,
        size: pushed.bytes.length,
      }, signed);
    }
  } catch (error) {
    if (error instanceof SkillError) throw error;
    throw new SkillError("io_error", (error as Error).message, { cause: error });
  }
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
