import assert from "node:assert/strict";
import {
  isMetadataAddress,
  isPublicAddress,
  parseIp,
  sameAddress,
} from "../../../src/core/policy/ip_ranges.ts";

Deno.test("isPublicAddress(): private, CGNAT, loopback, link-local, metadata, ULA, mapped and NAT64 forms are not public", () => {
  const notPublic = [
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "100.100.100.200", // Alibaba Cloud metadata
    "169.254.169.254", // AWS, GCP, Azure metadata
    "192.0.0.192", // Oracle Cloud metadata
    "127.0.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "::1",
    "::",
    "fd00:ec2::254", // AWS metadata over IPv6
    "fe80::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::127.0.0.1",
    "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
    "2002:c0a8:0101::1", // 6to4 of 192.168.1.1
    "2001::1", // Teredo
    "[::1]",
    "not-an-address",
  ];
  for (const ip of notPublic) assert.equal(isPublicAddress(ip), false, ip);
  const publicOnes = [
    "8.8.8.8",
    "172.32.0.1",
    "93.184.216.34",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
  ];
  for (const ip of publicOnes) assert.equal(isPublicAddress(ip), true, ip);
});

Deno.test("parseIp() reads IPv4 and IPv6 (compressed, embedded IPv4, zone ids) and refuses the rest", () => {
  assert.deepEqual(parseIp("1.2.3.4"), [1, 2, 3, 4]);
  assert.deepEqual(parseIp("::1")?.slice(-2), [0, 1]);
  assert.deepEqual(parseIp("::ffff:1.2.3.4")?.slice(10), [0xff, 0xff, 1, 2, 3, 4]);
  assert.deepEqual(parseIp("fe80::1%eth0")?.slice(0, 2), [0xfe, 0x80]);
  for (const bad of ["1.2.3", "01.2.3.4", "256.1.1.1", "1::2::3", "gggg::1", "example.com"]) {
    assert.equal(parseIp(bad), undefined, bad);
  }
  assert.ok(sameAddress("::ffff:0:1", "::FFFF:0.0.0.1"));
  assert.ok(!sameAddress("127.0.0.1", "::ffff:127.0.0.1"));
});

Deno.test("isMetadataAddress(): link-local and the clouds' metadata endpoints, in any form; not other private ranges", () => {
  for (
    const ip of [
      "169.254.169.254",
      "169.254.0.1",
      "fe80::1",
      "100.100.100.200",
      "192.0.0.192",
      "fd00:ec2::254",
      "::ffff:169.254.169.254",
      "64:ff9b::a9fe:a9fe",
    ]
  ) {
    assert.equal(isMetadataAddress(ip), true, ip);
  }
  for (
    const ip of [
      "10.1.2.3",
      "127.0.0.1",
      "192.168.1.10",
      "172.16.0.1",
      "fd12::1",
      "::1",
      "8.8.8.8",
      "not-an-ip",
    ]
  ) {
    assert.equal(isMetadataAddress(ip), false, ip);
  }
});
