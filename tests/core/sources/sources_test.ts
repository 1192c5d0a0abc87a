import assert from "node:assert/strict";
import { SkillError } from "../../../src/core/errors.ts";
import {
  isFullSha,
  looksLikeSha,
  type ParsedSource,
  parseSkillSelector,
  parseSource,
  refRequest,
  splitBrowserPath,
  validateRef,
} from "../../../src/core/sources/sources.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";

const accepted: [string, Partial<ParsedSource>][] = [
  ["owner/repo", {
    type: "git",
    url: "https://github.com/owner/repo.git",
    transport: "https",
    subpath: "",
    skill: undefined,
    ref: undefined,
  }],
  ["owner/repo.git", { url: "https://github.com/owner/repo.git" }],
  ["anthropics/skills/skills/pdf", {
    url: "https://github.com/anthropics/skills.git",
    subpath: "skills/pdf",
  }],
  ["owner/repo@My_Skill", { url: "https://github.com/owner/repo.git", skill: "my-skill" }],
  ["owner/repo#v1.2.0", { url: "https://github.com/owner/repo.git", ref: "v1.2.0" }],
  ["owner/repo@pdf#main", { skill: "pdf", ref: "main" }],
  [`owner/repo/sub/dir#${SHA}`, { subpath: "sub/dir", ref: SHA }],
  ["owner/repo#abc1234", { ref: "abc1234" }],
  ["owner/repo#feature/x", { ref: "feature/x" }],
  ["https://gitlab.com/group/sub/repo.git", {
    url: "https://gitlab.com/group/sub/repo.git",
    transport: "https",
  }],
  ["https://gitlab.com/group/repo.git#release", { ref: "release" }],
  ["https://github.com/owner/repo", { url: "https://github.com/owner/repo.git" }],
  ["https://github.com/owner/repo/tree/main/skills/pdf", {
    url: "https://github.com/owner/repo.git",
    ref: "main",
    subpath: "skills/pdf",
  }],
  ["ssh://git@example.com:2222/owner/repo.git", {
    url: "ssh://git@example.com:2222/owner/repo.git",
    transport: "ssh",
  }],
  ["git://example.com/owner/repo.git", { transport: "git" }],
  ["git@github.com:owner/repo.git", { url: "git@github.com:owner/repo.git", transport: "ssh" }],
  ["git@github.com:owner/repo.git#v2", {
    url: "git@github.com:owner/repo.git",
    transport: "ssh",
    ref: "v2",
  }],
  ["example.com:owner/repo", { url: "example.com:owner/repo", transport: "ssh" }],
  ["file:///srv/git/skills.git", { url: "file:///srv/git/skills.git", transport: "file" }],
  ["file:///srv/git/skills.git#v1", { url: "file:///srv/git/skills.git", ref: "v1" }],
  ["file://localhost/srv/x.git", { url: "file:///srv/x.git" }],
  // Browser URLs the peers read: GitHub blob (a file: its folder is meant) and GitLab pages.
  ["https://github.com/owner/repo/blob/main/skills/pdf/SKILL.md", {
    url: "https://github.com/owner/repo.git",
    ref: "main",
    subpath: "skills/pdf",
  }],
  ["https://gitlab.com/group/sub/repo/-/tree/v2/skills/pdf", {
    url: "https://gitlab.com/group/sub/repo.git",
    transport: "https",
    ref: "v2",
    subpath: "skills/pdf",
  }],
  ["https://git.example.com/team/repo/-/blob/main/pdf/SKILL.md", {
    url: "https://git.example.com/team/repo.git",
    ref: "main",
    subpath: "pdf",
  }],
  ["https://gitlab.com/group/repo/-/tree/main", {
    url: "https://gitlab.com/group/repo.git",
    ref: "main",
    subpath: "",
  }],
  // A self-hosted GitLab on a non-default port keeps its port (the peer's own test case).
  ["https://git.corp.com:8443/group/repo/-/tree/main", {
    url: "https://git.corp.com:8443/group/repo.git",
    ref: "main",
    subpath: "",
  }],
  ["https://git.corp.com:8443/group/sub/repo/-/blob/v1/skills/pdf/SKILL.md", {
    url: "https://git.corp.com:8443/group/sub/repo.git",
    ref: "v1",
    subpath: "skills/pdf",
  }], // As copied from GitHub's pages: the tab shown, the plain view, the README and line anchors.
  ["https://github.com/owner/repo?tab=readme-ov-file", {
    url: "https://github.com/owner/repo.git",
    ref: undefined,
    subpath: "",
  }],
  ["https://github.com/owner/repo#readme", {
    url: "https://github.com/owner/repo.git",
    ref: undefined,
  }],
  ["https://github.com/owner/repo?tab=MIT-1-ov-file#readme-ov-file", { ref: undefined }],
  ["https://github.com/owner/repo/blob/main/skills/pdf/SKILL.md?plain=1#L12-L20", {
    url: "https://github.com/owner/repo.git",
    ref: "main",
    subpath: "skills/pdf",
  }],
  ["https://gitlab.com/group/repo/-/tree/main/skills/pdf?ref_type=heads", {
    url: "https://gitlab.com/group/repo.git",
    ref: "main",
    subpath: "skills/pdf",
  }],
  ["https://git.corp.com:8443/group/repo/-/blob/v1/pdf/SKILL.md?ref_type=heads#L3-5", {
    url: "https://git.corp.com:8443/group/repo.git",
    ref: "v1",
    subpath: "pdf",
  }],
  // Gitea, Forgejo and Codeberg pages on any host, and Bitbucket's.
  ["https://codeberg.org/owner/repo/src/branch/main/skills/pdf", {
    url: "https://codeberg.org/owner/repo.git",
    ref: "main",
    subpath: "skills/pdf",
  }],
  ["https://git.corp.example:3000/owner/repo/src/tag/v1.2/pdf/SKILL.md", {
    url: "https://git.corp.example:3000/owner/repo.git",
    ref: "v1.2",
    subpath: "pdf",
  }],
  ["https://bitbucket.org/team/repo/src/main/skills/pdf/", {
    url: "https://bitbucket.org/team/repo.git",
    ref: "main",
    subpath: "skills/pdf",
  }],
  // Any other fragment is a ref, as everywhere.
  ["https://github.com/owner/repo#v2", { ref: "v2" }],
];

