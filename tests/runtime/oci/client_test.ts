import assert from "node:assert/strict";
import { RegistryClient, sha256Digest } from "../../../src/runtime/oci/client.ts";
import { parseOciReference } from "../../../src/core/sources/oci_reference.ts";
import { findCredentials } from "../../../src/runtime/oci/credentials.ts";
import { startRegistry } from "../../helpers/oci_registry.ts";
import { utf8 } from "../../helpers/bytes.ts";

const assertEquals = (actual: unknown, expected: unknown) =>
  assert.deepStrictEqual(actual, expected);
const assertStringIncludes = (text: string, part: string) =>
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in: ${text}`);
async function assertRejects(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new assert.AssertionError({ message: "expected a rejection" });
}

async function pushImage(
  client: RegistryClient,
  repository: string,
  tag: string,
  layer: Uint8Array,
) {
  const config = utf8('{"name":"demo"}');
  const configDigest = await client.pushBlob(repository, config);
  const layerDigest = await client.pushBlob(repository, layer);
  const manifest = utf8(JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    artifactType: "application/vnd.test.skill.v1",
    config: {
      mediaType: "application/vnd.test.config.v1+json",
      digest: configDigest,
      size: config.length,
    },
    layers: [{
      mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
      digest: layerDigest,
      size: layer.length,
    }],
  }));
  const digest = await client.putManifest(
    repository,
    tag,
    manifest,
    "application/vnd.oci.image.manifest.v1+json",
  );
  return { digest, layerDigest };
}

async function skopeoRaw(host: string, path: string): Promise<string> {
  const out = await new Deno.Command("skopeo", {
    args: ["inspect", "--raw", "--tls-verify=false", `docker://${host}/${path}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test("oci client: monolithic and chunked pushes, pulls verified, skopeo reads the manifest", async () => {
  const registry = await startRegistry();
  try {
    const client = new RegistryClient({
      registry: registry.host,
      credentials: null,
      chunkSize: 1000,
    });
    assert(client.base.startsWith("http://"), "loopback registries may use plain HTTP");
    const small = utf8("small layer");
    const big = crypto.getRandomValues(new Uint8Array(4500)); // 5 chunks
    const one = await pushImage(client, "team/demo", "v1", small);
    const two = await pushImage(client, "team/demo", "v2", big);
    assertEquals(await client.getBlob("team/demo", one.layerDigest), small);
    assertEquals(await client.getBlob("team/demo", two.layerDigest), big);
    const pulled = await client.getManifest("team/demo", "v1");
    assertEquals(pulled.digest, one.digest);
    assertEquals(pulled.mediaType, "application/vnd.oci.image.manifest.v1+json");
    assertEquals((await client.getManifest("team/demo", one.digest)).digest, one.digest);
    const raw = JSON.parse(await skopeoRaw(registry.host, "team/demo:v1"));
    assertEquals(raw.artifactType, "application/vnd.test.skill.v1");
    assertEquals(raw.layers[0].digest, one.layerDigest);
    // A second repository gets the layer by a cross-repository mount, not a new upload.
    const mounted = await client.pushBlob("team/other", big, { mountFrom: "team/demo" });
    assertEquals(mounted, two.layerDigest);
    assert(await client.hasBlob("team/other", mounted));
  } finally {
    await registry.close();
  }
});

Deno.test("oci client: a blob whose bytes changed on disk is refused", async () => {
  const registry = await startRegistry();
  try {
    const client = new RegistryClient({ registry: registry.host, credentials: null });
    const { layerDigest } = await pushImage(client, "team/demo", "v1", utf8("original"));
    const hex = layerDigest.slice("sha256:".length);
    const data = `${registry.dir}/data/docker/registry/v2/blobs/sha256/${
      hex.slice(0, 2)
    }/${hex}/data`;
    await Deno.writeTextFile(data, "tampered"); // same length
    const error = await assertRejects(() => client.getBlob("team/demo", layerDigest));
    assertStringIncludes((error as Error).message, "Cannot trust blob");
  } finally {
    await registry.close();
  }
});

Deno.test("oci client: 404 and missing credentials are explained", async () => {
  const registry = await startRegistry({ user: { name: "alice", password: "s3cret" } });
  try {
    const anonymous = new RegistryClient({ registry: registry.host, credentials: null });
    const denied = await assertRejects(() => anonymous.getManifest("team/demo", "v1"));
    assertStringIncludes((denied as Error).message, "401");
    assertStringIncludes((denied as Error).message, "docker login");
    const client = new RegistryClient({
      registry: registry.host,
      credentials: { username: "alice", password: "s3cret" },
    });
    const { digest } = await pushImage(client, "team/demo", "v1", utf8("layer"));
    assertEquals((await client.getManifest("team/demo", "v1")).digest, digest);
    const missing = await assertRejects(() => client.getManifest("team/demo", "nope"));
    assertStringIncludes((missing as Error).message, "not found (404)");
  } finally {
    await registry.close();
  }
});

