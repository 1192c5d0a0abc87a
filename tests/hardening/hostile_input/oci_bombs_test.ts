/**
 * Hostile OCI artifacts against `skills add`, pushed to a real registry (Debian's
 * docker-registry): a 1 MB gzip layer that unpacks past 1 GiB, and an index of eight layers
 * that unpack to 600 MiB each, are refused with the limit named and nothing installed, while
 * the CLI's peak memory (VmHWM of its process, read from /proc while it runs) stays far below
 * what they unpack to; an index entry that names a tag instead of a digest is refused.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createGzip } from "node:zlib";
import { RegistryClient, sha256Digest } from "../../../src/runtime/oci/client.ts";
import { INDEX_TYPE, SKILL_NAME_ANNOTATION } from "../../../src/runtime/oci/publish.ts";
import { spawnCli, tempDir } from "../../helpers/cli.ts";
import { concat } from "../../helpers/archives.ts";
import { startRegistry } from "../../helpers/oci_registry.ts";
import { readTree } from "../../helpers/tree.ts";

const MIB = 1024 * 1024;
const IMAGE_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip";
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** A ustar header for a regular file of `size` bytes (checksum included). */
function ustarHeader(path: string, size: number): Uint8Array<ArrayBuffer> {
  const header = new Uint8Array(512);
  const put = (at: number, text: string) => header.set(new TextEncoder().encode(text), at);
  put(0, path);
  put(100, "0000644\0");
  put(108, "0000000\0");
  put(116, "0000000\0");
  put(124, size.toString(8).padStart(11, "0") + "\0");
  put(136, "00000000000\0");
  put(148, "        ");
  put(156, "0");
  put(257, "ustar\0");
  put(263, "00");
  const sum = header.reduce((total, byte) => total + byte, 0);
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return header;
}

/**
 * A gzip bomb shaped as a skill layer: a SKILL.md, then `count` files of 90 MiB of zeros
 * (each under the 100 MiB a skill file may have), gzipped to about a thousandth of that.
 * node:zlib, not CompressionStream: the same bytes in a third of the time (~0.6 s a GiB).
 */
async function bombLayer(count: number): Promise<Uint8Array> {
  const skillMd = new TextEncoder().encode("---\nname: bomb\ndescription: Zeros.\n---\n");
  const zeros = new Uint8Array(MIB);
  const gzip = createGzip();
  const pieces: Uint8Array[] = [];
  gzip.on("data", (piece: Uint8Array) => pieces.push(piece));
  const ended = new Promise((resolve, reject) => {
    gzip.on("end", resolve);
    gzip.on("error", reject);
  });
  gzip.write(ustarHeader("SKILL.md", skillMd.length));
  gzip.write(skillMd);
  gzip.write(new Uint8Array(512 - skillMd.length));
  for (let i = 0; i < count; i++) {
    gzip.write(ustarHeader(`references/zeros-${i}.txt`, 90 * MIB));
    for (let m = 0; m < 90; m++) gzip.write(zeros);
  }
  gzip.end(new Uint8Array(1024));
  await ended;
  return concat(pieces);
}

/** Pushes `layer` with an empty config as a plain image manifest; returns its descriptor. */
async function pushImage(
  client: RegistryClient,
  repository: string,
  layer: Uint8Array,
  name: string,
): Promise<{ mediaType: string; digest: string; size: number; annotations: object }> {
  const config = json({});
  await client.pushBlob(repository, config);
  await client.pushBlob(repository, layer);
  const manifest = json({
    schemaVersion: 2,
    mediaType: IMAGE_MANIFEST,
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: await sha256Digest(config),
      size: config.length,
    },
    layers: [{ mediaType: LAYER_TYPE, digest: await sha256Digest(layer), size: layer.length }],
  });
  const digest = await client.putManifest(repository, `${name}-image`, manifest, IMAGE_MANIFEST);
  return {
    mediaType: IMAGE_MANIFEST,
    digest,
    size: manifest.length,
    annotations: { [SKILL_NAME_ANNOTATION]: name },
  };
}

