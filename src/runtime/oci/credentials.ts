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
  const fromEnv = envCredentials(env.get("SKILLS_OCI_AUTH"), registry);
  if (fromEnv !== null) return fromEnv;
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

/**
 * `registry=` before credentials scopes them to that registry (`ghcr.io=user:token`). A
 * registry has a dot or a port (or is localhost), so a base64 token ending in `=` is not one.
 */
const SCOPED =
  /^((?:[A-Za-z0-9-]+\.[A-Za-z0-9.-]+|localhost|[A-Za-z0-9.-]+:[0-9]{1,5})(?::[0-9]{1,5})?)=(.+)$/;

/**
 * `SKILLS_OCI_AUTH`: `user:password` or a token for every registry, or a comma list of
 * `registry=user:password` scoped to each — the form to use where sources come from others
 * (a project's lockfile may name any registry, and an unscoped secret is sent to each).
 * Null when it gives nothing for this registry (then docker's config is asked).
 */
function envCredentials(value: string | undefined, registry: string): RegistryCredentials | null {
  if (!value) return null;
  const parts = value.split(",").map((part) => part.trim()).filter(Boolean);
  const scoped = parts.map((part) => SCOPED.exec(part)).filter((m) => m !== null);
  let secret: string | undefined;
  if (scoped.length > 0 && scoped.length === parts.length) {
    secret = scoped.find((m) => m[1]!.toLowerCase() === registry.toLowerCase())?.[2];
    if (secret === undefined) return null;
  } else secret = value;
  const colon = secret.indexOf(":");
  return colon > 0
    ? { username: secret.slice(0, colon), password: secret.slice(colon + 1) }
    : { username: "<token>", password: secret };
}
