/** `skills publish` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const publishSpec = {
  name: "publish",
  order: 130,
  summary: "Push skills to an OCI registry, or write them as a website's well-known index",
  guide: "publishing.md",
  usage: [
    "publish <source> <target> [--sign <key>] [--json]",
    "publish --well-known <dir> <source>... [--json]",
  ],
  description: `<source> is a skill folder or a folder of skills; <target> is
oci://registry/repository[:tag]. Pack the skill into one deterministic tar+gzip layer (same files, same digest)
and push it as an OCI 1.1 artifact, with a config blob holding its front matter
and every file's sha256. A folder of skills becomes one OCI index. Prints the
digest of what it pushed (manifest, or index). The tag defaults to latest.
Credentials come from SKILLS_OCI_AUTH (user:token) or ~/.docker/config.json.
Plain HTTP is used only for loopback registries and hosts named with
--insecure-registry.

With --sign, the digest printed is signed together with the registry, repository
and tag it was published to, with \`ssh-keygen -Y sign\` (namespace
agent-skills-oci), and the signature attached as an OCI 1.1 referrer of it, also
tagged sha256-<hex>.sig for registries without the referrers API. \`skills add\`
checks it against allowed_signers files (see \`skills add --help\`) and refuses it
for a copy in another repository or under another tag.

With --well-known <dir>, every <source> is written under <dir> as a static
site's skills index: <dir>/.well-known/agent-skills/index.json (the agentskills
discovery schema 0.2.0) and the files it names, each with its sha256 digest (a
skill that is only its SKILL.md as that file, any other as a deterministic
<name>.tar.gz). Serve <dir> with any static web server, and \`skills add
https://your.site\` (or vercel-labs' \`skills add\`) installs from it. Entries an
existing index lists for other skills are kept.`,
  flags: {
    "well-known": {
      type: "string",
      value: "DIR",
      description: "Write the skills as DIR/.well-known/agent-skills/ (a static site's index)",
    },
    sign: {
      type: "string",
      value: "KEY",
      description: "Sign what was pushed with this SSH private key (ssh-keygen -Y sign)",
    },
    "insecure-registry": {
      type: "string",
      multiple: true,
      value: "HOST[:PORT]",
      description: "Allow plain HTTP to this registry host (repeatable)",
    },
    json: jsonFlag("One JSON document on stdout: reference, digest, mediaType, skills"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [
    { name: "source", required: true, complete: "path" },
    { name: "target", variadic: true, complete: "none" },
  ],
  sections: [{
    title: "Examples",
    text: `
  skills publish ./pdf oci://ghcr.io/acme/skills/pdf:1.0.0
  skills publish ./skills oci://127.0.0.1:5000/acme/all:v1 --json
  skills publish ./pdf oci://ghcr.io/acme/skills/pdf:1.0.0 --sign ~/.ssh/id_ed25519
  skills publish --well-known ./site ./skills/pdf ./skills/docx`,
  }],
} as const satisfies CommandSpec;
