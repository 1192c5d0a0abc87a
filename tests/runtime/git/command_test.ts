import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillError } from "../../../src/core/errors.ts";
import {
  classifyGitFailure,
  cloneArgv,
  fetchCommitArgv,
  gitConfigArgs,
  gitEnv,
  GitError,
  inContext,
  lsRemoteArgv,
} from "../../../src/runtime/git/command.ts";
import { remoteCommit } from "../../../src/runtime/git/fetch.ts";
import { readRemoteRepository } from "../../../src/runtime/git/local_read.ts";
import { tempDir } from "../../helpers/cli.ts";
import { createRepo, skillFiles } from "../../fixtures/git_repos.ts";
import { startGitHttpsServer } from "../../fixtures/git_https_server.ts";
import { GIT_ENV, QUICK_FETCH, readInPlace } from "../../helpers/git_read.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

Deno.test("cloneArgv() disables hooks and submodules and puts -- before the URL", () => {
  const argv = cloneArgv("https", "https://h/o/r.git", "/tmp/dest", { branch: "v1" });
  const dash = argv.indexOf("--");
  assert.deepEqual(argv.slice(dash), ["--", "https://h/o/r.git", "/tmp/dest"]);
  assert.ok(argv.indexOf("--branch") < dash && argv[argv.indexOf("--branch") + 1] === "v1");
  for (
    const c of ["core.hooksPath=/dev/null", "protocol.ext.allow=never", "submodule.recurse=false"]
  ) {
    assert.ok(argv.includes(c), c);
  }
  assert.ok(argv.includes("--no-recurse-submodules"));
  assert.ok(argv.includes("--depth") && argv.includes("--no-tags"));
  assert.ok(argv.includes("protocol.file.allow=never"));
  const full = cloneArgv("file", "file:///r.git", "/d", { shallow: false, checkout: false });
  assert.ok(!full.includes("--depth") && full.includes("--no-checkout"));
  assert.ok(full.includes("protocol.file.allow=always"));
  // Blobs of at least limit bytes stay on the server: the limit is one byte over the cap.
  for (const args of [argv, full, fetchCommitArgv("https", "https://h/o/r.git", "a".repeat(40))]) {
    const at = args.indexOf("--filter=blob:limit=104857601");
    assert.ok(at !== -1 && at < args.indexOf("--"), args.join(" "));
  }
});

Deno.test("fetchCommitArgv() and lsRemoteArgv() pass user values only after --", () => {
  const sha = "a".repeat(40);
  const fetch = fetchCommitArgv("ssh", "git@h:o/r.git", sha);
  assert.deepEqual(fetch.slice(fetch.indexOf("--")), ["--", "git@h:o/r.git", sha]);
  const ls = lsRemoteArgv("git", "git://h/r.git", ["refs/heads/main"]);
  assert.deepEqual(ls.slice(ls.indexOf("--")), ["--", "git://h/r.git", "refs/heads/main"]);
  assert.equal(gitConfigArgs("https").length % 2, 0);
});

Deno.test("gitEnv() disables prompts and system config, allows only the source's transports", () => {
  const env = gitEnv({
    PATH: "/bin",
    HOME: "/h",
    GIT_DIR: "/evil",
    GIT_WORK_TREE: "/evil",
    GIT_CONFIG_PARAMETERS: "'core.hooksPath'='/evil'",
    GIT_TEMPLATE_DIR: "/evil",
    GIT_ASKPASS: "/evil",
    GIT_SSH_COMMAND: "ssh -i key",
    LC_ALL: "de_DE.UTF-8",
    HTTPS_PROXY: "http://proxy:3128",
  }, "https");
  assert.equal(env.GIT_TERMINAL_PROMPT, "0");
  assert.equal(env.GIT_CONFIG_NOSYSTEM, "1");
  assert.equal(env.GIT_ALLOW_PROTOCOL, "https:ssh:git");
  assert.equal(env.LC_ALL, "C");
  assert.equal(env.GIT_NO_REPLACE_OBJECTS, "1");
  for (
    const dropped of [
      "GIT_DIR",
      "GIT_WORK_TREE",
      "GIT_CONFIG_PARAMETERS",
      "GIT_TEMPLATE_DIR",
      "GIT_ASKPASS",
    ]
  ) {
    assert.equal(env[dropped], undefined, dropped);
  }
  assert.equal(env.GIT_SSH_COMMAND, "ssh -i key");
  assert.equal(env.HTTPS_PROXY, "http://proxy:3128");
  assert.equal(gitEnv({}, "file").GIT_ALLOW_PROTOCOL, "file");
  assert.equal(gitEnv({}, "ssh").GIT_SSH_COMMAND, "ssh -o BatchMode=yes");
});

