/** `skills completions`: parsing, flags from the command specs, and scripts that really complete. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "../../src/core/errors.ts";
import { parse } from "../../src/cli/commands/completions.ts";
import { completionCommands, renderBash, renderZsh } from "../../src/cli/completions_render.ts";
import { renderFish } from "../../src/cli/completions_fish.ts";
import { COMMANDS } from "../../src/cli/command_table/command_table.ts";
import { SPECS } from "../../src/cli/specs/all.ts";
import { type CommandSpec, COMMON_FLAGS, HELP_FLAG } from "../../src/cli/spec.ts";
import { baseEnv, cliArgv, runCli, tempDir } from "../helpers/cli.ts";
import { SKIP_SLOW } from "../helpers/quick.ts";

const parseCases: [string[], Record<string, unknown>][] = [
  [["bash"], { shell: "bash", listSkills: false, listScripts: undefined }],
  [["zsh"], { shell: "zsh", listSkills: false, listScripts: undefined }],
  [["fish"], { shell: "fish", listSkills: false, listScripts: undefined }],
  [["--list-skills"], { shell: undefined, listSkills: true, listScripts: undefined }],
  [["--list-scripts", "kalshi-markets"], {
    shell: undefined,
    listSkills: false,
    listScripts: "kalshi-markets",
  }],
];
for (const [argv, expected] of parseCases) {
  Deno.test(`completions parse() reads ${JSON.stringify(argv)}`, () => {
    const o = parse(argv);
    assert.deepEqual(
      { shell: o.shell, listSkills: o.listSkills, listScripts: o.listScripts },
      expected,
    );
  });
}

for (
  const [argv, message] of [[[], /Missing shell/], [
    ["powershell"],
    /Unsupported shell 'powershell'/,
  ], [["bash", "zsh"], /Expected one shell, got 2/]] as const
) {
  Deno.test(`completions parse() rejects ${JSON.stringify(argv)}`, () => {
    assert.throws(() => parse(argv), (e) => e instanceof UsageError && message.test(e.message));
  });
}

Deno.test("completionCommands() takes a spec's flags with shorts and values, then adds the common flags", () => {
  const spec: CommandSpec = {
    name: "x",
    order: 1,
    aliases: ["y"],
    summary: "X",
    guide: "setup.md",
    usage: ["x [--strict]"],
    description: "",
    flags: {
      strict: { type: "boolean", description: "Apply the rules exactly" },
      timeout: {
        type: "string",
        short: "t",
        value: "S",
        description: "Seconds before the script\nis stopped",
      },
      skills: {
        type: "string",
        value: "a,b",
        complete: "skill-list",
        description: "Active skills",
      },
      help: HELP_FLAG,
    },
    positionals: [{ name: "skill", complete: "skill" }, { name: "script", complete: "script" }],
  };
  const [command] = completionCommands([spec]);
  assert.deepEqual(command!.flags.slice(0, 4), [
    { long: "strict", description: "Apply the rules exactly" },
    {
      long: "timeout",
      short: "t",
      value: "S",
      description: "Seconds before the script is stopped",
    },
    { long: "skills", value: "a,b", description: "Active skills", complete: "skill-list" },
    { long: "help", short: "h", description: "Show this help" },
  ]);
  assert.deepEqual(command!.flags.slice(4).map((f) => f.long), ["json", "verbose", "no-color"]);
  assert.deepEqual(command!.words, ["x", "y"]);
  assert.equal(command!.positional, "skill+script");
});

Deno.test("completions for bash, zsh and fish carry every command, alias and flag of the specs", () => {
  const commands = completionCommands(SPECS);
  const bash = renderBash(commands);
  const zsh = renderZsh(commands);
  const fish = renderFish(commands);
  for (const spec of SPECS) {
    const aliases = spec.aliases ?? [];
    const words = [spec.name, ...aliases];
    const flags = { ...COMMON_FLAGS, ...spec.flags };
    const bashCase = new RegExp(`^    ${spec.name}\\) echo '([^']*)' ;;$`, "m").exec(bash);
    assert.ok(bashCase, `bash lacks the flags of ${spec.name}`);
    const zshCase = zsh.split(`\n    ${spec.name})\n`)[1]?.split(" ;;")[0];
    assert.ok(zshCase, `zsh lacks a case for ${spec.name}`);
    if (aliases.length > 0) {
      // bash and zsh turn an alias into its command's name before completing its flags.
      assert.ok(bash.includes(`\n    ${aliases.join("|")}) echo ${spec.name} ;;\n`), spec.name);
      assert.ok(zsh.includes(`\n        ${aliases.join("|")}) cmd=${spec.name} ;;\n`), spec.name);
    }
    for (const word of words) {
      assert.match(bash, new RegExp(`compgen -W '[^']*\\b${word}\\b`), `bash lacks ${word}`);
      assert.ok(zsh.includes(`\n    '${word}:${spec.summary.replaceAll("'", `'\\''`)}'\n`), word);
      assert.match(fish, new RegExp(`-a ${word} -d `), `fish lacks ${word}`);
    }
    const fishSeen = `__fish_seen_subcommand_from ${words.join(" ")}"`;
    for (const [long, flag] of Object.entries(flags)) {
      const bashWords = bashCase[1]!.split(" ");
      assert.ok(bashWords.includes(`--${long}`), `bash: ${spec.name} --${long}`);
      if ("short" in flag && flag.short) {
        assert.ok(bashWords.includes(`-${flag.short}`), `bash: ${spec.name} -${flag.short}`);
        assert.ok(zshCase.includes(`{-${flag.short},--${long}}'[`), `zsh: ${spec.name} --${long}`);
        assert.ok(
          fish.includes(`${fishSeen} -s ${flag.short} -l ${long}`),
          `fish: ${spec.name} --${long}`,
        );
      } else {
        assert.ok(zshCase.includes(`'--${long}[`), `zsh: ${spec.name} --${long}`);
        assert.ok(fish.includes(`${fishSeen} -l ${long}`), `fish: ${spec.name} --${long}`);
      }
    }
  }
});

async function generate(shell: string): Promise<string> {
  await using home = await tempDir();
  const result = await runCli(["completions", shell], { env: { SKILLS_HOME: home.path } });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, "");
  return result.stdout;
}

Deno.test("completions zsh and fish cover every command and documented flag", async () => {
  const zsh = await generate("zsh");
  const fish = await generate("fish");
  assert.match(zsh, /^#compdef skills\n/);
  for (const [name, entry] of Object.entries(COMMANDS)) {
    const summary = entry.summary.replaceAll("'", `'\\''`);
    assert.ok(zsh.includes(`\n    '${name}:${summary}'\n`), `zsh lacks ${name}`);
    assert.ok(zsh.includes(`\n    ${name})\n`), `zsh lacks a case for ${name}`);
    assert.match(fish, new RegExp(`-a ${name} -d `), `fish lacks ${name}`);
  }
  assert.match(zsh, /'--strict\[Apply the Agent Skills spec rules exactly\]'/);
  assert.match(
    zsh,
    /'--dir\[Parent directory for the new skill \(default: \.\)\]:directory:_files -\/'/,
  );
  assert.match(fish, /__fish_seen_subcommand_from validate" -l strict -d /);
  assert.match(
    fish,
    /__fish_seen_subcommand_from init" -l dir -r -a "\(__fish_complete_directories\)"/,
  );
  assert.match(fish, /completions --list-skills/);
  for (const [shell, text, file] of [["zsh", zsh, "c.zsh"], ["fish", fish, "c.fish"]] as const) {
    if (!(await onPath(shell))) continue; // syntax-checked where the shell is installed
    await using dir = await tempDir();
    await Deno.writeTextFile(join(dir.path, file), text);
    const check = await new Deno.Command(shell, { args: ["-n", join(dir.path, file)] }).output();
    assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
  }
});

async function onPath(program: string): Promise<boolean> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if ((await Deno.stat(join(dir, program))).isFile) return true;
    } catch { /* not here */ }
  }
  return false;
}

