/**
 * A real OCI registry for tests: Debian's `docker-registry` serving from a temp dir on a
 * loopback port, optionally behind htpasswd basic auth (a bcrypt hash made with python3's
 * crypt module, so apache2-utils is not needed).
 */

export interface TestRegistry {
  host: string;
  dir: string;
  close(): Promise<void>;
}

/** A port free on the host's loopback now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function bcrypt(password: string): Promise<string> {
  const out = await new Deno.Command("python3", {
    args: [
      "-W",
      "ignore",
      "-c",
      "import crypt,sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1<<4)))",
      password,
    ],
    stdout: "piped",
  }).output();
  if (!out.success) throw new Error("python3 could not make a bcrypt hash");
  return new TextDecoder().decode(out.stdout).trim();
}

export async function startRegistry(
  options: { user?: { name: string; password: string } } = {},
): Promise<TestRegistry> {
  const dir = await Deno.makeTempDir({ prefix: "skills-oci-registry-" });
  const port = freePort();
  let auth = "";
  if (options.user) {
    await Deno.writeTextFile(
      `${dir}/htpasswd`,
      `${options.user.name}:${await bcrypt(options.user.password)}\n`,
    );
    auth = `auth:\n  htpasswd:\n    realm: test\n    path: ${dir}/htpasswd\n`;
  }
  await Deno.writeTextFile(
    `${dir}/config.yml`,
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:${port}\n${auth}`,
  );
  const child = new Deno.Command("docker-registry", {
    args: ["serve", `${dir}/config.yml`],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const host = `127.0.0.1:${port}`;
  for (let attempt = 0;; attempt++) {
    try {
      const response = await fetch(`http://${host}/v2/`);
      await response.body?.cancel();
      break;
    } catch (error) {
      if (attempt > 200) {
        child.kill();
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    host,
    dir,
    async close() {
      child.kill();
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const MANIFEST_ACCEPT = [
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
].join(", ");

/**
 * Copies a manifest (and every blob it names: config and layers, by cross-repository mount)
 * from `from` to `to`, byte for byte, as anyone with push access to the registry can — the
 * way a published artifact, or its signature, is copied or tagged anew.
 */
export async function copyManifest(
  host: string,
  from: { repository: string; reference: string },
  to: { repository: string; tag: string },
): Promise<string> {
  const got = await fetch(`http://${host}/v2/${from.repository}/manifests/${from.reference}`, {
    headers: { Accept: MANIFEST_ACCEPT },
  });
  if (!got.ok) throw new Error(`GET ${from.repository}:${from.reference}: ${got.status}`);
  const mediaType = got.headers.get("content-type")!;
  const bytes = new Uint8Array(await got.arrayBuffer());
  const manifest = JSON.parse(new TextDecoder().decode(bytes));
  if (to.repository !== from.repository) {
    const blobs = [manifest.config, ...(manifest.layers ?? [])].filter(Boolean);
    for (const blob of blobs) {
      const mounted = await fetch(
        `http://${host}/v2/${to.repository}/blobs/uploads/?mount=${blob.digest}&from=${from.repository}`,
        { method: "POST" },
      );
      await mounted.body?.cancel();
      if (mounted.status !== 201) throw new Error(`mount ${blob.digest}: ${mounted.status}`);
    }
    for (const child of manifest.manifests ?? []) {
      await copyManifest(host, { repository: from.repository, reference: child.digest }, {
        repository: to.repository,
        tag: child.digest,
      });
    }
  }
  const put = await fetch(`http://${host}/v2/${to.repository}/manifests/${to.tag}`, {
    method: "PUT",
    headers: { "Content-Type": mediaType },
    body: bytes,
  });
  await put.body?.cancel();
  if (put.status !== 201) throw new Error(`PUT ${to.repository}:${to.tag}: ${put.status}`);
  return put.headers.get("docker-content-digest")!;
}

/** A folder of two skills, `<root>/pack/alpha` and `<root>/pack/beta`, each written by `write`. */
export async function writePack(
  root: string,
  write: (dir: string, name: string) => Promise<void>,
): Promise<void> {
  await write(`${root}/pack/alpha`, "alpha");
  await write(`${root}/pack/beta`, "beta");
}