Deno.test("classifyGitFailure() sorts git's complaints", () => {
  const table: [string, string][] = [
    ["fatal: could not read Username for 'https://github.com': terminal prompts disabled", "auth"],
    [
      "remote: Invalid username or password.\nfatal: Authentication failed for 'https://x/'",
      "auth",
    ],
    [
      "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
      "auth",
    ],
    ["fatal: unable to access 'https://x/': The requested URL returned error: 403", "auth"],
    [
      "remote: Repository not found.\nfatal: repository 'https://github.com/a/b.git/' not found",
      "not_found",
    ],
    ["fatal: '/tmp/nope' does not appear to be a git repository", "not_found"],
    ["fatal: Remote branch nope not found in upstream origin", "ref_not_found"],
    ["fatal: couldn't find remote ref refs/heads/nope", "ref_not_found"],
    ["fatal: unable to access 'https://x/': Could not resolve host: x", "network"],
    [
      "fatal: unable to access 'https://127.0.0.1:1/': Failed to connect to 127.0.0.1 port 1",
      "network",
    ],
    ["fatal: unable to access 'https://x/': The requested URL returned error: 503", "network"],
    ["error: RPC failed; curl 56 GnuTLS recv error\nfatal: early EOF", "network"],
    ["fatal: something else entirely", "other"],
  ];
  for (const [stderr, kind] of table) assert.equal(classifyGitFailure(stderr), kind, stderr);
});

async function fixture(root: string) {
  const repo = await createRepo(root, "skills-repo", skillFiles("alpha"));
  const first = await repo.head();
  await repo.tag("v1", "release 1"); // annotated
  const second = await repo.commit({ "extra.md": "two\n" }, "second");
  await repo.tag("v2");
  await repo.checkout("dev", true);
  const dev = await repo.commit({ "dev.md": "dev\n" }, "on dev");
  await repo.checkout("main");
  return { repo, first, second, dev };
}

type Fetcher = typeof readRemoteRepository;
/** Both ways of fetching: a clone (any transport) and the direct read of a local repo. */
const FETCHERS: [string, Fetcher][] = [["clone", readRemoteRepository], [
  "local read",
  readInPlace,
]];

