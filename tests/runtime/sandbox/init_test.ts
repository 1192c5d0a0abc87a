import assert from "node:assert/strict";
import { initCommand, perlInit } from "../../../src/runtime/sandbox/sandbox_init.ts";

const LIMITS = { processes: 256, memoryBytes: 4096, cpuSeconds: -1, fileSizeBytes: 1024 };
const TOOLS = {
  prlimit: "/usr/bin/prlimit",
  setpriv: "/usr/bin/setpriv",
  python: "/usr/bin/python3",
};

/** prlimit with LIMITS, up to the launcher. */
const PRLIMIT = [
  "/usr/bin/prlimit",
  "--nproc=256:256",
  "--as=4096:4096",
  "--cpu=unlimited:unlimited",
  "--fsize=1024:1024",
  "--core=0:0",
  "--",
];
/** setpriv becoming uid 2000000007, up to what it runs. */
const DROP = [
  "/usr/bin/setpriv",
  "--reuid=2000000007",
  "--regid=2000000007",
  "--clear-groups",
  "--inh-caps=-all",
  "--",
];

Deno.test("initCommand(): prlimit (after setpriv as root) when no proxy relay is needed", () => {
  assert.deepEqual(
    initCommand({ limits: LIMITS, command: ["/x/python3", "s.py"] }, TOOLS),
    [...PRLIMIT, "/x/python3", "s.py"],
  );
  const root = initCommand({ limits: LIMITS, uid: 2000000007, command: ["/x/python3"] }, TOOLS);
  assert.deepEqual(root, [...DROP, ...PRLIMIT, "/x/python3"]);
});

Deno.test("initCommand(): the Python helper for the proxy relay, or without util-linux", () => {
  const bridge = { port: 3128, socket: "/tmp/skills-net-1/proxy.sock" };
  for (
    const [request, tools] of [
      [{ limits: LIMITS, bridge, command: ["/x/uv", "run"] }, TOOLS],
      [{ limits: LIMITS, command: ["/x/uv", "run"] }, { python: "/usr/bin/python3" }],
      [{ limits: LIMITS, uid: 5, command: ["/x/uv", "run"] }, { ...TOOLS, setpriv: undefined }],
    ] as const
  ) {
    const argv = initCommand(request, tools);
    assert.deepEqual(argv.slice(0, 5), ["/usr/bin/python3", "-I", "-S", "-B", "-c"]);
    assert.deepEqual(argv.slice(-2), ["/x/uv", "run"]);
    const config = JSON.parse(argv[6]!);
    assert.deepEqual(config.limits, { processes: 256, memory: 4096, cpu: -1, file_size: 1024 });
    assert.equal(config.bridge?.port, "bridge" in request ? 3128 : undefined);
  }
});

Deno.test("initCommand(): a root CLI's idmapped workspace needs init.py, which enters it as the uid", () => {
  const idmap = [{ path: "/w", pins: ["/w/.git"] }];
  const request = { limits: LIMITS, uid: 2000000007, cwd: "/w", idmap, command: ["/x/python3"] };
  const python = initCommand(request, TOOLS);
  assert.equal(python[0], "/usr/bin/python3", "never the util-linux form, prlimit or not");
  const config = JSON.parse(python[6]!);
  assert.equal(config.cwd, "/w");
  assert.deepEqual(config.idmap, idmap);
  assert.equal(config.uid, 2000000007);
});

const PERL = { path: "/usr/bin/perl", syscalls: "272,116,119,117,126,157,302,165,166" };

Deno.test("initCommand(): with Perl, idmap.pl maps the folders, then limits, uid and cwd itself", () => {
  const idmap = [{ path: "/w", pins: ["/w/.git", "/w/sub/.git"] }, { path: "/g", pins: [] }];
  const request = { limits: LIMITS, uid: 2000000007, cwd: "/w", idmap, command: ["/x/python3"] };
  const argv = initCommand(request, { ...TOOLS, perl: PERL });
  assert.deepEqual(argv.slice(0, 3), ["/usr/bin/perl", "-f", "-e"]);
  assert.match(argv[3]!, /MOUNT_ATTR_IDMAP/, "the embedded idmap.pl");
  const split = argv.indexOf("--");
  assert.deepEqual(argv.slice(4, split), [
    "272,116,119,117,126,157,302,165,166",
    "/w",
    "/w/.git",
    "/w/sub/.git",
    "/g",
  ], "each folder then its pins, as init.py maps them");
  assert.deepEqual(
    argv.slice(split + 1),
    ["2000000007", "256", "4096", "unlimited", "1024", "/w", "/x/python3"],
    "uid, processes, address space, CPU seconds, file size, cwd: no setpriv, env or prlimit",
  );
  // No util-linux needed; no working directory in the workspace: an empty one (stays).
  const bare = initCommand({ ...request, cwd: undefined }, { perl: PERL });
  assert.equal(bare[0], "/usr/bin/perl");
  assert.deepEqual(bare.slice(-2), ["", "/x/python3"]);
  // A proxy relay still needs the Python helper, Perl or not.
  const bridge = { port: 3128, socket: "/tmp/skills-net-1/proxy.sock" };
  const relayed = initCommand({ ...request, bridge }, { ...TOOLS, perl: PERL });
  assert.equal(relayed[0], "/usr/bin/python3");
});

Deno.test("perlInit(): only a system Perl, a known architecture and no PERL* variable", () => {
  const clean = { PATH: "/usr/bin", HOME: "/root" };
  assert.deepEqual(perlInit("/usr/bin/perl", "x86_64", clean), PERL);
  assert.equal(
    perlInit("/usr/bin/perl", "aarch64", clean)?.syscalls,
    "97,159,149,147,91,167,261,40,39",
  );
  assert.equal(perlInit(undefined, "x86_64", clean), undefined);
  assert.equal(perlInit("/usr/bin/perl", "riscv64", clean), undefined);
  assert.equal(perlInit("/usr/bin/perl", "x86", clean), undefined);
  for (const name of ["PERL5OPT", "PERL5LIB", "PERLLIB", "perl5db", "PERL_UNICODE"]) {
    assert.equal(
      perlInit("/usr/bin/perl", "x86_64", { ...clean, [name]: "-Mx" }),
      undefined,
      `${name}: Perl reads it before idmap.pl runs`,
    );
  }
});
