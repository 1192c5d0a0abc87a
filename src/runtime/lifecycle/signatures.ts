/**
 * The signer policy applied to a fetch, before anything from it is planned: an OCI artifact
 * needs an SSH signature (a referrer, or the `.sig` tag) over a payload that binds its
 * manifest digest to the repository and tag it was pulled from (oci/signature.ts), a git
 * source a signed commit (or tag), by a signer every policy file lists. A local directory
 * carries no signature and is refused under a policy. Without a policy nothing is asked.
 */

import { SkillError } from "../../core/errors.ts";
import { ociLabel, sourceLocation } from "../../core/sources/sources.ts";
import type { GitOptions } from "../git/command.ts";
import { RegistryClient } from "../oci/client.ts";
import { findSignatures, payloadMismatch } from "../oci/signature.ts";
import { join } from "../os/paths.ts";
import { lstatOrNull } from "../os/fs.ts";
import { gitSigner } from "../signing/git_signature.ts";
import { refusal, requireSigned, type Signed, type SignerPolicy } from "../signing/policy.ts";
import type { Fetched } from "./fetch_source.ts";

/** Who signed what was fetched, as the policy accepts it; throws `untrusted` otherwise. */
export async function verifySigner(
  fetched: Fetched,
  policy: SignerPolicy,
  git: GitOptions,
): Promise<Signed> {
  const source = fetched.source;
  const commit = fetched.commit;
  if (source.type === "web") {
    throw refusal(sourceLocation(source), "a website's files carry no signature", policy);
  }
  if (source.type === "npm") {
    throw refusal(sourceLocation(source), "an npm package carries no SSH signature", policy);
  }
  if (source.kind === "local-folder" || commit === null) {
    throw refusal(sourceLocation(source), "a local directory carries no signature", policy);
  }
  if (source.kind === "oci") {
    const client = new RegistryClient({ registry: source.registry });
    let signatures;
    try {
      signatures = await findSignatures(client, source.repository, commit.sha);
    } catch (error) {
      throw new SkillError(
        "untrusted",
        `Cannot install ${ociLabel(source, commit.sha)}: its signature could not be read (${
          (error as Error).message
        })`,
      );
    }
    // Only signatures that speak for this repository and tag (or any tag, pulled by digest).
    const placement = { registry: source.registry, repository: source.repository, tag: commit.tag };
    const bound = [];
    let unbound: string | undefined;
    for (const found of signatures) {
      const mismatch = payloadMismatch(found, placement, commit.sha);
      if (mismatch === undefined) bound.push({ signature: found.signature, data: found.payload! });
      else unbound ??= mismatch;
    }
    return await requireSigned(policy, bound, ociLabel(source, commit.tag ?? commit.sha), unbound);
  }
  // A repository on this machine is read in place; a clone keeps its .git in the fetch.
  const cloned = await lstatOrNull(join(fetched.root, ".git"));
  const repository = source.kind === "local-repository"
    ? source.path
    : cloned?.isDirectory
    ? fetched.root
    : null;
  const what = `${source.url} at ${commit.sha.slice(0, 12)}`;
  if (repository === null) throw refusal(what, "its commit could not be read", policy);
  let by: string | undefined;
  for (const file of policy.files) {
    const result = await gitSigner(repository, source.transport, commit.sha, commit.tag, file, git);
    if ("refused" in result) throw refusal(what, `${result.refused} (${file})`, policy);
    by ??= result.principal;
  }
  return { by: by!, format: "ssh" };
}