for (const [label, fetcher] of FETCHERS) {
  Deno.test(`${label}: the default branch, a branch and tags resolve like git clone --branch`, {
    ignore: SKIP_SLOW && label === "clone", // four clones; the local read runs the same cases
  }, async () => {
    await using tmp = await tempDir();
    const { repo, first, second, dev } = await fixture(tmp.path);
    const fetch = (request: Parameters<Fetcher>[2], name: string) =>
      fetcher(repo.url, "file", request, join(tmp.path, name), QUICK_FETCH);

    assert.deepEqual(await fetch({ kind: "default" }, "d"), {
      sha: second,
      branch: "main",
      tag: null,
      ref: null,
    });
    assert.equal(await Deno.readTextFile(join(tmp.path, "d", "extra.md")), "two\n");
    if (label === "clone") {
      assert.ok(await Deno.stat(join(tmp.path, "d", ".git", "shallow")), "shallow clone");
    } else {
      assert.equal(await Deno.lstat(join(tmp.path, "d", ".git")).catch(() => null), null);
    }
    assert.deepEqual(await fetch({ kind: "branch", name: "dev" }, "b"), {
      sha: dev,
      branch: "dev",
      tag: null,
      ref: null,
    });
    assert.equal(await Deno.readTextFile(join(tmp.path, "b", "dev.md")), "dev\n");
    assert.deepEqual(await fetch({ kind: "tag", name: "v1" }, "t1"), {
      sha: first,
      branch: null,
      tag: "v1",
      ref: null,
    });
    assert.equal(await Deno.readTextFile(join(tmp.path, "t1", "extra.md")).catch(() => null), null);
    assert.deepEqual(await fetch({ kind: "ref", name: "v2" }, "t2"), {
      sha: second,
      branch: null,
      tag: "v2",
      ref: "v2",
    });
    assert.deepEqual(await fetch({ kind: "ref", name: "dev" }, "r"), {
      sha: dev,
      branch: "dev",
      tag: null,
      ref: "dev",
    });
  });

  Deno.test(`${label}: a full commit SHA exactly, an abbreviated one resolved`, {
    ignore: SKIP_SLOW && label === "clone",
  }, async () => {
    await using tmp = await tempDir();
    const { repo, first } = await fixture(tmp.path);
    const full = await fetcher(
      repo.url,
      "file",
      { kind: "ref", name: first.toUpperCase() },
      join(tmp.path, "full"),
      QUICK_FETCH,
    );
    assert.deepEqual(full, { sha: first, branch: null, tag: null, ref: first.toUpperCase() });
    if (label === "clone") {
      // Exactly that commit, shallow: one commit in the history.
      const log = await new Deno.Command("git", {
        args: ["-C", join(tmp.path, "full"), "rev-list", "--count", first],
      }).output();
      assert.equal(new TextDecoder().decode(log.stdout).trim(), "1");
    }
    assert.equal(
      await Deno.readTextFile(join(tmp.path, "full", "extra.md")).catch(() => null),
      null,
    );

    const abbrev = first.slice(0, 8);
    const short = await fetcher(
      repo.url,
      "file",
      { kind: "ref", name: abbrev },
      join(tmp.path, "abbrev"),
      QUICK_FETCH,
    );
    assert.deepEqual(short, { sha: first, branch: null, tag: null, ref: abbrev });
    assert.ok(await Deno.stat(join(tmp.path, "abbrev", "SKILL.md")));
  });

  Deno.test(`${label}: a missing branch, commit or repository is reported by name`, {
    ignore: SKIP_SLOW && label === "clone",
  }, async () => {
    await using tmp = await tempDir();
    const { repo } = await fixture(tmp.path);
    const fetch = (url: string, request: Parameters<Fetcher>[2], name: string) =>
      fetcher(url, "file", request, join(tmp.path, name), QUICK_FETCH);
    await assert.rejects(
      () => fetch(repo.url, { kind: "branch", name: "nope" }, "x"),
      (e: unknown) => e instanceof GitError && /^branch 'nope' not found$/.test(e.message),
    );
    await assert.rejects(
      () => fetch(repo.url, { kind: "ref", name: "deadbeef" }, "y"),
      (e: unknown) => e instanceof GitError && /'deadbeef' not found/.test(e.message),
    );
    await assert.rejects(
      () => fetch(`file://${tmp.path}/missing.git`, { kind: "default" }, "z"),
      (e: unknown) => e instanceof GitError && e.kind === "not_found",
    );
  });
}

Deno.test("remoteCommit() reads a branch head and a peeled annotated tag without cloning", async () => {
  await using tmp = await tempDir();
  const { repo, first, dev } = await fixture(tmp.path);
  assert.equal(
    await remoteCommit(repo.url, "file", { kind: "branch", name: "dev" }, QUICK_FETCH),
    dev,
  );
  assert.equal(
    await remoteCommit(repo.url, "file", { kind: "tag", name: "v1" }, QUICK_FETCH),
    first,
  );
  assert.equal(
    await remoteCommit(repo.url, "file", { kind: "branch", name: "gone" }, QUICK_FETCH),
    null,
  );
});

async function httpsFixture(tmp: string, policy: Parameters<typeof startGitHttpsServer>[2]) {
  const root = join(tmp, "srv");
  await Deno.mkdir(root);
  const repo = await createRepo(root, "repo", skillFiles("alpha"));
  const server = await startGitHttpsServer(root, tmp, policy);
  const env = { ...GIT_ENV, GIT_SSL_CAINFO: server.caFile };
  return { repo, server, env, url: `${server.origin}/repo.git` };
}

