/**
 * `skills add npm:<package>` end to end against a real npm registry (verdaccio) on a loopback
 * port that lets nobody read without a token: packages published with `npm publish` under
 * each of the three ways a package declares its skills (`agents.skills`, `agentskills`, the
 * `skills/` layout) install in the project and the user's scope through the registry and the
 * token `.npmrc` names (never printed, never recorded); the lockfile records package, version
 * and integrity; `install --frozen` restores them in a fresh clone and refuses an integrity
 * that is not the registry's; `update` moves within the range; a tarball replaced on the
 * registry is refused with nothing installed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../fixtures/git_repos.ts";
import { freshClone, peer } from "../../helpers/peer.ts";
import { startNpmRegistry } from "../../helpers/npm_registry.ts";
import { project } from "../../helpers/project.ts";
import { readTree, writeTree } from "../../helpers/tree.ts";

/** A SKILL.md a package ships. */
const packagedSkill = (name: string, note = "First version.") =>
  `---\nname: ${name}\ndescription: The ${name} skill, shipped in an npm package.\n---\n${note}\n`;

/** A package folder: its package.json and files. */
async function writePackage(
  dir: string,
  pkg: Record<string, unknown>,
  files: Record<string, string>,
): Promise<string> {
  await writeTree(dir, { "package.json": JSON.stringify(pkg, null, 2), ...files });
  return dir;
}

