import assert from "node:assert/strict";
import { join } from "node:path";
import { findScript, findSkill, loadCatalog } from "../../../src/runtime/catalog/catalog.ts";
import { SkillError } from "../../../src/core/errors.ts";
import { tempDir } from "../../helpers/cli.ts";
import { installRunnerSkill, localEntry, registerEntries } from "../../helpers/install_fixture.ts";
import { writeTree } from "../../helpers/tree.ts";
import { canonicalSkillName } from "../../../src/core/names.ts";

async function writeSkill(dir: string, frontMatter: string, files: Record<string, string> = {}) {
  await writeTree(dir, { "SKILL.md": `---\n${frontMatter}\n---\n# Body\n`, ...files });
}

async function register(home: string, name: string, trusted = true) {
  await registerEntries(
    home,
    localEntry(name, join(home, name), {
      source: { type: "local", url: `/src/${name}`, subpath: "" },
      trusted,
      trusted_digest: trusted ? "sha256:x" : null,
    }),
  );
}

Deno.test("loadCatalog() finds the bundled skills, trusted, with their scripts", async () => {
  await using home = await tempDir();
  const catalog = await loadCatalog(home.path);
  const names = catalog.skills.map((s) => s.canonical);
  assert.ok(names.includes("kalshi-markets") && names.includes("hello-extended"), names.join());
  const kalshi = findSkill(catalog, "Kalshi_Markets");
  assert.equal(kalshi.origin, "core");
  assert.equal(kalshi.trusted, true);
  assert.equal(kalshi.scripts.length, 10);
  assert.ok(kalshi.dir.startsWith(join(home.path, ".cache", "core")));
  assert.equal(findScript(kalshi, "status.py")?.name, "status");
  assert.equal(findScript(kalshi, "series-list.py")?.file, "series_list.py");
});

Deno.test("scripts are discovered minus scripts_ignore, dot-files, directories and symlinks", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "tools");
  await writeSkill(dir, "name: tools\ndescription: d\nscripts_ignore: ['*_test.py', '_*.py']", {
    "scripts/run.py": "print(1)",
    "scripts/run_test.py": "",
    "scripts/_private.py": "",
    "scripts/.hidden.py": "",
    "scripts/notes.txt": "",
    "scripts/sub.py/inner.py": "",
    "references/guide.md": "# guide",
    "references/deep/more.md": "# more",
    "assets/logo.svg": "<svg/>",
  });
  await Deno.symlink("/etc/passwd", join(dir, "scripts", "escape.py"));
  await register(home.path, "tools");
  const skill = findSkill(await loadCatalog(home.path), "tools");
  assert.deepEqual(skill.scripts.map((s) => s.file), ["run.py"]);
  assert.deepEqual(skill.references, ["references/deep/more.md", "references/guide.md"]);
  assert.deepEqual(skill.assets, ["assets/logo.svg"]);
  assert.equal(skill.origin, "local");
});

