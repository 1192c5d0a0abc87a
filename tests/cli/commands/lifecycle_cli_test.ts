import assert from "node:assert/strict";
import { join } from "node:path";
import * as add from "../../../src/cli/commands/add.ts";
import * as remove from "../../../src/cli/commands/remove.ts";
import * as trust from "../../../src/cli/commands/trust.ts";
import * as untrust from "../../../src/cli/commands/untrust.ts";
import * as update from "../../../src/cli/commands/update.ts";
import { chooseFromList, confirmAction, parseSelection } from "../../../src/cli/ui/lifecycle_ui.ts";
import { SkillError } from "../../../src/core/errors.ts";
import { type Context, memoryOutput } from "../../../src/core/io.ts";
import { readRegistry } from "../../../src/runtime/store/registry.ts";
import { tempDir } from "../../helpers/cli.ts";
import { createRepo, multiSkillFiles } from "../../fixtures/git_repos.ts";

function fakeCtx(home: string, answers: string[], isTty = true) {
  const stdout = memoryOutput();
  const stderr = memoryOutput();
  const queue = [...answers];
  const ctx: Context = {
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent", SKILLS_HOME: home },
    cwd: "/",
    stdout,
    stderr,
    isTty,
    stdoutIsTty: false,
    signal: new AbortController().signal,
    verbose: false,
    color: false,
    readLine: () => Promise.resolve(queue.shift() ?? null),
  };
  return { ctx, stdout, stderr, queue };
}

const usage = (e: unknown) => e instanceof SkillError && e.exitCode === 2;

Deno.test("add.parse() reads sources, ref flags, repeated --skill and --name", () => {
  const o = add.parse(["owner/repo", "--skill", "PDF", "--skill", "docx", "--tag", "v1", "-y"]);
  assert.equal(o.source, "owner/repo");
  assert.deepEqual(o.skills, ["pdf", "docx"]);
  assert.deepEqual(o.refs, { ref: undefined, branch: undefined, tag: "v1" });
  assert.equal(o.yes, true);
  assert.equal(add.parse(["x/y", "--skill", "*", "--list"]).list, true);
  assert.equal(add.parse(["x/y", "--name", "Mine"]).name, "Mine");
  assert.equal(add.parse(["--help"]).help, true);
  const bad: string[][] = [
    [],
    ["a/b", "c/d"],
    ["a/b", "--name", "x", "--skill", "*"],
    ["a/b", "--name", "../x"],
    ["a/b", "--skill", "../x"],
    ["a/b", "--list", "--yes"],
    ["--upload-pack=touch /tmp/x"],
    ["a/b", "--bogus"],
  ];
  for (const argv of bad) assert.throws(() => add.parse(argv), usage, argv.join(" "));
});

Deno.test("update.parse() needs names or --all, and --ref moves exactly one skill", () => {
  assert.deepEqual(update.parse(["Alpha", "beta_x"]).names, ["alpha", "beta-x"]);
  const all = update.parse(["--all", "--dry-run", "--force", "--yes", "--json"]);
  assert.deepEqual([all.all, all.dryRun, all.force, all.yes, all.json], [
    true,
    true,
    true,
    true,
    true,
  ]);
  assert.deepEqual(update.parse(["a", "--ref", "v2"]).refs.ref, "v2");
  for (
    const argv of [[], ["a", "--all"], ["--all", "--ref", "v2"], ["a", "b", "--tag", "v"], [
      "a",
      "--ref",
      "x",
      "--tag",
      "y",
    ]]
  ) {
    assert.throws(() => update.parse(argv), usage, argv.join(" "));
  }
  assert.throws(() => update.parse(["a", "--ref", "--upload-pack=x"]), SkillError);
});

Deno.test("remove/trust/untrust parse names and --yes", () => {
  assert.deepEqual(remove.parse(["A", "b", "-y"]).names, ["a", "b"]);
  assert.equal(remove.parse(["a", "--yes"]).yes, true);
  assert.throws(() => remove.parse([]), usage);
  assert.deepEqual([trust.parse(["x", "--yes"]).name, trust.parse(["x", "-y"]).yes], ["x", true]);
  assert.throws(() => trust.parse([]), usage);
  assert.throws(() => trust.parse(["a", "b"]), usage);
  assert.equal(untrust.parse(["x", "--json"]).json, true);
  assert.throws(() => untrust.parse(["x", "--yes"]), usage);
});

