/**
 * `skills add` reads the other published families of skills on OCI registries, pushed here
 * with our own registry client in their documented layouts (fixtures written for these
 * tests): salaboy/skills-oci (front-matter config, `…skill.content.v1.tar+gzip` layer rooted
 * at `<name>/`), Alibaba ACR (`application/vnd.agent.skill.v1+json`, empty config,
 * `org.agent.skill.name` annotations) and a plain image whose one layer — made by GNU tar,
 * with `./` paths and directory entries — holds a skill folder. A foreign layer with a
 * symlink is still refused.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { RegistryClient, sha256Digest } from "../../../src/runtime/oci/client.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { startRegistry, type TestRegistry } from "../../helpers/oci_registry.ts";
import { writeShellSkill } from "../../helpers/tree.ts";

const MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

function writeSkill(dir: string, name: string): Promise<void> {
  const frontMatter = `name: ${name}\ndescription: Published by another tool.\nversion: 1.0.0`;
  return writeShellSkill(dir, frontMatter, `# ${name}\n`);
}

/** A tar+gzip of `entries` under `cwd`, made by GNU tar as other tools' layers are. */
async function gnuTar(cwd: string, entries: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command("tar", {
    args: ["-czf", "-", "--owner=0", "--group=0", "-C", cwd, ...entries],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return out.stdout;
}

async function push(
  registry: TestRegistry,
  repository: string,
  tag: string,
  parts: {
    artifactType?: string;
    config: { mediaType: string; bytes: Uint8Array };
    layer: { mediaType: string; bytes: Uint8Array };
    annotations?: Record<string, string>;
  },
): Promise<void> {
  const client = new RegistryClient({ registry: registry.host, credentials: null });
  await client.pushBlob(repository, parts.config.bytes);
  await client.pushBlob(repository, parts.layer.bytes);
  const manifest = {
    schemaVersion: 2,
    mediaType: MANIFEST,
    ...(parts.artifactType ? { artifactType: parts.artifactType } : {}),
    config: {
      mediaType: parts.config.mediaType,
      digest: await sha256Digest(parts.config.bytes),
      size: parts.config.bytes.length,
    },
    layers: [{
      mediaType: parts.layer.mediaType,
      digest: await sha256Digest(parts.layer.bytes),
      size: parts.layer.bytes.length,
    }],
    ...(parts.annotations ? { annotations: parts.annotations } : {}),
  };
  await client.putManifest(repository, tag, encode(manifest), MANIFEST);
}

Deno.test("add reads salaboy/skills-oci, Alibaba ACR and plain-image skills", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const home = join(tmp.path, "home");
    const env = { SKILLS_HOME: home, HOME: tmp.path };
    const src = join(tmp.path, "src");
    for (const name of ["from-skills-oci", "from-acr", "from-image"]) {
      await writeSkill(join(src, name), name);
    }

    await push(registry, "families/skills-oci", "1.0.0", {
      config: {
        mediaType: "application/vnd.agentskills.skill.config.v1+json",
        bytes: encode({
          name: "from-skills-oci",
          version: "1.0.0",
          description: "Published by another tool.",
        }),
      },
      layer: {
        mediaType: "application/vnd.agentskills.skill.content.v1.tar+gzip",
        bytes: await gnuTar(src, ["from-skills-oci"]),
      },
      annotations: { "io.agentskills.skill.name": "from-skills-oci" },
    });
    await push(registry, "families/acr", "1.0.0", {
      artifactType: "application/vnd.agent.skill.v1+json",
      config: { mediaType: "application/vnd.oci.empty.v1+json", bytes: encode({}) },
      layer: {
        mediaType: "application/vnd.agent.skill.content.v1.tar+gzip",
        bytes: await gnuTar(join(src, "from-acr"), ["."]),
      },
      annotations: {
        "org.agent.skill.name": "from-acr",
        "org.agent.skill.version": "1.0.0",
        "org.opencontainers.image.created": "2026-01-01T00:00:00Z",
      },
    });
    await push(registry, "families/image", "latest", {
      config: {
        mediaType: "application/vnd.oci.image.config.v1+json",
        bytes: encode({
          architecture: "amd64",
          os: "linux",
          rootfs: { type: "layers", diff_ids: [] },
        }),
      },
      layer: {
        mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
        bytes: await gnuTar(src, ["./from-image"]),
      },
    });

    for (
      const [ref, name] of [
        ["families/skills-oci:1.0.0", "from-skills-oci"],
        ["families/acr:1.0.0", "from-acr"],
        ["families/image", "from-image"],
      ]
    ) {
      const add = await runCli(["add", `oci://${registry.host}/${ref}`, "--yes"], { env });
      assert.equal(add.code, 0, `${ref}: ${add.stderr}`);
      assert.match(
        await Deno.readTextFile(join(home, name!, "SKILL.md")),
        new RegExp(`name: ${name}`),
      );
      const mode = (await Deno.stat(join(home, name!, "scripts", "run.sh"))).mode!;
      assert.equal(mode & 0o100, 0o100, `${ref}: the script stays executable`);
    }
    const entries = JSON.parse(await Deno.readTextFile(join(home, "registry.json"))).skills;
    assert.deepEqual(
      entries.map((e: { name: string; source: { subpath: string } }) => [e.name, e.source.subpath]),
      [["from-acr", ""], ["from-image", "from-image"], ["from-skills-oci", "from-skills-oci"]],
    );
  } finally {
    await registry.close();
  }
});

Deno.test("a foreign layer holding a symlink is refused with nothing installed", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const home = join(tmp.path, "home");
    const src = join(tmp.path, "src");
    await writeSkill(join(src, "linked"), "linked");
    await Deno.symlink("/etc/passwd", join(src, "linked", "secret"));
    await push(registry, "families/linked", "1.0.0", {
      artifactType: "application/vnd.agent.skill.v1+json",
      config: { mediaType: "application/vnd.oci.empty.v1+json", bytes: encode({}) },
      layer: {
        mediaType: "application/vnd.agent.skill.content.v1.tar+gzip",
        bytes: await gnuTar(src, ["linked"]),
      },
      annotations: { "org.agent.skill.name": "linked" },
    });
    const add = await runCli(["add", `oci://${registry.host}/families/linked:1.0.0`, "--yes"], {
      env: { SKILLS_HOME: home, HOME: tmp.path },
    });
    assert.equal(add.code, 1);
    assert.match(add.stderr, /linked\/secret is not a regular file/);
    assert.equal(await Deno.stat(home).then(() => true, () => false), false, "no home created");
  } finally {
    await registry.close();
  }
});