for (const [input, expected] of accepted) {
  Deno.test(`parseSource() accepts ${JSON.stringify(input)}`, () => {
    const source = parseSource(input);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual((source as unknown as Record<string, unknown>)[key], value, key);
    }
  });
}

const rejected: [string, RegExp][] = [
  ["--upload-pack=touch /tmp/pwned", /starts with '-'/],
  ["-oProxyCommand=touch x", /starts with '-'/],
  ["ext::sh -c touch% /tmp/pwned", /'ext::' remote helper/],
  ["fd::17", /'fd::' remote helper/],
  ["ssh://-oProxyCommand=touch%20/tmp/pwned/repo", /host name starts with '-'/],
  ["ssh://-oProxyCommand=x@host/repo", /user name starts with '-'/],
  ["git@-oProxyCommand=x:repo", /host name starts with '-'/],
  ["-oProxyCommand=x:repo", /starts with '-'/],
  ["http://example.com/repo.git", /plain http:\/\/ is not allowed/],
  ["ftp://example.com/repo.git", /'ftp' transport is not allowed/],
  ["git+ssh://example.com/repo.git", /'git\+ssh' transport is not allowed/],
  ["https://user:token@github.com/owner/repo.git", /credentials in the URL/],
  ["https://ghp_secret@github.com/owner/repo.git", /credentials in the URL/],
  ["ssh://git:password@example.com/repo.git", /credentials in the URL/],
  ["owner/repo\n--upload-pack=x", /control characters/],
  ["owner/re\u0000po", /control characters/],
  ["owner/repo#--upload-pack=x", /starts with '-'/],
  ["owner/repo#a..b", /'\.\.'/],
  ["owner/repo#has space", /space/],
  ["owner/repo/../../etc", /may not contain/],
  ["owner/repo@../x", /skill name after '@'/],
  ["https://github.com/owner/repo.git?x=1", /query string/],
  ["https://github.com/owner/repo?tab=readme&x=1", /query string/],
  // A tag page: the tag would not be read if a branch had its name.
  ["https://gitlab.com/group/repo/-/tree/v1/pdf?ref_type=tags", /query string/],
  ["file://otherhost/srv/x.git", /must name a local path/],
  ["./missing-dir", /no such directory/],
  ["/abs/missing", /no such directory/],
  ["just-a-word", /not a URL, a directory or owner\/repo/],
  ["", /empty/],
  ["#main", /no repository/],
  ["https://github.com/someone", /names the user or organisation 'someone', not a repository/],
  ["https://github.com/owner/repo/issues/3", /a GitHub \/issues page is not a repository/],
  ["https://gitlab.com/group/repo/-/merge_requests/1", /a GitLab \/-\/merge_requests page/],
  ["https://github.com/owner/repo/tree/main#v2", /names a ref twice/],
  // URL normalisation would turn these into ref `secret` / another repository silently.
  ["https://github.com/o/r/tree/main/../secret", /'\.' or '\.\.' segment/],
  ["https://github.com/o/r/tree/main/%2e%2e/secret", /'\.' or '\.\.' segment/],
  ["https://github.com/o/r/./tree/main", /'\.' or '\.\.' segment/],
  ["https://example.com/team/../other/repo.git", /'\.' or '\.\.' segment/],
];

