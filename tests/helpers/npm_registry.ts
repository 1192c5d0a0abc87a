/**
 * A real npm registry for tests: verdaccio (scripts/npm_registry.ts installs it) serving from
 * a temp dir on a loopback port, every package readable and publishable only with a token, a
 * user created through its HTTP API, packages published with the real `npm publish`.
 */

import { join } from "node:path";
import { ensureVerdaccio } from "../../scripts/npm_registry.ts";
import { freePort } from "./oci_registry.ts";

export interface NpmRegistry extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** `//127.0.0.1:PORT/`, the prefix `.npmrc` files credentials under. */
  prefix: string;
  /** The token of the user the registry was started with. */
  token: string;
  /** Where verdaccio keeps each package's document and tarballs. */
  storage: string;
  /** `npm publish` of a package folder to this registry; throws with npm's output on failure. */
  publish(dir: string): Promise<void>;
}

async function waitUntilUp(url: string, child: Deno.ChildProcess): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      const response = await fetch(`${url}-/ping`);
      await response.body?.cancel();
      if (response.ok) return;
    } catch (error) {
      if (attempt > 600) {
        child.kill();
        throw error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function createUser(url: string, name: string): Promise<string> {
  const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: `${name}-password`, type: "user" }),
  });
  const body = await response.json();
  if (typeof body.token !== "string") {
    throw new Error(`verdaccio made no user: ${JSON.stringify(body)}`);
  }
  return body.token;
}

export async function startNpmRegistry(): Promise<NpmRegistry> {
  const entry = await ensureVerdaccio();
  const dir = await Deno.makeTempDir({ prefix: "skills-npm-registry-" });
  const port = freePort();
  const storage = join(dir, "storage");
  await Deno.writeTextFile(
    join(dir, "config.yaml"),
    [
      `storage: ${storage}`,
      "auth:",
      "  htpasswd:",
      `    file: ${join(dir, "htpasswd")}`,
      "uplinks: {}",
      "packages:",
      "  '**':",
      "    access: $authenticated",
      "    publish: $authenticated",
      `listen: 127.0.0.1:${port}`,
      "log: { type: stdout, format: pretty, level: error }",
      "",
    ].join("\n"),
  );
  const child = new Deno.Command("node", {
    args: [entry, "--config", join(dir, "config.yaml")],
    cwd: dir,
    env: { HOME: dir },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}/`;
  await waitUntilUp(url, child);
  const token = await createUser(url, "publisher");
  const prefix = `//127.0.0.1:${port}/`;
  const npmrc = join(dir, "publisher.npmrc");
  await Deno.writeTextFile(npmrc, `${prefix}:_authToken=${token}\n`);
  return {
    url,
    prefix,
    token,
    storage,
    async publish(packageDir) {
      const out = await new Deno.Command("npm", {
        args: ["publish", "--registry", url, "--userconfig", npmrc, "--loglevel=error"],
        cwd: packageDir,
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: dir,
          npm_config_cache: join(dir, "npm-cache"),
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!out.success) {
        throw new Error(`npm publish ${packageDir}: ${new TextDecoder().decode(out.stderr)}`);
      }
    },
    async [Symbol.asyncDispose]() {
      child.kill();
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