Deno.test("completions bash parses and completes commands, flags, skills and scripts", {
  ignore: SKIP_SLOW,
}, async () => {
  const script = await generate("bash");
  await using dir = await tempDir();
  await using home = await tempDir();
  const file = join(dir.path, "skills.bash");
  await Deno.writeTextFile(file, script);
  const syntax = await new Deno.Command("bash", { args: ["-n", file] }).output();
  assert.equal(syntax.code, 0, new TextDecoder().decode(syntax.stderr));

  // A `skills` executable the completion calls back into (the real CLI).
  const wrapper = join(dir.path, "skills");
  await Deno.writeTextFile(
    wrapper,
    `#!/bin/sh\nexec ${cliArgv([]).map((word) => `'${word}'`).join(" ")} "$@"\n`,
  );
  await Deno.chmod(wrapper, 0o755);
  const driver = `source '${file}'
c() { COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _skills; echo "\${COMPREPLY[*]}"; }
c '${wrapper}' va
c '${wrapper}' validate --st
c '${wrapper}' info kal
c '${wrapper}' run hello-extended ''
c '${wrapper}' run --json kalshi-markets sta
c '${wrapper}' chat --skills hello-extended,ka
c '${wrapper}' completions ''
c '${wrapper}' init demo --dir ''
c '${wrapper}' rm kal
c '${wrapper}' uninstall --y
c '${wrapper}' --json l
c '${wrapper}' --verbose run hello-extended ''
c '${wrapper}' run hello-extended advanced_greeting --ver
complete -p skills
`;
  await Deno.mkdir(join(dir.path, "sub"));
  const output = await new Deno.Command("bash", {
    args: ["--norc", "--noprofile", "-c", driver],
    cwd: dir.path,
    env: baseEnv({ SKILLS_HOME: home.path }),
    clearEnv: true,
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.deepEqual(new TextDecoder().decode(output.stdout).split("\n"), [
    "validate",
    "--strict",
    "kalshi-markets",
    "advanced_greeting",
    "status",
    "hello-extended,kalshi-markets",
    "bash zsh fish",
    "sub",
    "kalshi-markets",
    "--yes",
    "list ls lint logs link lock",
    "advanced_greeting",
    "",
    "complete -F _skills skills",
    "",
  ]);
});

Deno.test("completions --list-skills and --list-scripts print plain names", async () => {
  await using home = await tempDir();
  const env = { SKILLS_HOME: home.path };
  const skills = await runCli(["completions", "--list-skills"], { env });
  assert.equal(skills.code, 0, skills.stderr);
  const names = skills.stdout.trim().split("\n");
  assert.ok(names.includes("hello-extended") && names.includes("kalshi-markets"), skills.stdout);
  assert.ok(names.every((n) => /^[a-z0-9-]+$/.test(n)), skills.stdout);
  const scripts = await runCli(["completions", "--list-scripts", "Hello_Extended"], { env });
  assert.equal(scripts.stdout, "advanced_greeting\n");
  const missing = await runCli(["completions", "--list-scripts", "../etc"], { env });
  assert.equal(missing.code, 2);
  assert.equal(missing.stdout, "");
});