for (const [input, message] of rejected) {
  Deno.test(`parseSource() rejects ${JSON.stringify(input)} before git runs`, () => {
    assert.throws(() => parseSource(input), (e: unknown) => {
      assert.ok(e instanceof SkillError);
      assert.equal(e.code, "invalid_source");
      assert.match(e.message, message);
      return true;
    });
  });
}

Deno.test("parseSource() explains how to use a credential helper for embedded credentials", () => {
  assert.throws(() => parseSource("https://me:tok@example.com/r.git"), (e: unknown) => {
    assert.ok(e instanceof SkillError);
    assert.match(e.hint ?? "", /git config --global credential\.helper/);
    assert.doesNotMatch(e.message, /tok/); // the secret is not echoed in the reason
    return true;
  });
});

Deno.test("parseSource() of a URL pasted without its scheme says both ways to write it", () => {
  for (const input of ["github.com/anthropics/skills", "gitlab.com/group/sub/repo"]) {
    assert.throws(() => parseSource(input), (e: unknown) => {
      assert.ok(e instanceof SkillError);
      assert.match(e.message, /is not a valid GitHub owner/);
      assert.equal(e.hint, `For a URL write https://${input}; for a folder here, ./${input}`);
      return true;
    });
  }
  // An owner that is no host gets no such hint.
  assert.throws(() => parseSource("bad_owner!/x"), (e: unknown) => {
    assert.ok(e instanceof SkillError);
    assert.equal(e.hint, undefined);
    return true;
  });
});

Deno.test("parseSource() takes a directory the caller found as a local source", () => {
  assert.deepEqual(parseSource("./my-skill", { localDirectory: "/home/u/my-skill" }), {
    type: "local",
    path: "/home/u/my-skill",
    subpath: "",
    skill: undefined,
    ref: undefined,
  });
  // owner/repo that exists on disk is a directory, not GitHub.
  assert.equal(parseSource("owner/repo", { localDirectory: "/w/owner/repo" }).type, "local");
});

Deno.test("parseSource() clones a bare repository directory via file://", () => {
  const source = parseSource("/srv/skills.git", {
    localDirectory: "/srv/skills.git",
    localIsBareRepository: true,
  });
  assert.equal(source.type, "git");
  assert.equal(source.type === "git" && source.url, "file:///srv/skills.git");
  assert.equal(source.type === "git" && source.transport, "file");
});

Deno.test("validateRef() follows git check-ref-format", () => {
  for (const ok of ["main", "v1.0.0", "feature/a-b", SHA, "abc1234", "release_2"]) {
    assert.equal(validateRef(ok), ok);
  }
  for (
    const bad of [
      "-x",
      "a..b",
      "a b",
      "a~1",
      "a^",
      "a:b",
      "a?",
      "a*",
      "a[",
      "a\\b",
      "/a",
      "a/",
      "a//b",
      ".a",
      "a/.b",
      "a.lock",
      "a.",
      "@",
      "a@{1}",
      "",
    ]
  ) {
    assert.throws(() => validateRef(bad), SkillError, bad);
  }
});

