/**
 * An OCI distribution client: just the calls publish and add need. Every blob and every
 * manifest fetched by digest is hashed before it is returned; a registry answering with
 * other bytes is refused. Auth follows the registry's `WWW-Authenticate` challenge: Bearer
 * (a token fetched from the realm, with basic credentials when we have them) or Basic.
 */

import { sha256Hex } from "../../core/records/digest.ts";
import { findCredentials, type RegistryCredentials } from "./credentials.ts";
import { isLoopbackRegistry } from "../../core/sources/oci_reference.ts";

interface RegistryClientOptions {
  registry: string;
  /** Hosts the user allowed to speak plain HTTP (loopback always may). */
  insecureHosts?: string[];
  credentials?: RegistryCredentials | null;
  /** Blobs larger than this are uploaded in chunks (PATCH with Content-Range). */
  chunkSize?: number;
}

interface FetchedManifest {
  digest: string;
  mediaType: string;
  bytes: Uint8Array;
}

class RegistryError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  return `sha256:${await sha256Hex(bytes)}`;
}

const MANIFEST_ACCEPT = [
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
].join(", ");

/** A manifest larger than this is refused (the limit registries themselves apply). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** No blob we read (a layer of skill files) may be larger than this. */
const MAX_BLOB_BYTES = 1024 * 1024 * 1024;

