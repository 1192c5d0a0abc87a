import assert from "node:assert/strict";
import {
  allowsNetwork,
  describeNetPolicy,
  formatNetGrant,
  grantFor,
  mergeNetPolicies,
  namesNonPublicAddress,
  NO_NETWORK,
  parseNetGrant,
  parseNetGrants,
} from "../../../src/core/policy/net_grants.ts";
import { parseSkillMd } from "../../../src/core/manifest/manifest.ts";

Deno.test("parseNetGrant() reads host, host:port, *.domain, IPv4 and [IPv6]", () => {
  const cases: [string, unknown][] = [
    ["API.Example.com", { host: "api.example.com" }],
    ["api.example.com:443", { host: "api.example.com", port: 443 }],
    ["*.example.com", { host: "*.example.com" }],
    ["127.0.0.1:8080", { host: "127.0.0.1", port: 8080 }],
    ["[::1]:8080", { host: "::1", port: 8080 }],
    ["[2001:db8::1]", { host: "2001:db8::1" }],
    ["localhost", { host: "localhost" }],
  ];
  for (const [text, expected] of cases) assert.deepEqual(parseNetGrant(text), expected, text);
  for (const grant of [{ host: "::1", port: 8080 }, { host: "a.b" }, { host: "a.b", port: 1 }]) {
    assert.deepEqual(parseNetGrant(formatNetGrant(grant)), grant);
  }
});

Deno.test("parseNetGrant() refuses what is not host[:port]", () => {
  for (
    const bad of [
      "",
      "http://x",
      "a b",
      "host:0",
      "host:65536",
      "host:",
      "::1",
      "[::1",
      "*",
      "*.com",
      "-bad.example",
      "a/b",
      "x:80:90",
    ]
  ) {
    assert.ok("error" in parseNetGrant(bad), bad);
  }
  const { grants, errors } = parseNetGrants([
    "a.example,b.example:1",
    "",
    " c.example ",
    "bad host",
  ]);
  assert.deepEqual(grants.map(formatNetGrant), ["a.example", "b.example:1", "c.example"]);
  assert.equal(errors.length, 1);
});

Deno.test("grantFor() matches host, port and wildcard; `any` never counts as naming an address", () => {
  const policy = {
    any: false,
    grants: [
      { host: "api.example.com", port: 443 },
      { host: "*.cdn.example" },
      { host: "127.0.0.1", port: 8080 },
    ],
  };
  assert.deepEqual(grantFor(policy, "API.example.com.", 443), { literal: false, byUser: false });
  assert.equal(grantFor(policy, "api.example.com", 80), undefined);
  assert.deepEqual(grantFor(policy, "img.cdn.example", 8443), { literal: false, byUser: false });
  assert.equal(
    grantFor(policy, "cdn.example", 443),
    undefined,
    "the bare domain is not a subdomain",
  );
  assert.equal(grantFor(policy, "evilcdn.example", 443), undefined);
  assert.deepEqual(grantFor(policy, "127.0.0.1", 8080), { literal: true, byUser: false });
  assert.equal(grantFor(policy, "127.0.0.1", 8081), undefined);
  assert.equal(grantFor(NO_NETWORK, "api.example.com", 443), undefined);
  const any = { any: true, grants: [] };
  assert.deepEqual(grantFor(any, "127.0.0.1", 22), { literal: false, byUser: false });
  assert.deepEqual(grantFor(mergeNetPolicies(any, policy), "127.0.0.1", 8080), {
    literal: true,
    byUser: false,
  });
  assert.equal(allowsNetwork(NO_NETWORK), false);
  // The user's grant of a name wins over the skill's for the same host.
  const user = { any: false, grants: [{ host: "registry.corp", port: 443, byUser: true }] };
  const skill = { any: false, grants: [{ host: "registry.corp" }] };
  assert.deepEqual(grantFor(mergeNetPolicies(skill, user), "registry.corp", 443), {
    literal: false,
    byUser: true,
  });
  assert.deepEqual(grantFor(skill, "registry.corp", 443), { literal: false, byUser: false });
  assert.equal(
    describeNetPolicy(mergeNetPolicies(any, policy)),
    "any public host, api.example.com:443, *.cdn.example, 127.0.0.1:8080",
  );
});

Deno.test("namesNonPublicAddress(): localhost and non-public literals, never a DNS name", () => {
  for (
    const text of ["localhost", "127.0.0.1:8080", "169.254.169.254", "10.0.0.5", "[fd00:ec2::254]"]
  ) {
    const grant = parseNetGrant(text);
    assert.ok(!("error" in grant) && namesNonPublicAddress(grant), text);
  }
  for (const text of ["api.example.com", "8.8.8.8:53", "*.example.com", "[2606:4700::1111]"]) {
    const grant = parseNetGrant(text);
    assert.ok(!("error" in grant) && !namesNonPublicAddress(grant), text);
  }
});

Deno.test("permissions.network in SKILL.md: true, a host list, or an error", async () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const manifest = (network: string) =>
    parseSkillMd(
      encode(`---\nname: n\ndescription: d\npermissions:\n  network: ${network}\n---\nbody\n`),
      "SKILL.md",
    );
  assert.deepEqual((await manifest("true")).manifest?.network, { any: true, grants: [] });
  assert.equal((await manifest("false")).manifest?.network, undefined);
  assert.deepEqual((await manifest("[api.example.com:443, '*.cdn.example']")).manifest?.network, {
    any: false,
    grants: [{ host: "api.example.com", port: 443 }, { host: "*.cdn.example" }],
  });
  // A URL means its host and port (NVIDIA's aiq-research declares `http://localhost:8000`):
  // read so, with a warning saying how a host is written.
  const url = await manifest("['http://localhost:8000/v1', 'https://api.example.com/x']");
  assert.deepEqual(url.manifest?.network, {
    any: false,
    grants: [{ host: "localhost", port: 8000 }, { host: "api.example.com", port: 443 }],
  });
  assert.deepEqual(url.diagnostics.map((d) => [d.level, d.message]), [
    [
      "warning",
      "'permissions.network' entry 'http://localhost:8000/v1' is a URL: read as localhost:8000 (a host is written host[:port])",
    ],
    [
      "warning",
      "'permissions.network' entry 'https://api.example.com/x' is a URL: read as api.example.com:443 (a host is written host[:port])",
    ],
  ]);
  // One whose scheme names no port is still an error, which says what to write.
  const bad = await manifest("[ftp://x]");
  assert.equal(bad.manifest, undefined);
  assert.match(
    bad.diagnostics[0]!.message,
    /'permissions.network' entry 'ftp:\/\/x' is a URL: write its host as host\[:port\]/,
  );
  assert.equal((await manifest("yes please")).manifest, undefined);
  const none = await parseSkillMd(encode("---\nname: n\ndescription: d\n---\n"), "SKILL.md");
  assert.equal(none.manifest?.network, undefined);
  assert.deepEqual(none.diagnostics, []);
});