Deno.test("oci client: the Bearer challenge fetches a token from the realm with basic credentials", async () => {
  const registry = await startRegistry();
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/token") {
      seen.push(`${request.headers.get("authorization")} ${url.searchParams.get("scope")}`);
      if (request.headers.get("authorization") !== `Basic ${btoa("bob:pw")}`) {
        return new Response("", { status: 401 });
      }
      return Response.json({ token: `tok ${url.searchParams.get("scope")}` });
    }
    const token = request.headers.get("authorization") ?? "";
    const writes = request.method !== "GET" && request.method !== "HEAD";
    if (!token.startsWith("Bearer tok repository:team/") || (writes && !token.includes("push"))) {
      return new Response("", {
        status: 401,
        headers: { "WWW-Authenticate": `Bearer realm="http://${url.host}/token",service="test"` },
      });
    }
    const upstream = await fetch(`http://${registry.host}${url.pathname}${url.search}`, {
      method: request.method,
      headers: { ...Object.fromEntries(request.headers), host: url.host },
      body: request.body,
      redirect: "manual",
    });
    const headers = new Headers(upstream.headers);
    const location = headers.get("location");
    if (location) headers.set("location", location.replace(registry.host, url.host));
    return new Response(upstream.body, { status: upstream.status, headers });
  });
  try {
    const host = `127.0.0.1:${server.addr.port}`;
    const client = new RegistryClient({
      registry: host,
      credentials: { username: "bob", password: "pw" },
    });
    const { digest } = await pushImage(client, "team/demo", "v1", utf8("layer"));
    assertEquals((await client.getManifest("team/demo", digest)).digest, digest);
    assert(seen.some((line) => line.includes("repository:team/demo:pull,push")), seen.join("\n"));
    const wrong = new RegistryClient({
      registry: host,
      credentials: { username: "bob", password: "no" },
    });
    const error = await assertRejects(() => wrong.getManifest("team/demo", "v1"));
    assertStringIncludes((error as Error).message, "401");
  } finally {
    await server.shutdown();
    await registry.close();
  }
});

Deno.test("oci references and credentials", async () => {
  assertEquals(parseOciReference("oci://ghcr.io/acme/skills/pdf:1.0"), {
    registry: "ghcr.io",
    repository: "acme/skills/pdf",
    tag: "1.0",
  });
  const digest = await sha256Digest(utf8("x"));
  assertEquals(parseOciReference(`oci://127.0.0.1:5000/a@${digest}`).digest, digest);
  for (const bad of ["ghcr.io/a", "oci://ghcr.io", "oci://ghcr.io/A", "oci://ghcr.io/a@sha256:1"]) {
    let threw = false;
    try {
      parseOciReference(bad);
    } catch (error) {
      threw = true;
      assertStringIncludes((error as Error).message, "Cannot read OCI reference");
    }
    assert(threw, bad);
  }
  assert(new RegistryClient({ registry: "ghcr.io" }).base.startsWith("https://"));
  assert(
    new RegistryClient({ registry: "reg.lan:5000", insecureHosts: ["reg.lan:5000"] }).base
      .startsWith("http://"),
  );

  const home = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${home}/.docker`);
    await Deno.mkdir(`${home}/bin`);
    await Deno.writeTextFile(
      `${home}/.docker/config.json`,
      JSON.stringify({
        auths: { "reg.example": { auth: btoa("carol:pass1") } },
        credHelpers: { "helped.example": "fake" },
      }),
    );
    // A credential helper: reads the host on stdin, answers JSON.
    await Deno.writeTextFile(
      `${home}/bin/docker-credential-fake`,
      `#!/bin/sh\nread host\nprintf '{"Username":"dave","Secret":"for-%s"}' "$host"\n`,
    );
    await Deno.chmod(`${home}/bin/docker-credential-fake`, 0o755);
    const env = new Map([["HOME", home]]);
    assertEquals(await findCredentials("reg.example", env), {
      username: "carol",
      password: "pass1",
    });
    assertEquals(await findCredentials("unknown.example", env), undefined);
    const path = Deno.env.get("PATH");
    Deno.env.set("PATH", `${home}/bin:${path}`);
    try {
      assertEquals(await findCredentials("helped.example", env), {
        username: "dave",
        password: "for-helped.example",
      });
    } finally {
      Deno.env.set("PATH", path ?? "");
    }
    assertEquals(await findCredentials("reg.example", new Map([["SKILLS_OCI_AUTH", "eve:tok"]])), {
      username: "eve",
      password: "tok",
    });
    // Scoped to registries: another registry (one a hostile lockfile names) gets nothing from
    // the variable; a token ending in "=" is not read as a scope.
    const scoped = new Map([["SKILLS_OCI_AUTH", "ghcr.io=eve:tok, 127.0.0.1:5000=bob:pw"]]);
    assertEquals(await findCredentials("ghcr.io", scoped), { username: "eve", password: "tok" });
    assertEquals(await findCredentials("127.0.0.1:5000", scoped), {
      username: "bob",
      password: "pw",
    });
    assertEquals(await findCredentials("evil.example", scoped), undefined);
    assertEquals(
      await findCredentials("reg.example", new Map([["SKILLS_OCI_AUTH", "dG9rZW4=="]])),
      {
        username: "<token>",
        password: "dG9rZW4==",
      },
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