async function readCapped(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body === null) return new Uint8Array();
  for await (const chunk of response.body) {
    total += chunk.length;
    if (total > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/** A repository's tags read for a range at most (registries page them by 1,000 at most). */
const MAX_TAGS = 20_000;

export class RegistryClient {
  readonly base: string;
  readonly #registry: string;
  #credentials: RegistryCredentials | null | undefined;
  #authorization: string | undefined;
  readonly #chunkSize: number;

  constructor(options: RegistryClientOptions) {
    this.#registry = options.registry;
    const plain = isLoopbackRegistry(options.registry) ||
      (options.insecureHosts ?? []).includes(options.registry);
    this.base = `${plain ? "http" : "https"}://${options.registry}`;
    this.#credentials = options.credentials;
    this.#chunkSize = options.chunkSize ?? 8 * 1024 * 1024;
  }

  async getManifest(repository: string, reference: string): Promise<FetchedManifest> {
    const response = await this.#send(
      repository,
      "pull",
      `/v2/${repository}/manifests/${reference}`,
      {
        headers: { Accept: MANIFEST_ACCEPT },
      },
      `manifest ${repository}:${reference}`,
    );
    const bytes = await readCapped(response, MAX_MANIFEST_BYTES, () =>
      new RegistryError(
        `Cannot trust ${this.#registry}/${repository}:${reference}: its manifest is larger than 4 MiB. Refusing it.`,
      ));
    const digest = await sha256Digest(bytes);
    if (reference.startsWith("sha256:") && digest !== reference) {
      throw new RegistryError(
        `Cannot trust ${this.#registry}/${repository}@${reference}: the registry sent a manifest whose digest is ${digest}. Refusing it; report the registry's fault or use another mirror.`,
      );
    }
    const headerDigest = response.headers.get("docker-content-digest");
    if (headerDigest && headerDigest !== digest) {
      throw new RegistryError(
        `Cannot trust ${this.#registry}/${repository}:${reference}: the registry says its digest is ${headerDigest} but its bytes hash to ${digest}. Refusing it.`,
      );
    }
    const mediaType = response.headers.get("content-type")?.split(";")[0]?.trim() ??
      (JSON.parse(new TextDecoder().decode(bytes)).mediaType as string);
    return { digest, mediaType, bytes };
  }

  async putManifest(
    repository: string,
    reference: string,
    bytes: Uint8Array,
    mediaType: string,
  ): Promise<string> {
    await this.#send(repository, "push", `/v2/${repository}/manifests/${reference}`, {
      method: "PUT",
      headers: { "Content-Type": mediaType },
      body: bytes as Uint8Array<ArrayBuffer>,
    }, `manifest ${repository}:${reference}`);
    return await sha256Digest(bytes);
  }

  /**
   * Pushes a manifest with a `subject` by its digest. `referrers` tells whether the registry
   * indexed it for the referrers API (it answers with `OCI-Subject`, OCI distribution 1.1).
   */
  async putReferrer(
    repository: string,
    bytes: Uint8Array,
    mediaType: string,
  ): Promise<{ digest: string; referrers: boolean }> {
    const digest = await sha256Digest(bytes);
    const response = await this.#send(repository, "push", `/v2/${repository}/manifests/${digest}`, {
      method: "PUT",
      headers: { "Content-Type": mediaType },
      body: bytes as Uint8Array<ArrayBuffer>,
    }, `manifest ${repository}@${digest}`);
    await response.body?.cancel();
    return { digest, referrers: response.headers.get("oci-subject") !== null };
  }

  /**
   * The referrers of a manifest (OCI distribution 1.1), filtered by artifact type; null when
   * the registry has no referrers API (404), so the caller falls back to the tag scheme.
   */
  async getReferrers(
    repository: string,
    digest: string,
    artifactType: string,
  ): Promise<{ digest: string; artifactType?: string }[] | null> {
    const response = await this.#send(
      repository,
      "pull",
      `/v2/${repository}/referrers/${digest}?artifactType=${encodeURIComponent(artifactType)}`,
      { headers: { Accept: "application/vnd.oci.image.index.v1+json" } },
      `referrers of ${digest}`,
      [404],
    );
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    const index = await response.json().catch(() => ({}));
    const manifests = Array.isArray(index?.manifests) ? index.manifests : [];
    return manifests.filter((entry: { digest?: unknown }) =>
      typeof entry?.digest === "string" && /^sha256:[0-9a-f]{64}$/.test(entry.digest)
    );
  }

  /**
   * A repository's tags (`/v2/<repo>/tags/list`), following the registry's `Link` pages; at
   * most `MAX_TAGS` are read, so a registry cannot make a range's resolution run without end.
   */
  async listTags(repository: string): Promise<string[]> {
    const tags: string[] = [];
    let path: string | null = `/v2/${repository}/tags/list?n=1000`;
    for (let page = 0; path !== null && page < 20 && tags.length < MAX_TAGS; page++) {
      const response: Response = await this.#send(repository, "pull", path, {}, "tags", []);
      const body = await response.json().catch(() => ({}));
      if (Array.isArray(body?.tags)) {
        tags.push(...body.tags.filter((t: unknown): t is string => typeof t === "string"));
      }
      const next = /<([^>]+)>;\s*rel="?next"?/.exec(response.headers.get("link") ?? "")?.[1];
      path = next !== undefined && next.startsWith(`/v2/${repository}/tags/list`) ? next : null;
    }
    return tags.slice(0, MAX_TAGS);
  }

  /** A manifest by tag or digest, or null when the registry has none (404). */
  async findManifest(repository: string, reference: string): Promise<FetchedManifest | null> {
    try {
      return await this.getManifest(repository, reference);
    } catch (error) {
      if (error instanceof RegistryError && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * A blob by digest, hashed before it is returned. At most `maxBytes` are read: a registry
   * sending more than the manifest promised is cut off, not buffered.
   */
  async getBlob(
    repository: string,
    digest: string,
    maxBytes = MAX_BLOB_BYTES,
  ): Promise<Uint8Array> {
    const response = await this.#send(
      repository,
      "pull",
      `/v2/${repository}/blobs/${digest}`,
      {},
      `blob ${digest}`,
    );
    const bytes = await readCapped(response, maxBytes, () =>
      new RegistryError(
        `Cannot trust blob ${digest} of ${this.#registry}/${repository}: it is larger than ${maxBytes} bytes. Refusing it.`,
      ));
    const actual = await sha256Digest(bytes);
    if (actual !== digest) {
      throw new RegistryError(
        `Cannot trust blob ${digest} of ${this.#registry}/${repository}: its bytes hash to ${actual}. Refusing it; nothing was installed.`,
      );
    }
    return bytes;
  }

  /**
   * A blob by digest as a stream, for a layer too large to hold: at most `maxBytes` are
   * read. Its bytes are not hashed here: the reader (unpack.ts) hashes them as they pass and
   * uses nothing it read unless they match.
   */
  async openBlob(
    repository: string,
    digest: string,
    maxBytes = MAX_BLOB_BYTES,
  ): Promise<ReadableStream<Uint8Array>> {
    const response = await this.#send(
      repository,
      "pull",
      `/v2/${repository}/blobs/${digest}`,
      {},
      `blob ${digest}`,
    );
    const where = `${this.#registry}/${repository}`;
    let total = 0;
    return (response.body ?? new Blob([]).stream()).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(piece, controller) {
          total += piece.length;
          if (total > maxBytes) {
            throw new RegistryError(
              `Cannot trust blob ${digest} of ${where}: it is larger than ${maxBytes} bytes. Refusing it.`,
            );
          }
          controller.enqueue(piece);
        },
      }),
    );
  }

  async hasBlob(
    repository: string,
    digest: string,
    action: "pull" | "push" = "pull",
  ): Promise<boolean> {
    const response = await this.#send(
      repository,
      action,
      `/v2/${repository}/blobs/${digest}`,
      {
        method: "HEAD",
      },
      `blob ${digest}`,
      [404],
    );
    return response.status === 200;
  }

  /**
   * Pushes a blob unless the repository has it: a cross-repository mount first when a
   * source repository is known (201 = mounted), else one PUT or chunked PATCHes.
   */
  async pushBlob(
    repository: string,
    bytes: Uint8Array,
    options: { mountFrom?: string } = {},
  ): Promise<string> {
    const digest = await sha256Digest(bytes);
    // Ask for push rights from the first request, so one token serves the whole upload.
    if (await this.hasBlob(repository, digest, "push")) return digest;
    const mount = options.mountFrom
      ? `?mount=${encodeURIComponent(digest)}&from=${encodeURIComponent(options.mountFrom)}`
      : "";
    const scope = options.mountFrom
      ? `${repository}:push,pull repository:${options.mountFrom}:pull`
      : undefined;
    const started = await this.#send(
      repository,
      "push",
      `/v2/${repository}/blobs/uploads/${mount}`,
      {
        method: "POST",
        headers: { "Content-Length": "0" },
      },
      `upload of ${digest}`,
      [],
      scope,
    );
    await started.body?.cancel();
    if (started.status === 201) return digest; // mounted
    let location = this.#resolve(started.headers.get("location"));
    if (bytes.length > this.#chunkSize) {
      for (let offset = 0; offset < bytes.length; offset += this.#chunkSize) {
        const chunk = bytes.subarray(offset, Math.min(bytes.length, offset + this.#chunkSize));
        const patched = await this.#send(repository, "push", location, {
          method: "PATCH",
          headers: {
            "Content-Type": "application/octet-stream",
            "Content-Range": `${offset}-${offset + chunk.length - 1}`,
            "Content-Length": String(chunk.length),
          },
          body: chunk as Uint8Array<ArrayBuffer>,
        }, `upload of ${digest}`);
        await patched.body?.cancel();
        location = this.#resolve(patched.headers.get("location"));
      }
      const done = await this.#send(
        repository,
        "push",
        withQuery(location, `digest=${encodeURIComponent(digest)}`),
        {
          method: "PUT",
          headers: { "Content-Length": "0" },
        },
        `upload of ${digest}`,
      );
      await done.body?.cancel();
    } else {
      const done = await this.#send(
        repository,
        "push",
        withQuery(location, `digest=${encodeURIComponent(digest)}`),
        {
          method: "PUT",
          headers: {
            "Content-Type": "application/octet-stream",
            "Content-Length": String(bytes.length),
          },
          body: bytes as Uint8Array<ArrayBuffer>,
        },
        `upload of ${digest}`,
      );
      await done.body?.cancel();
    }
    return digest;
  }

  #resolve(location: string | null): string {
    if (!location) {
      throw new RegistryError(`Cannot upload to ${this.#registry}: it gave no upload location.`);
    }
    const url = new URL(location, this.base);
    if (url.origin !== new URL(this.base).origin) {
      throw new RegistryError(
        `Cannot upload to ${this.#registry}: it redirected the upload to another host (${url.origin}). Refusing to send blobs there.`,
      );
    }
    return url.pathname + url.search;
  }

  async #send(
    repository: string,
    action: "pull" | "push",
    path: string,
    init: RequestInit,
    what: string,
    allowed: number[] = [],
    scope = `${repository}:${action === "push" ? "pull,push" : "pull"}`,
  ): Promise<Response> {
    const request = () => {
      const headers = new Headers(init.headers);
      if (this.#authorization) headers.set("Authorization", this.#authorization);
      return fetch(`${this.base}${path}`, { ...init, headers, redirect: "follow" });
    };
    let response = await this.#fetch(request);
    if (response.status === 401) {
      await response.body?.cancel();
      const challenge = response.headers.get("www-authenticate") ?? "";
      await this.#authenticate(challenge, `repository:${scope}`);
      response = await this.#fetch(request);
    }
    if (response.ok || allowed.includes(response.status)) return response;
    await response.body?.cancel();
    throw new RegistryError(
      this.#explain(response.status, what, repository, action),
      response.status,
    );
  }

  async #fetch(request: () => Promise<Response>): Promise<Response> {
    try {
      return await request();
    } catch (error) {
      throw new RegistryError(
        `Cannot reach registry ${this.#registry} (${this.base}): ${
          (error as Error).message
        }. Check the host name and your network${
          this.base.startsWith("https")
            ? "; a registry on plain HTTP must be on loopback or named with --insecure-registry"
            : ""
        }.`,
      );
    }
  }

  async #authenticate(challenge: string, scope: string): Promise<void> {
    if (this.#credentials === undefined) {
      this.#credentials = (await findCredentials(this.#registry)) ?? null;
    }
    const credentials = this.#credentials;
    const basic = credentials
      ? `Basic ${btoa(`${credentials.username}:${credentials.password}`)}`
      : undefined;
    const scheme = (challenge.split(" ")[0] ?? "").toLowerCase();
    if (scheme === "basic") {
      this.#authorization = basic;
      return;
    }
    if (scheme !== "bearer") return;
    const params = Object.fromEntries(
      [...challenge.slice(7).matchAll(/(\w+)="([^"]*)"/g)].map((
        m,
      ) => [(m[1] ?? "").toLowerCase(), m[2] ?? ""]),
    );
    if (!params.realm) return;
    const realm = new URL(params.realm);
    if (
      realm.protocol !== "https:" && !isLoopbackRegistry(realm.host) &&
      realm.host !== this.#registry
    ) {
      throw new RegistryError(
        `Cannot log in to ${this.#registry}: its token service ${realm.origin} is plain HTTP. Refusing to send credentials there.`,
      );
    }
    if (params.service) realm.searchParams.set("service", params.service);
    realm.searchParams.set("scope", params.scope ?? scope);
    const response = await this.#fetch(() =>
      fetch(realm, { headers: basic ? { Authorization: basic } : {} })
    );
    if (!response.ok) {
      await response.body?.cancel();
      throw new RegistryError(
        this.#explain(response.status, "a token", "", "pull"),
        response.status,
      );
    }
    const body = await response.json();
    const token = body.token ?? body.access_token;
    if (typeof token === "string") this.#authorization = `Bearer ${token}`;
  }

  #explain(status: number, what: string, repository: string, action: string): string {
    const where = repository ? `${this.#registry}/${repository}` : this.#registry;
    switch (status) {
      case 401:
        return `Cannot ${action} ${what} at ${where}: the registry wants credentials (401). Log in with \`docker login ${this.#registry}\` or set SKILLS_OCI_AUTH=user:token.`;
      case 403:
        return `Cannot ${action} ${what} at ${where}: these credentials may not ${action} there (403). Use a token with ${action} rights on ${
          repository || "the repository"
        }.`;
      case 404:
        return `Cannot ${action} ${what} at ${where}: not found (404). Check the repository name and tag.`;
      case 429:
        return `Cannot ${action} ${what} at ${where}: the registry is rate-limiting us (429). Wait and retry, or log in for a higher limit.`;
      default:
        return `Cannot ${action} ${what} at ${where}: the registry answered ${status}. Retry later or check the registry's status.`;
    }
  }
}

function withQuery(location: string, query: string): string {
  return `${location}${location.includes("?") ? "&" : "?"}${query}`;
}
