import assert from "node:assert/strict";
import { join } from "node:path";
import { initPython, toolchainMounts } from "../../../src/runtime/sandbox/toolchain.ts";
import { tempDir } from "../../helpers/cli.ts";

async function file(path: string, text = "#!/bin/sh\n", mode = 0o755): Promise<string> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, mode);
  return path;
}

Deno.test("toolchainMounts() shows install folders under a hidden home, never the home itself", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using dir = await tempDir();
  const home = await Deno.realPath(dir.path);
  const skills = join(home, ".agent", "skills");
  await Deno.mkdir(skills, { recursive: true });
  const shim = await file(join(home, ".pyenv", "shims", "python3"));
  await Deno.mkdir(join(home, ".pyenv", "libexec"));
  for (const prefix of [".local/share/uv/python/cpython-3.12", ".pyenv/versions/3.12"]) {
    await Deno.mkdir(join(home, prefix, "lib", "python3.12"), { recursive: true });
  }
  // A folder with a bin/ that is not an interpreter's: only the file is shown.
  const project = await file(join(home, "project", "bin", "python3"));
  const uv = await file(join(home, ".local", "bin", "uv"));
  const uvPython = await file(
    join(home, ".local", "share", "uv", "python", "cpython-3.12", "bin", "python3.12"),
  );
  const venvPython = await file(join(home, "venv", "bin", "python"));
  await Deno.writeTextFile(
    join(home, "venv", "pyvenv.cfg"),
    `home = ${join(home, ".pyenv", "versions", "3.12", "bin")}\n`,
  );
  await file(join(home, ".pyenv", "versions", "3.12", "bin", "python3"));
  const mine = await file(join(home, "bin", "python3"));
  const inSkills = await file(join(skills, "bin", "tool"));
  const outside = "/usr/bin/python3";
  const hidden = [home, skills];
  const binds = (paths: string[], visible: string[] = []) =>
    toolchainMounts(paths, hidden, visible).binds;
  assert.deepEqual(binds([shim]), [join(home, ".pyenv")]);
  assert.deepEqual(binds([uv]), [uv], "~/.local is shared: the file alone");
  assert.deepEqual(binds([uvPython]), [
    join(home, ".local", "share", "uv", "python", "cpython-3.12"),
  ]);
  assert.deepEqual(binds([venvPython]), [
    join(home, "venv"),
    join(home, ".pyenv", "versions", "3.12"),
  ]);
  assert.deepEqual(binds([mine]), [mine], "~/bin: the file alone");
  assert.deepEqual(binds([project]), [project], "not an install folder: the file alone");
  assert.deepEqual(binds([inSkills]), [inSkills]);
  assert.deepEqual(binds([outside]), [], "visible anyway");
  // A symlink into the home is followed.
  const link = join(home, "..", `link-${crypto.randomUUID()}`);
  await Deno.symlink(shim, link);
  try {
    assert.deepEqual(toolchainMounts([link], hidden), { binds: [join(home, ".pyenv")], links: [] });
  } finally {
    await Deno.remove(link);
  }
  // A symlink inside a hidden shared folder is made again inside; its target is bound.
  const localPython = join(home, ".local", "bin", "python3.12");
  await Deno.symlink(uvPython, localPython);
  assert.deepEqual(toolchainMounts([localPython], hidden), {
    binds: [join(home, ".local", "share", "uv", "python", "cpython-3.12")],
    links: [[uvPython, localPython]],
  });
  // In a visible folder (the caller's directory) nothing is made, the target still bound.
  assert.deepEqual(toolchainMounts([localPython], hidden, [join(home, ".local", "bin")]), {
    binds: [join(home, ".local", "share", "uv", "python", "cpython-3.12")],
    links: [],
  });
  for (const mount of binds([shim, uv, uvPython, venvPython, mine, inSkills, localPython])) {
    assert.ok(!hidden.some((h) => h.startsWith(mount)), `${mount} would show a hidden folder`);
  }
});

Deno.test("toolchainMounts() knows a conda env, a bare prefix and a venv by their own files", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using dir = await tempDir();
  const home = await Deno.realPath(dir.path);
  const binds = (path: string) => toolchainMounts([path], [home]).binds;
  const conda = await file(join(home, "miniconda3", "envs", "x", "bin", "python3"));
  await Deno.mkdir(join(home, "miniconda3", "envs", "x", "conda-meta"));
  assert.deepEqual(binds(conda), [join(home, "miniconda3", "envs", "x")]);
  // lib/ without a python* folder, or a file named lib: not an interpreter's prefix.
  const noPython = await file(join(home, "tool", "bin", "python3"));
  await Deno.mkdir(join(home, "tool", "lib", "node_modules"), { recursive: true });
  assert.deepEqual(binds(noPython), [noPython]);
  const libFile = await file(join(home, "odd", "bin", "python3"));
  await Deno.writeTextFile(join(home, "odd", "lib"), "");
  assert.deepEqual(binds(libFile), [libFile]);
  // A venv whose pyvenv.cfg names no base: the venv alone.
  const venv = await file(join(home, "env", "bin", "python3"));
  await Deno.writeTextFile(join(home, "env", "pyvenv.cfg"), "version = 3.12\n");
  assert.deepEqual(binds(venv), [join(home, "env")]);
  // A pyenv root is known by libexec beside its shims, not by a shims folder alone.
  const shim = await file(join(home, "shimmed", "shims", "python3"));
  assert.deepEqual(binds(shim), [shim]);
  await Deno.mkdir(join(home, "shimmed", "libexec"));
  assert.deepEqual(binds(shim), [join(home, "shimmed")]);
});

Deno.test(
  "toolchainMounts() shows a Node prefix under a hidden home whole, by the language table's marker",
  {
    ignore: Deno.build.os === "windows",
  },
  async () => {
    await using dir = await tempDir();
    const home = await Deno.realPath(dir.path);
    const binds = (path: string) => toolchainMounts([path], [home]).binds;
    // nvm's layout: ~/.nvm/versions/node/v20.11.0/{bin/node,lib/node_modules}.
    const prefix = join(home, ".nvm", "versions", "node", "v20.11.0");
    const node = await file(join(prefix, "bin", "node"));
    assert.deepEqual(binds(node), [node], "no lib/node_modules yet: the file alone");
    await Deno.mkdir(join(prefix, "lib", "node_modules", "npm"), { recursive: true });
    assert.deepEqual(binds(node), [prefix]);
    // The marker is the runner's own language's: a python3 beside lib/node_modules is not shown so.
    const python = await file(join(prefix, "bin", "python3"));
    assert.deepEqual(binds(python), [python]);
  },
);

Deno.test("initPython() prefers a real interpreter over a shim script", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using dir = await tempDir();
  const shim = await file(join(dir.path, "shim"), "#!/bin/sh\nexec python3\n");
  const elf = await file(join(dir.path, "elf"), "\x7fELF....");
  assert.equal(initPython([shim, elf]), elf);
  assert.equal(initPython([shim]), shim);
  assert.equal(initPython([]), undefined);
});