Deno.test("a package below scripts/ holds modules, not scripts, unless scripts: names one", async () => {
  await using home = await tempDir();
  // As anthropics' docx ships it: scripts/ is itself a package, office/ is a folder of
  // scripts, office/validators/ and office/helpers/ are packages those scripts import.
  const docx = {
    "scripts/__init__.py": "",
    "scripts/comment.py": "print(1)",
    "scripts/office/unpack.py": "from validators import DocxSchemaValidator",
    "scripts/office/run.sh": "#!/bin/sh\n",
    "scripts/office/validators/__init__.py": "from .docx import DocxSchemaValidator",
    "scripts/office/validators/docx.py": "from .base import BaseSchemaValidator",
    "scripts/office/validators/base.py": "class BaseSchemaValidator: pass",
    "scripts/office/validators/tools/check.sh": "#!/bin/sh\n",
    "scripts/office/validators/schemas/load.py": "SCHEMAS = {}",
    "scripts/office/helpers/__init__.py": "",
    "scripts/office/helpers/merge_runs.py": "def merge_runs(): pass",
  };
  await writeSkill(join(home.path, "docx"), "name: docx\ndescription: d", docx);
  await writeSkill(
    join(home.path, "named"),
    "name: named\ndescription: d\nscripts: [comment, office/validators/docx]",
    docx,
  );
  await register(home.path, "docx");
  await register(home.path, "named");
  const catalog = await loadCatalog(home.path);
  const skill = findSkill(catalog, "docx");
  // The package's Python files (at any depth below it) are modules; its shell scripts and
  // the files of scripts/ and office/ are scripts.
  assert.deepEqual(skill.scripts.map((s) => s.name), [
    "comment",
    "office/run",
    "office/unpack",
    "office/validators/tools/check",
  ]);
  assert.equal(findScript(skill, "office/validators/docx"), undefined);
  assert.deepEqual(skill.warnings, []);
  const named = findSkill(catalog, "named");
  assert.deepEqual(named.scripts.map((s) => s.name), ["comment", "office/validators/docx"]);
});

Deno.test("at most 200 scripts are listed, with a warning; a package's modules count apart", async () => {
  await using home = await tempDir();
  const numbered = (count: number, at: (i: number) => string) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [at(i), ""]));
  await writeSkill(join(home.path, "big-package"), "name: big-package\ndescription: d", {
    "scripts/lib/__init__.py": "",
    ...numbered(250, (i) => `scripts/lib/m${String(i).padStart(3, "0")}.py`),
    "scripts/zz_run.py": "",
  });
  await writeSkill(join(home.path, "many"), "name: many\ndescription: d", {
    ...numbered(201, (i) => `scripts/s${String(i).padStart(3, "0")}.py`),
  });
  await register(home.path, "big-package");
  await register(home.path, "many");
  const catalog = await loadCatalog(home.path);
  const big = findSkill(catalog, "big-package");
  assert.deepEqual(big.scripts.map((s) => s.name), ["zz_run"]);
  assert.deepEqual(big.warnings, []);
  const many = findSkill(catalog, "many");
  assert.equal(many.scripts.length, 200);
  assert.match(many.warnings.map((w) => w.message).join(), /more than 200 scripts/);
});

Deno.test("an explicit scripts list accepts 'x' and 'x.py' and warns about missing ones", async () => {
  await using home = await tempDir();
  await writeSkill(
    join(home.path, "listed"),
    "name: listed\ndescription: d\nscripts: [a, b.py, missing]",
    {
      "scripts/a.py": "",
      "scripts/b.py": "",
      "scripts/c.py": "",
    },
  );
  await register(home.path, "listed");
  const skill = findSkill(await loadCatalog(home.path), "listed");
  assert.deepEqual(skill.scripts.map((s) => s.name), ["a", "b"]);
  assert.match(skill.warnings.map((w) => w.message).join(), /scripts\/missing is missing/);
});

Deno.test("a broken skill is reported with a reason while the others still load", async () => {
  await using home = await tempDir();
  await writeSkill(join(home.path, "good"), "name: good\ndescription: fine");
  await writeSkill(join(home.path, "broken"), "name: broken");
  await Deno.mkdir(join(home.path, "linked-md"));
  await Deno.symlink("/etc/passwd", join(home.path, "linked-md", "SKILL.md"));
  await writeSkill(
    join(home.path, "..", `${home.path.split("/").pop()}-outside`),
    "name: outside\ndescription: d",
  );
  await Deno.symlink(
    join(home.path, "..", `${home.path.split("/").pop()}-outside`),
    join(home.path, "linked-dir"),
  );
  for (const name of ["good", "broken", "linked-md", "linked-dir"]) await register(home.path, name);
  try {
    const catalog = await loadCatalog(home.path);
    assert.ok(catalog.skills.some((s) => s.canonical === "good"));
    const reasons = Object.fromEntries(catalog.failures.map((f) => [f.canonical, f.reason]));
    assert.match(reasons.broken ?? "", /missing required field\(s\): description/);
    assert.match(reasons["linked-md"] ?? "", /SKILL.md is a symlink/);
    assert.match(reasons["linked-dir"] ?? "", /symlink/);
    assert.throws(
      () => findSkill(catalog, "broken"),
      (e: unknown) => e instanceof SkillError && e.code === "not_found",
    );
  } finally {
    await Deno.remove(join(home.path, "..", `${home.path.split("/").pop()}-outside`), {
      recursive: true,
    });
  }
});