Deno.test("parseSelection() reads numbers, ranges, '*' and an empty answer", () => {
  assert.deepEqual(parseSelection("1,3", 3), { kind: "indices", indices: [0, 2] });
  assert.deepEqual(parseSelection(" 2-3 1 ", 3), { kind: "indices", indices: [0, 1, 2] });
  assert.deepEqual(parseSelection("*", 2), { kind: "indices", indices: [0, 1] });
  assert.deepEqual(parseSelection("all", 2), { kind: "indices", indices: [0, 1] });
  assert.deepEqual(parseSelection("", 2), { kind: "cancel" });
  assert.equal(parseSelection("4", 3).kind, "invalid");
  assert.equal(parseSelection("0", 3).kind, "invalid");
  assert.equal(parseSelection("3-1", 3).kind, "invalid");
  assert.equal(parseSelection("pdf", 3).kind, "invalid");
});

Deno.test("chooseFromList() asks again after an invalid answer and cancels on an empty one", async () => {
  const items = [{ label: "pdf", detail: "PDFs" }, { label: "docx", detail: "Word" }];
  const { ctx, stderr } = fakeCtx("/unused", ["7", "2"]);
  assert.deepEqual(await chooseFromList(ctx, "Found 2 skills:", items), [1]);
  assert.match(stderr.text(), /1\) pdf {3}PDFs\n {2}2\) docx {2}Word\n/);
  assert.match(stderr.text(), /'7' is not between 1 and 2/);
  const empty = fakeCtx("/unused", [""]);
  await assert.rejects(
    () => chooseFromList(empty.ctx, "t", items),
    (e: unknown) => e instanceof SkillError && e.code === "cancelled",
  );
});

Deno.test("confirmAction() refuses without a terminal unless --yes", async () => {
  const { ctx } = fakeCtx("/unused", [], false);
  await assert.rejects(
    () => confirmAction(ctx, "Install?", { yes: false, action: "Cannot install skill 'x'" }),
    (e: unknown) =>
      e instanceof SkillError && e.code === "confirmation_required" && e.exitCode === 1 &&
      /--yes/.test(e.hint ?? "") && e.message === "Cannot install skill 'x': confirmation required",
  );
  assert.equal(await confirmAction(ctx, "Install?", { yes: true, action: "a" }), true);
});

Deno.test("skills add on a terminal: answering 'n' to the prompt writes nothing", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", multiSkillFiles(["alpha"]));
  const home = join(tmp.path, "home");
  const { ctx, stderr } = fakeCtx(home, ["n"]);
  await assert.rejects(
    () => add.run(add.parse([repo.url]), ctx),
    (e: unknown) => e instanceof SkillError && e.code === "cancelled",
  );
  const sha = await repo.head();
  assert.match(
    stderr.text(),
    new RegExp(`Install untrusted skill 'alpha' from ${repo.url} at ${sha}\\? \\[y/N\\] `),
  );
  assert.match(stderr.text(), /Env allowed: none/);
  assert.equal(await Deno.stat(home).catch(() => null), null, "nothing written at all");
});

Deno.test("skills add on a terminal asks which skills to install when there are several", async () => {
  await using tmp = await tempDir();
  const repo = await createRepo(tmp.path, "r", multiSkillFiles(["alpha", "beta", "gamma"]));
  const home = join(tmp.path, "home");
  const { ctx, stderr, stdout } = fakeCtx(home, ["1,3", "y", "n"]);
  assert.equal(await add.run(add.parse([repo.url]), ctx), 0);
  assert.match(stderr.text(), /Found 3 skills in file:\/\/.*:\n {2}1\) alpha/);
  assert.match(stdout.text(), /Installed 'alpha'/);
  const names = (await readRegistry(home)).skills.map((s) => s.name_canonical);
  assert.deepEqual(names, ["alpha"], "gamma was declined, beta not chosen");
});
