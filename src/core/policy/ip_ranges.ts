/**
 * Which addresses are public: the only ones "any public host" (`permissions.network: true`) or a
 * grant by DNS name may reach. Everything else — loopback, private (RFC 1918), carrier-grade
 * NAT, link-local and the cloud metadata endpoints on it, unique-local IPv6, multicast,
 * reserved and documentation ranges, and the IPv6 forms that carry an IPv4 address
 * (v4-mapped, v4-compatible, NAT64, 6to4) when the address they carry is not public — is
 * reached only through a grant naming that exact address. Pure: parsing and ranges only.
 */

/** An address as bytes: 4 for IPv4, 16 for IPv6; undefined when it is not an address. */
export function parseIp(text: string): number[] | undefined {
  const host = text.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "").toLowerCase();
  if (host.includes(":")) return parseIpv6(host);
  return parseIpv4(host);
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) => /^(0|[1-9]\d{0,2})$/.test(part) ? Number(part) : NaN);
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined;
}

function parseIpv6(text: string): number[] | undefined {
  let head = text;
  let tail4: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail4 = v4;
    head = text.slice(0, lastColon + 1) + "0:0"; // two groups' room, filled below
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string) => part === "" ? [] : part.split(":");
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...right];
  if (all.length !== 8 || !all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail4.length === 4) bytes.splice(12, 4, ...tail4);
  return bytes;
}

/** Whether `bytes` start with the first `bits` bits of `prefix`. */
function inRange(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = Math.floor(i / 8);
    const mask = 0x80 >> (i % 8);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

const V4_NOT_PUBLIC: readonly [number[], number][] = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT (Alibaba's metadata, 100.100.100.200, too)
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local: cloud metadata (169.254.169.254)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments (Oracle's metadata, 192.0.0.192)
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, and the broadcast address
];

const V6_NOT_PUBLIC: readonly [number[], number][] = [
  [[], 127], // :: and ::1
  [[0xfc], 7], // unique local (AWS's metadata, fd00:ec2::254, too)
  [[0xfe, 0x80], 10], // link-local
  [[0xfe, 0xc0], 10], // site-local (deprecated)
  [[0xff], 8], // multicast
  [[0x01, 0x00], 64], // discard-only
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x20, 0x01, 0x00, 0x00], 32], // Teredo: an address that tunnels anywhere
];

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(bytes: readonly number[]): number[] | undefined {
  const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
  if (inRange(bytes, mapped, 96)) return bytes.slice(12);
  if (inRange(bytes, [], 96)) return bytes.slice(12); // ::a.b.c.d (deprecated "compatible")
  if (inRange(bytes, [0, 0x64, 0xff, 0x9b], 96)) return bytes.slice(12); // NAT64, well-known
  if (inRange(bytes, [0, 0x64, 0xff, 0x9b, 0, 1], 48)) return bytes.slice(12); // local NAT64
  if (inRange(bytes, [0x20, 0x02], 16)) return bytes.slice(2, 6); // 6to4
  return undefined;
}

/** Whether an address (text) is public; anything that is not an address is not public. */
export function isPublicAddress(text: string): boolean {
  const bytes = parseIp(text);
  if (bytes === undefined) return false;
  if (bytes.length === 4) return !V4_NOT_PUBLIC.some(([p, bits]) => inRange(bytes, p, bits));
  const v4 = embeddedIpv4(bytes);
  if (v4 !== undefined && !inRange(bytes, [], 127)) {
    return !V4_NOT_PUBLIC.some(([p, bits]) => inRange(v4, p, bits));
  }
  return !V6_NOT_PUBLIC.some(([p, bits]) => inRange(bytes, p, bits));
}

/** Whether two address texts are the same address (`::ffff:127.0.0.1` is not `127.0.0.1`). */
export function sameAddress(a: string, b: string): boolean {
  const x = parseIp(a);
  const y = parseIp(b);
  return x !== undefined && y !== undefined && x.length === y.length &&
    x.every((byte, i) => byte === y[i]);
}

/** The cloud metadata endpoints outside link-local (Alibaba's, Oracle's, AWS's IPv6). */
const METADATA = ["100.100.100.200", "192.0.0.192", "fd00:ec2::254"];

/**
 * Whether an address is link-local (169.254.0.0/16, fe80::/10: where cloud metadata answers
 * with the machine's credentials) or another cloud's metadata endpoint: a name never reaches
 * one, not even one the user granted (a skill could have the user grant a name of its own that
 * resolves there); only a grant naming the address does.
 */
export function isMetadataAddress(text: string): boolean {
  const bytes = parseIp(text);
  if (bytes === undefined) return false;
  if (METADATA.some((address) => sameAddress(address, text))) return true;
  const v4 = bytes.length === 4 ? bytes : embeddedIpv4(bytes);
  if (v4 !== undefined && !inRange(bytes, [], 127)) {
    return inRange(v4, [169, 254], 16) ||
      METADATA.some((address) => sameAddress(address, v4.join(".")));
  }
  return inRange(bytes, [0xfe, 0x80], 10);
}