/** `skills add <ref>` as a process, its peak resident memory read from /proc as it runs. */
async function addMeasured(ref: string, home: string) {
  const child = spawnCli(["add", ref, "--yes"], { env: { SKILLS_HOME: home } });
  let peakKib = 0;
  const sample = () => {
    try {
      const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
      peakKib = Math.max(peakKib, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
    } catch { /* ended */ }
  };
  const timer = setInterval(sample, 50);
  const output = await child.output();
  clearInterval(timer);
  return {
    code: output.code,
    stderr: new TextDecoder().decode(output.stderr),
    peakMib: peakKib / 1024,
  };
}

Deno.test("a 1 MB gzip layer that unpacks past 1 GiB is refused at the limit, in bounded memory", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const client = new RegistryClient({ registry: registry.host, credentials: null });
    const layer = await bombLayer(13); // 1.14 GiB of zeros
    assert.ok(layer.length < 2 * MIB, `the bomb is ${layer.length} bytes`);
    const image = await pushImage(client, "bomb/one", layer, "one");
    await client.putManifest(
      "bomb/one",
      "v1",
      (await client.getManifest("bomb/one", image.digest)).bytes,
      IMAGE_MANIFEST,
    );
    const home = join(tmp.path, "home");
    const out = await addMeasured(`oci://${registry.host}/bomb/one:v1`, home);
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, /its layer unpacks to more than 1 GiB \(the limit for one skill\)/);
    assert.match(out.stderr, /nothing was installed/);
    assert.ok(out.peakMib < 400, `peak memory ${out.peakMib.toFixed(0)} MiB`);
    const left = await readTree(home);
    assert.deepEqual([...left.keys()].filter((p) => !p.startsWith(".")), [], "nothing installed");
    assert.deepEqual([...left.keys()].filter((p) => p.startsWith(".staging/")), [], "no staging");
  } finally {
    await registry.close();
  }
});

Deno.test("an index of eight layers of 600 MiB each is refused at the pull's limit, in bounded memory", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  try {
    const client = new RegistryClient({ registry: registry.host, credentials: null });
    const layer = await bombLayer(6); // 540 MiB each, 4.2 GiB in all
    const entries = [];
    for (let i = 0; i < 8; i++) entries.push(await pushImage(client, "bomb/pack", layer, `b${i}`));
    const index = json({ schemaVersion: 2, mediaType: INDEX_TYPE, manifests: entries });
    await client.putManifest("bomb/pack", "v1", index, INDEX_TYPE);
    const home = join(tmp.path, "home");
    const out = await addMeasured(`oci://${registry.host}/bomb/pack:v1`, home);
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, /its layers unpack to more than 2 GiB together/);
    assert.ok(out.peakMib < 400, `peak memory ${out.peakMib.toFixed(0)} MiB`);
    const left = await readTree(home);
    assert.deepEqual([...left.keys()].filter((p) => !p.startsWith(".")), [], "nothing installed");
  } finally {
    await registry.close();
  }
});

Deno.test("an index entry that names a tag, not a digest, is refused: what it points at could change", async () => {
  const registry = await startRegistry();
  await using tmp = await tempDir();
  // The real registry refuses to store such an index; a hostile (or compromised) one serves
  // it: a loopback front that answers the index itself and passes the rest to the registry.
  const hostile = json({
    schemaVersion: 2,
    mediaType: INDEX_TYPE,
    manifests: [{
      mediaType: IMAGE_MANIFEST,
      digest: "latest",
      size: 1,
      annotations: { [SKILL_NAME_ANNOTATION]: "alpha" },
    }],
  });
  const front = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/v2/team/pack/manifests/v1") {
      return new Response(hostile, { headers: { "content-type": INDEX_TYPE } });
    }
    return fetch(`http://${registry.host}${url.pathname}${url.search}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
  });
  try {
    const skill = join(tmp.path, "alpha");
    await Deno.mkdir(skill);
    await Deno.writeTextFile(
      join(skill, "SKILL.md"),
      "---\nname: alpha\ndescription: Published under a tag.\n---\n# alpha\n",
    );
    const publish = spawnCli(["publish", skill, `oci://${registry.host}/team/pack:latest`]);
    assert.equal((await publish.output()).code, 0);
    const home = join(tmp.path, "home");
    const out = await addMeasured(`oci://127.0.0.1:${front.addr.port}/team/pack:v1`, home);
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, /an entry names "latest", not a manifest digest/);
    const left = await readTree(home);
    assert.deepEqual([...left.keys()].filter((p) => !p.startsWith(".")), [], "nothing installed");
  } finally {
    await front.shutdown();
    await registry.close();
  }
});