Deno.test("readRemoteRepository() over https retries 5xx network errors with backoff, then succeeds", async () => {
  await using tmp = await tempDir();
  const { repo, server, env, url } = await httpsFixture(
    tmp.path,
    (i) => (i < 2 ? new Response("busy", { status: 503 }) : undefined),
  );
  try {
    const retries: number[] = [];
    const got = await readRemoteRepository(url, "https", { kind: "default" }, join(tmp.path, "c"), {
      env,
      backoffMs: 10,
      onRetry: (attempt, delay) => retries.push(attempt, delay),
    });
    assert.equal(got.sha, await repo.head());
    assert.deepEqual(retries, [2, 10, 3, 20]); // exponential: 10 ms, then 20 ms
    assert.ok(await Deno.stat(join(tmp.path, "c", "SKILL.md")));
  } finally {
    await server.close();
  }
});

Deno.test("readRemoteRepository() turns 401 into 'Repository requires authentication' without retrying", async () => {
  await using tmp = await tempDir();
  const { server, env, url } = await httpsFixture(
    tmp.path,
    () => new Response("no", { status: 401, headers: { "WWW-Authenticate": 'Basic realm="x"' } }),
  );
  try {
    await assert.rejects(
      () =>
        readRemoteRepository(url, "https", { kind: "default" }, join(tmp.path, "c"), {
          env,
          backoffMs: 10,
        }),
      (e: unknown) => {
        assert.ok(e instanceof GitError);
        assert.equal(e.kind, "auth");
        assert.match(e.message, /^Repository requires authentication: https:\/\/127\.0\.0\.1/);
        assert.match(e.hint ?? "", /credential\.helper/);
        return true;
      },
    );
    assert.equal(server.requests.length, 1, "auth failures are not retried");
  } finally {
    await server.close();
  }
});

Deno.test("readRemoteRepository() gives up after 3 attempts when the host refuses connections", async () => {
  await using tmp = await tempDir();
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there now
  const attempts: number[] = [];
  await assert.rejects(
    () =>
      readRemoteRepository(
        `https://127.0.0.1:${port}/r.git`,
        "https",
        { kind: "default" },
        join(tmp.path, "c"),
        { env: GIT_ENV, backoffMs: 5, onRetry: (a) => attempts.push(a) },
      ),
    (e: unknown) => e instanceof GitError && e.kind === "network",
  );
  assert.deepEqual(attempts, [2, 3]);
});

Deno.test("a git command that hangs is killed at the timeout and reported as timeout", async () => {
  await using tmp = await tempDir();
  const { server, env, url } = await httpsFixture(tmp.path, () => "hang");
  try {
    const started = Date.now();
    await assert.rejects(
      () =>
        readRemoteRepository(url, "https", { kind: "default" }, join(tmp.path, "c"), {
          env,
          timeoutMs: 800,
        }),
      (e: unknown) => {
        assert.ok(e instanceof SkillError);
        assert.equal(e.code, "timeout");
        assert.equal(e.exitCode, 124);
        assert.match(e.message, /^git clone timed out after 0\.8s$/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 10_000);
  } finally {
    await server.close();
  }
});

Deno.test("aborting the signal stops git at once", async () => {
  await using tmp = await tempDir();
  const { server, env, url } = await httpsFixture(tmp.path, () => "hang");
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new SkillError("cancelled", "Interrupted")), 300);
    await assert.rejects(
      () =>
        readRemoteRepository(url, "https", { kind: "default" }, join(tmp.path, "c"), {
          env,
          signal: controller.signal,
        }),
      (e: unknown) => e instanceof SkillError && e.code === "cancelled",
    );
  } finally {
    await server.close();
  }
});

Deno.test("inContext() prefixes git failures and timeouts, but leaves auth failures alone", () => {
  const net = new GitError("network", "git clone failed: Could not resolve host: x", "Check");
  const wrapped = inContext("Cannot install from https://x/r.git", net) as GitError;
  assert.equal(
    wrapped.message,
    "Cannot install from https://x/r.git: git clone failed: Could not resolve host: x",
  );
  assert.equal(wrapped.kind, "network");
  assert.equal(wrapped.hint, "Check");
  const timeout = new SkillError("timeout", "git clone timed out after 60s", { exitCode: 124 });
  const t = inContext("Cannot install from u", timeout) as SkillError;
  assert.deepEqual([t.code, t.exitCode, t.message], [
    "timeout",
    124,
    "Cannot install from u: git clone timed out after 60s",
  ]);
  const auth = new GitError("auth", "Repository requires authentication: u");
  assert.equal(inContext("Cannot install from u", auth), auth);
  const other = new SkillError("invalid_manifest", "bad");
  assert.equal(inContext("x", other), other);
});
