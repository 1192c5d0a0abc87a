/** `skills lock` (declaration: see ../spec.ts). */

import { UsageError } from "../../core/errors.ts";
import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";
import { oneOf } from "../args.ts";

export const lockSpec = {
  name: "lock",
  order: 246,
  summary: "Export the lockfile as an SBOM; attest and verify the project's skill set",
  guide: "signatures.md",
  usage: [
    "lock <action> [options]",
    "lock export --format cyclonedx|spdx [-o FILE]",
    "lock digest [--installed] [--json]",
    "lock attest --sign KEY [-o FILE]",
    "lock verify --attestation FILE [--allowed-signers FILE]... [--json]",
  ],
  description: `Prove what a project runs. \`export\` writes the project's skills-lock.json as a
CycloneDX 1.6 or SPDX 2.3 JSON document: each skill a component with its source,
commit or OCI digest, every file's sha256, its signer, and the environment and
network it was approved for. \`digest\` prints one digest of the whole set (the
lockfile's, or with --installed what .agents/skills holds, every file hashed):
it changes when any file of any skill changes, and not otherwise. \`attest\`
signs that digest with an SSH key, as an in-toto statement in a DSSE envelope.
\`verify\` checks such an attestation against the allowed signers
(--allowed-signers, else $SKILLS_HOME/allowed_signers and the project's
.agents/allowed_signers) and the organisation's policy, then refuses (exit 25)
when the installed skills are not the attested set: a CI job or a pod's start
can run it before anything else.`,
  flags: {
    format: {
      type: "string",
      parse: oneOf(
        ["cyclonedx", "spdx"],
        (text) => new UsageError(`Invalid --format '${text}' (cyclonedx or spdx)`),
      ),
      value: "FORMAT",
      description: "export: cyclonedx (1.6) or spdx (2.3)",
    },
    output: { type: "string", short: "o", value: "FILE", description: "Write to FILE, not stdout" },
    installed: {
      type: "boolean",
      description: "digest: of the skills installed in .agents/skills, not the lockfile",
    },
    sign: { type: "string", value: "KEY", description: "attest: the SSH private key to sign with" },
    attestation: { type: "string", value: "FILE", description: "verify: the attestation to check" },
    "allowed-signers": {
      type: "string",
      multiple: true,
      value: "FILE",
      description: "verify: an allowed_signers file (ssh-keygen(1)) the signer must be in",
    },
    json: jsonFlag("digest, verify: one JSON document"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "action", required: true, complete: "none" }],
  sections: [{
    title: "Exit codes",
    text:
      "0 done, 1 failure, 2 usage error, 22 the attestation's signature does not verify,\n23 its signer is not allowed, 25 the installed skills are not the attested set.",
  }],
} as const satisfies CommandSpec;