Deno.test("a registry entry pointing outside SKILLS_HOME is never loaded", async () => {
  await using home = await tempDir();
  await using elsewhere = await tempDir();
  await writeSkill(join(elsewhere.path, "evil"), "name: evil\ndescription: d");
  await registerEntries(
    home.path,
    localEntry("evil", join(elsewhere.path, "evil"), {
      source: { type: "local", url: "/x", subpath: "" },
    }),
  );
  const catalog = await loadCatalog(home.path);
  assert.ok(!catalog.skills.some((s) => s.canonical === "evil"));
  assert.match(catalog.failures.find((f) => f.canonical === "evil")?.reason ?? "", /outside/);
});

Deno.test("findSkill() rejects hostile names with invalid_name before touching the disk", async () => {
  await using home = await tempDir();
  const catalog = await loadCatalog(home.path);
  for (const name of ["../etc", "/abs", "a b", "..", "x\0y"]) {
    assert.throws(
      () => findSkill(catalog, name),
      (e: unknown) => e instanceof SkillError && e.code === "invalid_name",
      name,
    );
  }
});

Deno.test("bundled skills are materialised once per version and hash", async () => {
  await using home = await tempDir();
  const first = await loadCatalog(home.path);
  const dir = findSkill(first, "hello-extended").dir;
  const stat = await Deno.stat(join(dir, "SKILL.md"));
  const second = await loadCatalog(home.path);
  assert.equal(findSkill(second, "hello-extended").dir, dir);
  assert.equal((await Deno.stat(join(dir, "SKILL.md"))).mtime?.getTime(), stat.mtime?.getTime());
});

Deno.test("the listing cache is used for unchanged skills and invalidated by an edit", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cached");
  await writeSkill(dir, "name: cached\ndescription: first", { "scripts/a.py": "" });
  const past = new Date(Date.now() - 3600_000);
  for (
    const p of [join(dir, "scripts", "a.py"), join(dir, "scripts"), join(dir, "SKILL.md"), dir]
  ) {
    await Deno.utime(p, past, past);
  }
  await register(home.path, "cached");
  assert.equal(findSkill(await loadCatalog(home.path), "cached").manifest.description, "first");
  const cacheFile = join(home.path, ".cache", "catalog.json");
  assert.match(await Deno.readTextFile(cacheFile), /"first"/);

  await Deno.writeTextFile(join(dir, "SKILL.md"), "---\nname: cached\ndescription: second\n---\n");
  await Deno.writeTextFile(join(dir, "scripts", "b.py"), "");
  const skill = findSkill(await loadCatalog(home.path), "cached");
  assert.equal(skill.manifest.description, "second");
  assert.deepEqual(skill.scripts.map((s) => s.name), ["a", "b"]);
});

Deno.test("a corrupt listing cache is ignored, never trusted", async () => {
  await using home = await tempDir();
  await writeSkill(join(home.path, "plain"), "name: plain\ndescription: d");
  await register(home.path, "plain");
  await Deno.mkdir(join(home.path, ".cache"), { recursive: true });
  await Deno.writeTextFile(join(home.path, ".cache", "catalog.json"), "{ garbage");
  assert.equal(findSkill(await loadCatalog(home.path), "plain").manifest.description, "d");
});

