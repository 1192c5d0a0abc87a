/**
 * `skills lock export|digest|attest|verify`: the project's lockfile as a bill of materials, the
 * digest of its skill set, an attestation of that set and its check (runtime/governance).
 */

import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import {
  attestSet,
  exportSbom,
  setDigestOf,
  verifySetAttestation,
} from "../../runtime/governance/attestation.ts";
import { resolve } from "../../runtime/os/paths.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { lockSpec } from "../specs/lock.ts";
import { writeJson } from "../ui/render.ts";

const ACTIONS = ["export", "digest", "attest", "verify"] as const;
const HINT = "Run `skills lock --help` for usage";

export const { help, parse } = defineCommand(lockSpec, ({ values, positionals, common }) => {
  const options = {
    ...common,
    action: "export" as (typeof ACTIONS)[number],
    format: values.format,
    output: values.output,
    installed: values.installed === true,
    sign: values.sign,
    attestation: values.attestation,
    allowedSigners: values["allowed-signers"] ?? [],
  };
  if (options.help) return options;
  const [action, ...extra] = positionals;
  if (!(ACTIONS as readonly string[]).includes(action ?? "")) {
    throw new UsageError(
      `Unknown lock action '${action ?? ""}' (export, digest, attest or verify)`,
      HINT,
    );
  }
  if (extra.length > 0) throw new UsageError(`Unexpected argument '${extra[0]}'`, HINT);
  options.action = action as (typeof ACTIONS)[number];
  if (options.action === "export" && options.format === undefined) {
    throw new UsageError("lock export needs --format cyclonedx or --format spdx", HINT);
  }
  if (options.action === "attest" && options.sign === undefined) {
    throw new UsageError("lock attest needs --sign KEY (an SSH private key)", HINT);
  }
  if (options.action === "verify" && options.attestation === undefined) {
    throw new UsageError("lock verify needs --attestation FILE", HINT);
  }
  return options;
});

type LockOptions = OptionsOf<typeof parse>;

export async function run(options: LockOptions, ctx: Context): Promise<number> {
  const output = options.output === undefined ? undefined : resolve(ctx.cwd, options.output);
  switch (options.action) {
    case "export": {
      const text = await exportSbom(ctx.cwd, options.format!, output);
      if (output === undefined) ctx.stdout.write(text);
      else ctx.stderr.write(`Wrote ${output}\n`);
      return 0;
    }
    case "digest": {
      const set = await setDigestOf(ctx.cwd, options.installed);
      if (options.json) writeJson(ctx, set);
      else ctx.stdout.write(`${set.digest}\n`);
      return 0;
    }
    case "attest": {
      const { text, digest } = await attestSet(ctx.cwd, resolve(ctx.cwd, options.sign!), output);
      if (output === undefined) ctx.stdout.write(text);
      else ctx.stderr.write(`Attested ${digest} in ${output}\n`);
      return 0;
    }
    case "verify": {
      const home = skillsHome(ctx.env, ctx.cwd);
      const result = await verifySetAttestation(
        ctx.env,
        home,
        ctx.cwd,
        resolve(ctx.cwd, options.attestation!),
        options.allowedSigners.map((file) => resolve(ctx.cwd, file)),
      );
      if (options.json) writeJson(ctx, result);
      else {ctx.stdout.write(
          `The installed skills are the attested set ${result.attested}, signed by ${result.signer}\n`,
        );}
      return 0;
    }
  }
}