Deno.test("refRequest() combines --ref/--branch/--tag with #ref", () => {
  assert.deepEqual(refRequest({}, undefined), { kind: "default" });
  assert.deepEqual(refRequest({}, "v1"), { kind: "ref", name: "v1" });
  assert.deepEqual(refRequest({ branch: "dev" }, undefined), { kind: "branch", name: "dev" });
  assert.deepEqual(refRequest({ tag: "v2" }, undefined), { kind: "tag", name: "v2" });
  assert.deepEqual(refRequest({ ref: SHA }, undefined), { kind: "ref", name: SHA });
  assert.deepEqual(refRequest({ tag: "v1" }, "v1"), { kind: "tag", name: "v1" });
  assert.throws(() => refRequest({ ref: "a", tag: "b" }, undefined), /only one of/);
  assert.throws(() => refRequest({ branch: "a" }, "b"), /names ref 'b' but --branch names 'a'/);
  assert.throws(() => refRequest({ ref: "--upload-pack=x" }, undefined), /starts with '-'/);
});

Deno.test("isFullSha() and looksLikeSha() tell commits from names", () => {
  assert.equal(isFullSha(SHA), true);
  assert.equal(isFullSha(SHA.toUpperCase()), true);
  assert.equal(isFullSha("a".repeat(64)), true);
  assert.equal(isFullSha("abc1234"), false);
  assert.equal(looksLikeSha("abc1234"), true);
  assert.equal(looksLikeSha("main"), false);
  assert.equal(looksLikeSha("abc"), false);
});

Deno.test("parseSkillSelector() canonicalises names, keeps '*' and takes a path inside the source", () => {
  assert.equal(parseSkillSelector("*"), "*");
  assert.equal(parseSkillSelector("Kalshi_Markets"), "kalshi-markets");
  // A path is kept as written (it is compared with the source's paths), ./ and a final / dropped.
  assert.equal(parseSkillSelector("preview/Flow"), "preview/Flow");
  assert.equal(parseSkillSelector("./skills/pdf/"), "skills/pdf");
  // A folder at the top keeps its ./ (a bare `pdf` is a name).
  assert.equal(parseSkillSelector("./pdf"), "./pdf");
  for (const outside of ["../x", "skills/../../x", "/etc/x", "a//b", "a/./b", "a/b\\c", "a/\nb"]) {
    assert.throws(() => parseSkillSelector(outside), /Invalid --skill/, outside);
  }
});

Deno.test("splitBrowserPath() ends the ref where the longest branch or tag of the remote ends", () => {
  const tree = { kind: "tree" as const, segments: ["feature", "x", "skills", "pdf"] };
  const refs = ["main", "feature/x", "feature/x/skills", "v1"];
  assert.deepEqual(splitBrowserPath("u", tree, refs), { ref: "feature/x/skills", subpath: "pdf" });
  assert.deepEqual(splitBrowserPath("u", tree, ["feature/x"]), {
    ref: "feature/x",
    subpath: "skills/pdf",
  });
  // On segment boundaries only: `feat` is no prefix of `feature/x`.
  assert.equal(splitBrowserPath("u", tree, ["feat", "feature/xy"]), undefined);
  // The whole path a branch: its root.
  assert.deepEqual(
    splitBrowserPath("u", { kind: "tree", segments: ["release", "2.0"] }, [
      "release/2.0",
    ]),
    { ref: "release/2.0", subpath: "" },
  );
  // A blob keeps its file, whose folder is meant.
  const blob = { kind: "blob" as const, segments: ["release", "2.0", "pdf", "SKILL.md"] };
  assert.deepEqual(splitBrowserPath("u", blob, ["release/2.0"]), {
    ref: "release/2.0",
    subpath: "pdf",
  });
  assert.equal(splitBrowserPath("u", blob, ["release/2.0/pdf/SKILL.md"]), undefined);
});

Deno.test("parseSource() keeps a browser URL's path for a ref with slashes", () => {
  const source = parseSource("https://github.com/o/r/tree/feature/x/skills/pdf");
  assert.equal(source.type, "git");
  assert.deepEqual((source as { browserPath?: unknown }).browserPath, {
    kind: "tree",
    segments: ["feature", "x", "skills", "pdf"],
  });
  assert.equal(source.ref, "feature");
});