Deno.test("a skill installed under another name (--name) loads without a directory-name warning", async () => {
  await using home = await tempDir();
  await writeSkill(join(home.path, "renamed"), "name: original-name\ndescription: d");
  await register(home.path, "renamed");
  const skill = findSkill(await loadCatalog(home.path), "renamed");
  assert.equal(skill.manifest.name, "original-name");
  assert.deepEqual(skill.warnings.map((w) => w.message), []);
});

Deno.test("scripts in the languages skills ship are found with their language; two files one name would call are called by their file names", async () => {
  await using home = await tempDir();
  await writeSkill(join(home.path, "polyglot"), "name: polyglot\ndescription: d", {
    "scripts/build.sh": "#!/bin/bash\n",
    "scripts/render.mjs": "",
    "scripts/legacy.cjs": "",
    "scripts/check.ts": "",
    "scripts/fetch.py": "",
    "scripts/status.py": "",
    "scripts/status.sh": "",
    "scripts/notes.txt": "",
    "scripts/types.d.ts": "",
  });
  await register(home.path, "polyglot");
  const skill = findSkill(await loadCatalog(home.path), "polyglot");
  assert.deepEqual(
    skill.scripts.map((s) => [s.name, s.language]),
    [
      ["build", "bash"],
      ["check", "typescript"],
      ["fetch", "python"],
      ["legacy", "node"],
      ["render", "node"],
      ["status.py", "python"],
      ["status.sh", "bash"],
    ],
  );
  assert.match(
    skill.warnings.map((w) => w.message).join(),
    /scripts\/status\.py, scripts\/status\.sh share the name 'status': each runs by its file name/,
  );
  assert.equal(findScript(skill, "build")?.file, "build.sh");
  assert.equal(findScript(skill, "build.sh")?.file, "build.sh");
  assert.equal(findScript(skill, "build.py"), undefined);
  assert.equal(findScript(skill, "status.sh")?.file, "status.sh");
  assert.equal(findScript(skill, "scripts/status.py")?.file, "status.py");
  assert.equal(findScript(skill, "status"), undefined);
});

Deno.test("the listing summary install records serves a cold listing, and an edit right after install is seen", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "summed");
  // Written just now, as install writes a skill: install dates the key's paths back.
  await writeSkill(dir, "name: summed\ndescription: first", { "scripts/a.py": "" });
  const { withListingSummary } = await import("../../../src/runtime/catalog/cache.ts");
  const entry = await withListingSummary(
    localEntry("summed", dir, { source: { type: "local", url: "/src/summed", subpath: "" } }),
    home.path,
  );
  assert.equal(typeof entry.listing, "string");
  await registerEntries(home.path, entry);
  const cacheFile = join(home.path, ".cache", "catalog.json");
  assert.equal(findSkill(await loadCatalog(home.path), "summed").manifest.description, "first");
  // Served from the registry: the listing cache holds no copy of it.
  assert.doesNotMatch(await Deno.readTextFile(cacheFile), /"first"/);
  await Deno.remove(cacheFile);
  assert.equal(findSkill(await loadCatalog(home.path), "summed").manifest.description, "first");

  // Edited within the same second as the install: the dated-back key moves all the same.
  await Deno.writeTextFile(join(dir, "SKILL.md"), "---\nname: summed\ndescription: other\n---\n");
  await Deno.writeTextFile(join(dir, "scripts", "b.py"), "");
  const skill = findSkill(await loadCatalog(home.path), "summed");
  assert.equal(skill.manifest.description, "other");
  assert.deepEqual(skill.scripts.map((s) => s.name), ["a", "b"]);

  // A summary that is not this version's, or not a summary, is ignored.
  for (const listing of ["{ garbage", JSON.stringify({ format: 1, skill: {} }), 42]) {
    await registerEntries(home.path, { ...entry, listing });
    assert.equal(findSkill(await loadCatalog(home.path), "summed").manifest.description, "other");
  }
});

