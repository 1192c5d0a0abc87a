/**
 * gitsign commit signatures, end to end: commits signed during the test the way gitsign signs
 * them — a CMS detached signature (`openssl cms -sign`, PEM `SIGNED MESSAGE`) in the commit's
 * `gpgsig` header, made with a Fulcio-like certificate of a private CA that the trusted root
 * (SKILLS_TRUSTED_ROOT) names. Under a policy that requires signatures by one identity: the
 * right signer installs and is recorded; another identity (23), a commit changed after signing
 * (22) and an unsigned commit (21) are refused with nothing installed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../fixtures/git_repos.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { type Identity, privateSigstore, trustingEnv } from "../../helpers/private_sigstore.ts";
import { readTree, writeShellSkill } from "../../helpers/tree.ts";

const ISSUER = "https://issuer.test.local";

async function run(cmd: string, args: string[], cwd: string, stdin?: string): Promise<string> {
  const child = new Deno.Command(cmd, {
    args,
    cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const out = await child.output();
  assert.ok(out.success, `${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/**
 * A repository whose HEAD commit is signed as gitsign signs: the commit object without the
 * signature, signed detached with CMS, the PEM put in a `gpgsig` header. `tamper` changes the
 * message after signing.
 */
async function signedRepo(
  dir: string,
  name: string,
  signer?: { cert: string; key: string },
  tamper = false,
) {
  const repo = join(dir, name);
  await writeShellSkill(repo, `name: ${name}\ndescription: Signed with gitsign.`, `# ${name}\n`);
  await git(dir, ["init", "--quiet", repo]);
  await git(repo, ["add", "-A"]);
  await git(repo, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "release"]);
  if (signer === undefined) return repo;
  const payload = await run("git", ["cat-file", "commit", "HEAD"], repo);
  await Deno.writeTextFile(join(dir, `${name}.payload`), payload);
  const pem = await run("openssl", [
    "cms",
    "-sign",
    "-binary",
    "-md",
    "sha256",
    "-in",
    `${name}.payload`,
    "-signer",
    signer.cert,
    "-inkey",
    signer.key,
    "-outform",
    "PEM",
  ], dir);
  const body = pem.replace("-----BEGIN CMS-----", "-----BEGIN SIGNED MESSAGE-----")
    .replace("-----END CMS-----", "-----END SIGNED MESSAGE-----").trim().split("\n");
  const [headers, ...message] = payload.split("\n\n");
  const gpgsig = `gpgsig ${body[0]}\n${body.slice(1).map((l) => ` ${l}`).join("\n")}`;
  let signed = `${headers}\n${gpgsig}\n\n${message.join("\n\n")}`;
  if (tamper) signed = signed.replace("release", "release (edited)");
  const sha = (await run("git", ["hash-object", "-t", "commit", "-w", "--stdin"], repo, signed))
    .trim();
  await git(repo, ["update-ref", "HEAD", sha]);
  return repo;
}

Deno.test("gitsign commits under a policy: the right identity installs and is recorded; another identity (23), a changed commit (22), an unsigned one (21) are refused", async () => {
  await using tmp = await tempDir();
  const sigstore = await privateSigstore(tmp.path);
  const { home, env } = await trustingEnv(
    tmp.path,
    sigstore,
    `signatures:\n  required: true\n  signers: ["${ISSUER}|alice@example.com"]\n`,
  );
  const alice: Identity = { san: "email:alice@example.com", issuer: ISSUER };
  const mallory: Identity = { san: "email:mallory@example.com", issuer: ISSUER };
  const good = await signedRepo(tmp.path, "good", await sigstore.issue(alice));
  const other = await signedRepo(tmp.path, "other", await sigstore.issue(mallory));
  const edited = await signedRepo(tmp.path, "edited", await sigstore.issue(alice), true);
  const plain = await signedRepo(tmp.path, "plain");

  for (
    const [repo, code, says] of [
      [other, 23, /mallory@example\.com/],
      [edited, 22, /not over this commit/],
      [plain, 21, /it is not signed/],
    ] as const
  ) {
    const refused = await runCli(["add", `file://${repo}`, "--yes"], { env });
    assert.equal(refused.code, code, `${repo}: ${refused.stderr}`);
    assert.match(refused.stderr, says);
    assert.deepEqual(await readTree(home).catch(() => new Map()), new Map(), "nothing installed");
  }
  const added = await runCli(["add", `file://${good}`, "--yes"], { env });
  assert.equal(added.code, 0, added.stderr);
  assert.match(
    added.stderr,
    /Signature: gitsign, https:\/\/issuer\.test\.local\|alice@example\.com/,
  );
  const entry = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills[0];
  assert.deepEqual(entry.signed, { by: "alice@example.com", issuer: ISSUER, format: "gitsign" });
});
