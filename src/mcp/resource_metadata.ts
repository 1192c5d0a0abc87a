/**
 * What `skills mcp --http` with a token tells a client about authentication (pure). The
 * token is a static bearer secret (`SKILLS_MCP_TOKEN`), not an OAuth access token: there is
 * no authorization server to send anyone to. So the server serves OAuth 2.0 Protected
 * Resource Metadata (RFC 9728) that says exactly that — bearer tokens in the
 * `Authorization` header, and no `authorization_servers` (optional in RFC 9728) — and its
 * 401 points at that document (`WWW-Authenticate: Bearer resource_metadata="…"`, as the MCP
 * authorization spec has a client look for). An OAuth-first client still tries to log in
 * (it then takes the server's origin for an authorization server); every OAuth endpoint it
 * tries answers 404 with the fix: configure the static `Authorization: Bearer <token>`
 * header (README, `skills mcp`).
 */

/** RFC 9728's well-known path; a resource with a path has it appended (`…/mcp`). */
const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

const CONFIGURE_HEADER = "this server takes a static bearer token (SKILLS_MCP_TOKEN), not " +
  "OAuth: configure the client to send the header 'Authorization: Bearer <token>'";

/** The URL of the metadata document for the MCP endpoint `endpoint` (RFC 9728 §3.1). */
function metadataUrl(endpoint: URL): string {
  return `${endpoint.origin}${PROTECTED_RESOURCE_PATH}${endpoint.pathname}`;
}

/** The `WWW-Authenticate` value of a 401 (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(endpoint: URL, given: boolean): string {
  const params = [
    'realm="skills mcp"',
    `resource_metadata="${metadataUrl(endpoint)}"`,
    // A wrong token is invalid_token; a request without one gets no error code (RFC 6750).
    ...(given ? ['error="invalid_token"'] : []),
    `error_description="${CONFIGURE_HEADER.replaceAll('"', "'")}"`,
  ];
  return `Bearer ${params.join(", ")}`;
}

/** The metadata document of the MCP endpoint `endpoint`. */
function protectedResourceMetadata(endpoint: URL): Record<string, unknown> {
  return {
    resource: `${endpoint.origin}${endpoint.pathname}`,
    bearer_methods_supported: ["header"],
    resource_name: "skills mcp",
    // No authorization_servers: no server issues these tokens; the operator hands them out.
  };
}

/**
 * The answer to a `/.well-known/…` request, or undefined for any other path: the metadata
 * for `/mcp` (at the path-appended and at the bare well-known path), and for the OAuth
 * discovery paths a client tries next, a 404 that says how to configure it.
 */
export function wellKnownResponse(url: URL, endpointPath: string): Response | undefined {
  if (!url.pathname.startsWith("/.well-known/")) return undefined;
  const endpoint = new URL(endpointPath, url.origin);
  if (
    url.pathname === PROTECTED_RESOURCE_PATH ||
    url.pathname === `${PROTECTED_RESOURCE_PATH}${endpointPath}`
  ) {
    return Response.json(protectedResourceMetadata(endpoint), {
      headers: { "cache-control": "max-age=3600" },
    });
  }
  return Response.json(
    {
      error: "not_found",
      error_description: `No OAuth authorization server here: ${CONFIGURE_HEADER}`,
    },
    { status: 404 },
  );
}