/** What findSkill answers for `name`: the skill's scope and folder, or the error it throws. */
function answerFor(catalog: Awaited<ReturnType<typeof loadCatalog>>, name: string): unknown {
  try {
    const skill = findSkill(catalog, name);
    return { scope: skill.scope, dir: skill.dir, origin: skill.origin };
  } catch (error) {
    const e = error as SkillError;
    return { code: e.code, message: e.message, hint: e.hint };
  }
}

Deno.test("a catalog of one name (`only`) answers findSkill as the whole catalog does and reads no other installed or bundled skill", async () => {
  await using home = await tempDir();
  await using elsewhere = await tempDir();
  const cwd = join(elsewhere.path, "work");
  const env = { HOME: elsewhere.path };
  // Installed: a plain skill, one shadowing a bundled skill, a broken one, one shadowed by
  // the project, and an entry outside the home.
  await writeSkill(join(home.path, "alpha"), "name: alpha\ndescription: installed");
  await writeSkill(join(home.path, "hello-extended"), "name: hello-extended\ndescription: mine");
  await writeSkill(join(home.path, "broken"), "name: broken");
  await writeSkill(join(home.path, "gamma"), "name: gamma\ndescription: installed");
  for (const name of ["alpha", "hello-extended", "broken", "gamma"]) {
    await register(home.path, name);
  }
  await writeSkill(join(elsewhere.path, "evil"), "name: evil\ndescription: d");
  await registerEntries(
    home.path,
    localEntry("evil", join(elsewhere.path, "evil"), {
      source: { type: "local", url: "/x", subpath: "" },
    }),
  );
  await writeSkill(join(cwd, ".agents", "skills", "gamma"), "name: gamma\ndescription: project");
  const whole = await loadCatalog(home.path, { cwd, env });
  const names = ["alpha", "Hello_Extended", "broken", "gamma", "evil", "kalshi-markets", "nope"];
  for (const name of names) {
    const only = await loadCatalog(home.path, { cwd, env, only: canonicalSkillName(name) });
    assert.deepEqual(answerFor(only, name), answerFor(whole, name), name);
    const shadowedHere = (c: typeof whole) =>
      c.shadowed.filter((s) => s.canonical === canonicalSkillName(name));
    assert.deepEqual(shadowedHere(only), shadowedHere(whole), name);
    // Of the installed and bundled skills, only the one of that name was read.
    const others = [...only.skills, ...only.failures].filter((s) =>
      s.scope !== "project" && s.canonical !== canonicalSkillName(name)
    );
    assert.deepEqual(others.map((s) => s.canonical), [], name);
  }
  assert.ok(whole.skills.some((s) => s.canonical === "kalshi-markets"), "the whole has the rest");
});

Deno.test("runCatalog() reads only the named skill, in policy mode and in the sandbox alike, and names every installed folder", async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  const installed = [await installRunnerSkill(home.path, "runner-lab")];
  installed.push(await installRunnerSkill(home.path, "runner-limited"));
  const { runCatalog } = await import("../../../src/runtime/exec/script_service.ts");
  const read = (sandbox: string, name: string) =>
    runCatalog(home.path, name, {
      cwd: cwd.path,
      env: { HOME: cwd.path, PATH: Deno.env.get("PATH") ?? "", SKILLS_SANDBOX: sandbox },
    });
  const listed = async (sandbox: string, name: string) =>
    (await read(sandbox, name)).skills.map((s) => s.canonical);
  for (const sandbox of ["off", "required", "sometimes"]) {
    assert.deepEqual(await listed(sandbox, "Hello_Extended"), ["hello-extended"], sandbox);
    assert.deepEqual(await listed(sandbox, "runner-lab"), ["runner-lab"], sandbox);
    // What a sandbox hides needs no reading: the registry names every installed folder.
    assert.deepEqual((await read(sandbox, "runner-lab")).installedDirs, installed, sandbox);
  }
  // A name that is no valid one: the whole catalog, and the run says what is wrong where it
  // always has.
  assert.ok((await listed("off", "../x")).includes("kalshi-markets"));
});
