/**
 * Registry credentials: `SKILLS_OCI_AUTH` ("user:password" or a registry token), else
 * `~/.docker/config.json` — its `credHelpers` entry for the host, its `credsStore`, or its
 * base64 `auths` entry — the order docker itself uses.
 */

export interface RegistryCredentials {
  username: string;
  password: string;
}

interface DockerConfig {
  auths?: Record<
    string,
    { auth?: string; username?: string; password?: string; identitytoken?: string }
  >;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

export async function findCredentials(
  registry: string,
  env: { get(name: string): string | undefined } = Deno.env,
): Promise<RegistryCredentials | undefined> {
  const fromEnv = env.get("SKILLS_OCI_AUTH");
  if (fromEnv) {
    const colon = fromEnv.indexOf(":");
    return colon > 0
      ? { username: fromEnv.slice(0, colon), password: fromEnv.slice(colon + 1) }
      : { username: "<token>", password: fromEnv };
  }
  const configDir = env.get("DOCKER_CONFIG") ?? `${env.get("HOME") ?? ""}/.docker`;
  let config: DockerConfig;
  try {
    config = JSON.parse(await Deno.readTextFile(`${configDir}/config.json`));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new Error(
      `Cannot read registry credentials: ${configDir}/config.json is not valid JSON. Fix or remove it.`,
    );
  }
  const keys = [registry, `https://${registry}`, `http://${registry}`];
  if (registry === "docker.io") keys.push("https://index.docker.io/v1/");
  const helper = keys.map((key) => config.credHelpers?.[key]).find(Boolean) ?? config.credsStore;
  if (helper) {
    const fromHelper = await askHelper(helper, registry);
    if (fromHelper) return fromHelper;
  }
  for (const key of keys) {
    const entry = config.auths?.[key];
    if (!entry) continue;
    if (entry.auth) {
      const decoded = new TextDecoder().decode(
        Uint8Array.from(atob(entry.auth), (c) => c.charCodeAt(0)),
      );
      const colon = decoded.indexOf(":");
      if (colon > 0) {
        return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
      }
    }
    if (entry.username && entry.password) {
      return { username: entry.username, password: entry.password };
    }
    if (entry.identitytoken) return { username: "<token>", password: entry.identitytoken };
  }
  return undefined;
}

/** `docker-credential-<helper> get`, host on stdin, JSON {Username, Secret} on stdout. */
async function askHelper(
  helper: string,
  registry: string,
): Promise<RegistryCredentials | undefined> {
  if (!/^[A-Za-z0-9_.-]+$/.test(helper)) return undefined;
  let child;
  try {
    child = new Deno.Command(`docker-credential-${helper}`, {
      args: ["get"],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch {
    return undefined; // helper not installed: fall back to auths
  }
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(registry));
  await writer.close();
  const out = await child.output();
  if (!out.success) return undefined;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(out.stdout));
    if (typeof parsed.Username === "string" && typeof parsed.Secret === "string") {
      return { username: parsed.Username, password: parsed.Secret };
    }
  } catch { /* unreadable answer: no credentials */ }
  return undefined;
}