Deno.test("skills add npm:… installs from a real registry with the .npmrc's token, locks version and integrity, restores frozen, updates within the range, refuses a tampered tarball", async (t) => {
  await using registry = await startNpmRegistry();
  await using p = await project();
  const pkgs = join(p.dir, "packages");
  await registry.publish(
    await writePackage(join(pkgs, "agents"), {
      name: "@acme/agents-pkg",
      version: "1.0.0",
      agents: { skills: [{ name: "alpha", path: "./skills/alpha" }] },
    }, {
      "skills/alpha/SKILL.md": packagedSkill("alpha"),
      "skills/alpha/references/guide.md": "Guide.\n",
      "skills/undeclared/SKILL.md": packagedSkill("undeclared"),
      "index.js": "module.exports = 1;\n",
    }),
  );
  await registry.publish(
    await writePackage(join(pkgs, "agentskills"), {
      name: "agentskills-pkg",
      version: "1.0.0",
      agentskills: { beta: "file:./docs/beta", elsewhere: "github:org/repo/skills/x" },
    }, { "docs/beta/SKILL.md": packagedSkill("beta") }),
  );
  const layout = (version: string, note: string) =>
    writePackage(join(pkgs, `layout-${version}`), {
      name: "layout-pkg",
      version,
      skills: ["owner/repo@curated"],
    }, { "skills/gamma/SKILL.md": packagedSkill("gamma", note) });
  await registry.publish(await layout("1.0.0", "First version."));

  // The project's .npmrc names the registry and its token; the registry answers nothing without it.
  await Deno.writeTextFile(
    join(p.root, ".npmrc"),
    `registry=${registry.url}\n${registry.prefix}:_authToken=${registry.token}\n`,
  );
  const outputs: string[] = [];
  const cli = async (args: string[], options?: { cwd?: string; env?: Record<string, string> }) => {
    const result = await p.cli(args, options);
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  await t.step("each of the three declarations installs in the project", async () => {
    for (const source of ["npm:@acme/agents-pkg", "npm:agentskills-pkg", "npm:layout-pkg@^1.0"]) {
      const add = await cli(["add", source, "--project", "--yes"]);
      assert.equal(add.code, 0, `${source}: ${add.stderr}`);
    }
    const skills = join(p.root, ".agents", "skills");
    assert.deepEqual([...(await readTree(join(skills, "alpha"))).keys()].sort(), [
      "SKILL.md",
      "references/guide.md",
    ]);
    await assert.rejects(Deno.stat(join(skills, "undeclared")), "only what agents.skills names");
    assert.match(await Deno.readTextFile(join(skills, "beta", "SKILL.md")), /name: beta/);
    assert.match(await Deno.readTextFile(join(skills, "gamma", "SKILL.md")), /First version/);
    const lock = await p.lock();
    const document = await (await fetch(`${registry.url}@acme%2fagents-pkg`, {
      headers: { authorization: `Bearer ${registry.token}` },
    })).json();
    const alpha = lock.skills.alpha! as unknown as Record<string, unknown>;
    assert.equal(alpha.sourceType, "npm");
    assert.equal(alpha.sourceUrl, "npm:@acme/agents-pkg");
    assert.equal(alpha.version, "1.0.0");
    assert.equal(alpha.integrity, document.versions["1.0.0"].dist.integrity);
    assert.equal(alpha.skillPath, "skills/alpha/SKILL.md");
    assert.equal(lock.skills.gamma!.tag, "^1.0");
    assert.equal(lock.skills.beta!.skillPath, "docs/beta/SKILL.md");
  });

  await t.step(
    "the user's scope reads the token from ~/.npmrc through ${ENV}; without it the registry refuses",
    async () => {
      const home = join(p.dir, "user-home");
      await Deno.mkdir(home);
      const env = { HOME: home, SKILLS_HOME: join(home, ".skills") };
      await Deno.writeTextFile(join(home, ".npmrc"), `registry=${registry.url}\n`);
      const denied = await cli(["add", "npm:layout-pkg", "--yes"], { cwd: p.dir, env });
      assert.equal(denied.code, 1, denied.stderr);
      assert.match(denied.stderr, /HTTP 401/);
      await Deno.writeTextFile(
        join(home, ".npmrc"),
        `registry=${registry.url}\n${registry.prefix}:_authToken=\${TEST_NPM_TOKEN}\n`,
      );
      const add = await cli(["add", "npm:layout-pkg", "--yes"], {
        cwd: p.dir,
        env: { ...env, TEST_NPM_TOKEN: registry.token },
      });
      assert.equal(add.code, 0, add.stderr);
      const entries = JSON.parse(await Deno.readTextFile(join(home, ".skills", "registry.json")));
      const gamma = entries.skills.find((e: { name: string }) => e.name === "gamma");
      assert.deepEqual(gamma.source, {
        type: "npm",
        url: "npm:layout-pkg",
        subpath: "skills/gamma",
      });
      assert.match(gamma.commit_sha, /^1\.0\.0@sha512-/);
    },
  );

  await t.step(
    "--from-node-modules adds what the installed packages declare, at their installed version, with no network",
    async () => {
      const app = join(p.dir, "node-app");
      await Deno.mkdir(app, { recursive: true });
      await git(app, ["init", "--quiet"]);
      await Deno.writeTextFile(
        join(app, "package.json"),
        JSON.stringify({
          name: "app",
          private: true,
          dependencies: { "agentskills-pkg": "^1.0.0" },
        }),
      );
      await Deno.copyFile(join(p.root, ".npmrc"), join(app, ".npmrc"));
      const npm = await new Deno.Command("npm", {
        args: ["install", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd: app,
        env: { npm_config_cache: join(p.dir, "npm-cache") },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(npm.success, new TextDecoder().decode(npm.stderr));
      // No registry now: the files come from node_modules.
      await Deno.remove(join(app, ".npmrc"));
      const add = await cli(["add", "--from-node-modules", "--project", "--yes"], { cwd: app });
      assert.equal(add.code, 0, add.stderr);
      const lock = JSON.parse(await Deno.readTextFile(join(app, "skills-lock.json")));
      assert.deepEqual(Object.keys(lock.skills), ["beta"]);
      assert.equal(lock.skills.beta.sourceUrl, "npm:agentskills-pkg");
      assert.equal(lock.skills.beta.tag, "^1.0.0");
      const hidden = JSON.parse(
        await Deno.readTextFile(join(app, "node_modules", ".package-lock.json")),
      );
      const integrity = hidden.packages["node_modules/agentskills-pkg"].integrity;
      assert.equal(lock.skills.beta.commit, `1.0.0@${integrity}`);
    },
  );

  await t.step(
    "install --frozen restores the lockfile in a fresh clone; a wrong integrity is refused",
    async () => {
      const clone = await freshClone(p.root, p.dir);
      await Deno.copyFile(join(p.root, ".npmrc"), join(clone, ".npmrc"));
      const restore = await cli(["install", "--frozen"], { cwd: clone });
      assert.equal(restore.code, 0, restore.stderr);
      for (const name of ["alpha", "beta", "gamma"]) {
        assert.deepEqual(
          await readTree(join(clone, ".agents", "skills", name)),
          await readTree(join(p.root, ".agents", "skills", name)),
          name,
        );
      }
      const lockPath = join(clone, "skills-lock.json");
      const text = await Deno.readTextFile(lockPath);
      const integrity = JSON.parse(text).skills.beta.integrity as string;
      const forged = `sha512-${btoa("x".repeat(64))}`;
      await Deno.writeTextFile(lockPath, text.replaceAll(integrity, forged));
      await Deno.remove(join(clone, ".agents", "skills", "beta"), { recursive: true });
      const refused = await cli(["install", "--frozen"], { cwd: clone });
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stdout + refused.stderr, /the record says sha512-/);
      await assert.rejects(Deno.stat(join(clone, ".agents", "skills", "beta")));
    },
  );

  await t.step("update moves within the range, not past it", async () => {
    await registry.publish(await layout("1.1.0", "Second version."));
    await registry.publish(await layout("2.0.0", "Breaking version."));
    const outdated = await cli(["outdated", "--json"]);
    assert.match(outdated.stdout, /1\.1\.0@sha512-/, outdated.stdout);
    const update = await cli(["update", "gamma", "--yes"]);
    assert.equal(update.code, 0, update.stderr);
    const gamma = join(p.root, ".agents", "skills", "gamma", "SKILL.md");
    assert.match(await Deno.readTextFile(gamma), /Second version/);
    const lock = await p.lock();
    assert.match(lock.skills.gamma!.commit!, /^1\.1\.0@sha512-/);
    assert.equal((lock.skills.gamma! as unknown as Record<string, unknown>).version, "1.1.0");
  });

  await t.step(
    "a tarball replaced on the registry is refused and nothing is installed",
    async () => {
      await registry.publish(
        await writePackage(join(pkgs, "tamper"), { name: "tamper-pkg", version: "1.0.0" }, {
          "skills/delta/SKILL.md": packagedSkill("delta"),
        }),
      );
      const other = await writePackage(join(pkgs, "tamper-other"), {
        name: "tamper-pkg",
        version: "1.0.0",
      }, { "skills/delta/SKILL.md": packagedSkill("delta", "Tampered.") });
      const packed = await new Deno.Command("npm", {
        args: ["pack", "--pack-destination", p.dir, "--loglevel=error"],
        cwd: other,
        env: { npm_config_cache: join(p.dir, "npm-cache") },
        stdout: "piped",
      }).output();
      assert.ok(packed.success);
      await Deno.copyFile(
        join(p.dir, "tamper-pkg-1.0.0.tgz"),
        join(registry.storage, "tamper-pkg", "tamper-pkg-1.0.0.tgz"),
      );
      const lockBefore = await Deno.readTextFile(join(p.root, "skills-lock.json"));
      const add = await cli(["add", "npm:tamper-pkg", "--project", "--yes"]);
      assert.equal(add.code, 1, add.stderr);
      assert.match(add.stderr, /its tarball does not match its integrity sha512-/);
      assert.equal(await Deno.readTextFile(join(p.root, "skills-lock.json")), lockBefore);
      await assert.rejects(Deno.stat(join(p.root, ".agents", "skills", "delta")));
    },
  );

  await t.step(
    "vercel-labs' CLI, which has no npm registry source, keeps our npm entries when it adds a skill",
    async () => {
      const before = (await p.lock()).skills.alpha;
      const local = join(p.dir, "peer-skill");
      await writeTree(local, { "SKILL.md": packagedSkill("peer-added") });
      const theirs = await peer(p.root, p.dir, ["add", local, "--agent", "codex", "-y"]);
      assert.equal(theirs.code, 0, theirs.text);
      const after = await p.lock();
      assert.deepEqual(after.skills.alpha, before, "spread as it was");
      assert.ok(after.skills["peer-added"]);
    },
  );

  await t.step("the token is never printed and never recorded", async () => {
    for (const output of outputs) assert.ok(!output.includes(registry.token), output);
    const lock = await Deno.readTextFile(join(p.root, "skills-lock.json"));
    assert.ok(!lock.includes(registry.token));
    assert.ok(!lock.includes("127.0.0.1"), "the lockfile names no registry");
    await git(p.root, ["status", "--short"]);
  });
});
